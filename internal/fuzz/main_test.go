package fuzz_test

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpparity/mcpparity/cmd/mcpparity/cli"
)

// TestMain makes the test binary the harness of stdio servers: started as
// "<test binary> replay …" or "sdk-server …" it runs that subcommand.
func TestMain(m *testing.M) {
	if code, ran := cli.RunIfSubcommand(os.Args[1:]); ran {
		os.Exit(code)
	}
	goleak.VerifyTestMain(m)
}
