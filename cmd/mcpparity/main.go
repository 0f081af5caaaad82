// Command mcpparity is the parity harness for MCP client pools: the
// reference server, the recorder, the replay, the conformance check and the
// mutation runner, as subcommands of one binary (package cli).
package main

import (
	"os"

	"github.com/mcpparity/mcpparity/cmd/mcpparity/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:])) }
