// Package cli is the command line of mcpparity: its subcommands, their
// flags, usage, error lines and exit codes. The libraries it calls take
// typed configuration and return errors; only this package chooses exit
// codes. cmd/mcpparity runs it, and so do the test binaries that
// re-execute themselves as the harness (RunIfSubcommand).
package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/mcpparity/mcpparity/internal/target/docker"
)

// A command is a subcommand: its line in the list, and its run.
type command struct {
	summary string
	run     func(ctx context.Context, c *call) int
}

var commands = map[string]*command{}

// The command links the Docker support and makes image:<name:tag> targets
// available (docs/targets.md); the harness's libraries do not.
func init() { docker.Register() }

func register(name, summary string, run func(ctx context.Context, c *call) int) {
	commands[name] = &command{summary, run}
}

// Main runs the command line args (os.Args[1:]) on the process's standard
// streams, with a context cancelled on SIGINT or SIGTERM, and returns the
// exit code.
func Main(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return Dispatch(ctx, args, os.Stdin, os.Stdout, os.Stderr)
}

// RunIfSubcommand runs args as Main does when args[0] names a subcommand,
// and reports whether it did. A test binary started as the harness
// (`<test binary> replay --stdio …`) calls it first in its TestMain.
func RunIfSubcommand(args []string) (code int, ran bool) {
	if len(args) == 0 || commands[args[0]] == nil {
		return 0, false
	}
	return Main(args), true
}

// Dispatch runs one command line: a subcommand and its arguments, or help.
func Dispatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "mcpparity: no subcommand given")
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "-h", "-help", "--help":
		usage(stdout)
		return 0
	case "help":
		return help(ctx, args[1:], stdin, stdout, stderr)
	}
	cmd := commands[args[0]]
	if cmd == nil {
		fmt.Fprintf(stderr, "mcpparity: unknown subcommand %q\n", args[0])
		usage(stderr)
		return 2
	}
	return cmd.run(ctx, &call{name: args[0], args: args[1:], stdin: stdin, stdout: stdout, stderr: stderr})
}

// help is `mcpparity help [SUBCOMMAND]`: the list, or what
// `SUBCOMMAND --help` prints.
func help(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		usage(stdout)
		return 0
	case len(args) == 1 && commands[args[0]] != nil:
		return Dispatch(ctx, []string{args[0], "--help"}, stdin, stdout, stderr)
	case len(args) == 1:
		fmt.Fprintf(stderr, "mcpparity help: unknown subcommand %q\n", args[0])
	default:
		fmt.Fprintf(stderr, "mcpparity help: one subcommand at most, got %q\n", args)
	}
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: mcpparity <subcommand> [flags]")
	fmt.Fprintln(w, "       mcpparity help <subcommand>   (or <subcommand> --help: its usage)")
	fmt.Fprintln(w)
	for _, n := range names() {
		fmt.Fprintf(w, "  %-13s %s\n", n, commands[n].summary)
	}
}

// names lists the subcommands in order.
func names() []string {
	out := make([]string, 0, len(commands))
	for n := range commands {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
