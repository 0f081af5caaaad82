package sdkdebug

import (
	"os"
	"strings"
	"testing"
)

// TestOptionSet: by the time anything runs, MCPGODEBUG holds the option.
func TestOptionSet(t *testing.T) {
	if !strings.Contains(os.Getenv(Var), Option) {
		t.Fatalf("%s=%q, want it to hold %s", Var, os.Getenv(Var), Option)
	}
}
