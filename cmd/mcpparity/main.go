// Command mcpparity is the parity harness for MCP client pools: the
// reference server, the recorder, the replay, the conformance check and the
// mutation runner, as subcommands of one binary (package cli).
package main

import (
	"os"
	"runtime/debug"

	"github.com/mcpparity/mcpparity/cmd/mcpparity/cli"
)

// gcPercent is the garbage collector's target unless GOGC says otherwise:
// the harness's heaps are small and short-lived (a check, a replay child),
// and collecting four times less often spares about a tenth of a fuzz
// sequence's CPU (go test ./internal/fuzz -bench BenchmarkSequences, with
// GOGC=100 and GOGC=400).
const gcPercent = 400

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	os.Exit(cli.Main(os.Args[1:]))
}
