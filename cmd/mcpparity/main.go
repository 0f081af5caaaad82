// Command mcpparity is the parity harness for MCP client pools: the
// reference server, the recorder, the replay, the conformance check and the
// mutation runner, as subcommands of one binary.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"
)

// A subcommand runs with its arguments and returns the process exit code.
// ctx is cancelled on SIGINT or SIGTERM.
type subcommand struct {
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) int
}

var subcommands = map[string]subcommand{}

func init() {
	register("sdk-server", "run the real go-sdk server with the eleven tools (HTTP or --stdio)", runSDKServer)
	register("replay", "serve a recorded fixture back to any MCP client", runReplay)
	register("mutate", "apply rule mutants and check that the suite kills each", runMutate)
	register("mutate-merge", "join the JSON reports of mutate shards", runMutateMerge)
}

func register(name, summary string, run func(ctx context.Context, args []string, stdout, stderr io.Writer) int) {
	subcommands[name] = subcommand{summary, run}
}

func main() { os.Exit(run(os.Args[1:])) }

// run dispatches with a context cancelled on SIGINT or SIGTERM.
func run(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return dispatch(ctx, args, os.Stdout, os.Stderr)
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "-help" || args[0] == "help" {
		usage(stdout)
		return 0
	}
	sc, ok := subcommands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "mcpparity: unknown subcommand %q\n", args[0])
		usage(stderr)
		return 2
	}
	return sc.run(ctx, args[1:], stdout, stderr)
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: mcpparity <subcommand> [flags]")
	names := make([]string, 0, len(subcommands))
	for n := range subcommands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, subcommands[n].summary)
	}
}

// newFlags returns the flag set of a subcommand: its usage, on --help,
// goes to stdout with the header every subcommand shares; errors go to
// stderr.
func newFlags(name, args string, stdout, stderr io.Writer, notes ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fs.SetOutput(stdout)
		defer fs.SetOutput(stderr)
		subcommandHeader(stdout, name, args)
		fs.PrintDefaults()
		for _, n := range notes {
			fmt.Fprintln(stdout, n)
		}
	}
	return fs
}

// subcommandHeader is the first lines of every subcommand's usage.
func subcommandHeader(w io.Writer, name, args string) {
	fmt.Fprintf(w, "usage: mcpparity %s %s\n\n%s\n\nflags (-name and --name are the same):\n", name, args, subcommands[name].summary)
}

// parseFlags parses args; done is true when the subcommand must return
// code at once (--help: 0, bad flags or arguments: 2).
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) (code int, done bool) {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0, true
	case err != nil:
		return 2, true
	case fs.NArg() > 0:
		fmt.Fprintf(stderr, "mcpparity %s: unexpected argument %q (see --help)\n", fs.Name(), fs.Arg(0))
		return 2, true
	}
	return 0, false
}
