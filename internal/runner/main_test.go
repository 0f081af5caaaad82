package runner_test

import (
	"os"
	"testing"

	"github.com/mcpparity/mcpparity/cmd/mcpparity/harnesstest"
)

// TestMain: started as "serve-without-catalog …", the test binary is a
// target of ready_test.go; otherwise harnesstest.Main.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "serve-without-catalog" {
		os.Exit(serveWithoutCatalog(os.Args[2:]))
	}
	harnesstest.Main(m)
}
