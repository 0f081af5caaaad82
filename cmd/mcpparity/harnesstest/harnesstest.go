// Package harnesstest makes a test binary the harness of the processes its
// tests start: what the harness runs as "<its binary> replay …" (a stdio
// replay, the stdio recorder, a live server, spawn) a test runs as "<the
// test binary> replay …".
package harnesstest

import (
	"os"
	"testing"

	"github.com/mcpparity/mcpparity/cmd/mcpparity/cli"
	"go.uber.org/goleak"
)

// Main is a package's TestMain: started with a subcommand, the test binary
// runs it and exits; otherwise it runs the tests, and fails them when a
// goroutine outlives them.
func Main(m *testing.M) {
	if code, ran := cli.RunIfSubcommand(os.Args[1:]); ran {
		os.Exit(code)
	}
	goleak.VerifyTestMain(m)
}
