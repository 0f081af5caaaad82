package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// A call is one run of a subcommand: its arguments and streams, and the
// flag set its run declares (flags) and parses (parse, parseArgs). Every
// subcommand parses this way, so that all of them answer --help, -h, bad
// flags and bad arguments alike, and every error line starts with
// "mcpparity <subcommand>: ".
type call struct {
	name           string
	args           []string
	stdin          io.Reader
	stdout, stderr io.Writer

	fs       *flag.FlagSet
	synopsis string
	notes    []string
}

// flags returns the call's flag set. In its usage, synopsis follows
// "usage: mcpparity <subcommand>" and notes follow the flags.
func (c *call) flags(synopsis string, notes ...string) *flag.FlagSet {
	fs := flag.NewFlagSet(c.name, flag.ContinueOnError)
	// parseArgs prints errors and the usage itself, each where it belongs.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	c.fs, c.synopsis, c.notes = fs, synopsis, notes
	return fs
}

// parse parses the call's arguments, which must all be flags. done is
// true when the run must return code at once: 0 after --help or -h (the
// usage on stdout), 2 after a bad flag or argument (the error and the
// usage on stderr).
func (c *call) parse() (code int, done bool) {
	args, code, done := c.parseArgs(false)
	if !done && len(args) > 0 {
		return c.badUsage("unexpected argument %q", args[0]), true
	}
	return code, done
}

// parseArgs is parse for a subcommand that takes positional arguments: the
// arguments after the flags (after "--" or the first one that is not a
// flag), or, interleaved, every argument that is not a flag or a flag's
// value, wherever it is (those after "--" included).
func (c *call) parseArgs(interleaved bool) (args []string, code int, done bool) {
	rest := c.args
	for {
		err := c.fs.Parse(rest)
		switch {
		case errors.Is(err, flag.ErrHelp):
			c.usage(c.stdout)
			return nil, 0, true
		case err != nil:
			return nil, c.badUsage("%v", err), true
		}
		left := c.fs.Args()
		// Parse consumed "--" when it stopped just after one.
		dashes := len(rest) > len(left) && rest[len(rest)-len(left)-1] == "--"
		if !interleaved || len(left) == 0 || dashes {
			return append(args, left...), 0, false
		}
		args, rest = append(args, left[0]), left[1:]
	}
}

// usage writes the call's usage: synopsis, summary, flags, notes.
func (c *call) usage(w io.Writer) {
	fmt.Fprintf(w, "usage: mcpparity %s %s\n\n%s\n", c.name, c.synopsis, commands[c.name].summary)
	hasFlags := false
	c.fs.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprintln(w, "\nflags (-name and --name are the same):")
		c.fs.SetOutput(w)
		c.fs.PrintDefaults()
		c.fs.SetOutput(io.Discard)
	}
	for _, n := range c.notes {
		fmt.Fprintln(w, n)
	}
}

// badUsage writes an error about the arguments and the usage to stderr,
// and returns 2.
func (c *call) badUsage(format string, args ...any) int {
	c.logf(format, args...)
	c.usage(c.stderr)
	return 2
}

// fail writes err to stderr and returns code.
func (c *call) fail(code int, err error) int {
	c.logf("%v", err)
	return code
}

// failf writes an error line to stderr and returns code.
func (c *call) failf(code int, format string, args ...any) int {
	c.logf(format, args...)
	return code
}

// logf writes one line to stderr, an error or a note, with the prefix
// of every such line of the subcommand.
func (c *call) logf(format string, args ...any) {
	fmt.Fprintf(c.stderr, "mcpparity %s: %s\n", c.name, fmt.Sprintf(format, args...))
}

// listFlag collects a repeated string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(s string) error { *l = append(*l, s); return nil }
