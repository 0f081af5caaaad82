package cli

import (
	"context"
	"fmt"
	"strings"
)

// The command lines of before the split of mutate and record into
// subcommands of one job each still run, as the subcommand that now does
// their job, after one notice line on stderr.

// givenFlag returns the first of names given among args as a flag, as
// spelled ("--suite", or "-suite" for "-suite=x"), or "" when none is.
func givenFlag(args []string, names ...string) string {
	spelled, _ := flagAt(args, names...)
	return spelled
}

// flagAt is givenFlag, with the flag's index in args (-1 when not given).
// The flags end at "--".
func flagAt(args []string, names ...string) (string, int) {
	for i, a := range args {
		if a == "--" {
			break
		}
		spelled, _, _ := strings.Cut(a, "=")
		for _, n := range names {
			if strings.HasPrefix(spelled, "-") && strings.TrimLeft(spelled, "-") == n {
				return spelled, i
			}
		}
	}
	return "", -1
}

// renameFlag returns args with each flag old (before "--") named now,
// its dashes and value kept.
func renameFlag(args []string, old, now string) []string {
	out := append([]string(nil), args...)
	for i, a := range out {
		if a == "--" {
			break
		}
		spelled, value, hasValue := strings.Cut(a, "=")
		if strings.HasPrefix(spelled, "-") && strings.TrimLeft(spelled, "-") == old {
			out[i] = strings.TrimSuffix(spelled, old) + now
			if hasValue {
				out[i] += "=" + value
			}
		}
	}
	return out
}

// renamed is a flag as given (e.g. "--check") under its new name.
func renamed(given, old, now string) string {
	return strings.TrimSuffix(given, old) + now
}

// notice says on stderr, in one line, that the old spelling still works.
func (c *call) notice(old, now string) {
	fmt.Fprintf(c.stderr, "mcpparity: %q is now %q; the old spelling still works\n", old, now)
}

// runAs runs the subcommand name on args, with the call's streams.
func (c *call) runAs(ctx context.Context, name string, args []string) int {
	return commands[name].run(ctx, &call{name: name, args: args, stdin: c.stdin, stdout: c.stdout, stderr: c.stderr})
}
