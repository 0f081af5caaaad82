package suite_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpparity/mcpparity/cmd/mcpparity/cli"
)

// TestMain makes the test binary the harness command of stdio replays:
// started as "<test binary> replay …" (or spawn …) it runs that
// subcommand; as "serve-without-catalog …", a target of ready_test.go.
func TestMain(m *testing.M) {
	if code, ran := cli.RunIfSubcommand(os.Args[1:]); ran {
		os.Exit(code)
	}
	if len(os.Args) > 1 && os.Args[1] == "serve-without-catalog" {
		os.Exit(serveWithoutCatalog(os.Args[2:]))
	}
	goleak.VerifyTestMain(m)
}
