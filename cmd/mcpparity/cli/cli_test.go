package cli

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"
)

// run runs a command line in process and returns its exit code and
// outputs.
func run(args ...string) (code int, stdout, stderr string) {
	var out, errs bytes.Buffer
	code = dispatch(context.Background(), args, &out, &errs)
	return code, out.String(), errs.String()
}

// takesArgs are the subcommands that take positional arguments.
var takesArgs = map[string]bool{"spawn": true, "mutate-merge": true, "init-suite": true}

// TestEverySubcommandLine: every registered subcommand prints its usage on
// stdout and exits 0 for --help, -h, -help and `help <cmd>`; a bogus flag,
// and an argument where none is taken, exit 2 with the error, then the
// usage, on stderr and nothing on stdout.
func TestEverySubcommandLine(t *testing.T) {
	if len(commands) < 10 {
		t.Fatalf("%d subcommands registered: %v", len(commands), names())
	}
	for _, name := range names() {
		t.Run(name, func(t *testing.T) {
			prefix := "usage: mcpparity " + name + " "
			var usage string
			for _, args := range [][]string{{name, "--help"}, {name, "-h"}, {name, "-help"}, {"help", name}} {
				code, out, errs := run(args...)
				if code != 0 || !strings.HasPrefix(out, prefix) || errs != "" {
					t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
				}
				if usage == "" {
					usage = out
				} else if out != usage {
					t.Errorf("%q prints another usage:\n%s", args, out)
				}
			}
			bad := [][]string{{name, "--mcpparity-bogus"}, {name, "-mcpparity-bogus=1"}}
			want := []string{"flag provided but not defined: -mcpparity-bogus", "flag provided but not defined: -mcpparity-bogus"}
			if !takesArgs[name] {
				bad = append(bad, []string{name, "extra"})
				want = append(want, `unexpected argument "extra"`)
			}
			for i, args := range bad {
				code, out, errs := run(args...)
				first, rest, _ := strings.Cut(errs, "\n")
				if code != 2 || out != "" || first != "mcpparity "+name+": "+want[i] || rest != usage {
					t.Errorf("%q: exit %d, stdout %q, stderr:\n%s", args, code, out, errs)
				}
			}
		})
	}
}

// TestTopLevelLine: the list of subcommands on stdout for help, on stderr
// with exit 2 for nothing, an unknown subcommand or help of one.
func TestTopLevelLine(t *testing.T) {
	for _, args := range [][]string{{"help"}, {"--help"}, {"-h"}} {
		code, out, errs := run(args...)
		if code != 0 || !strings.HasPrefix(out, "usage: mcpparity <subcommand>") || errs != "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
		for _, n := range names() {
			if !strings.Contains(out, "  "+n+" ") {
				t.Errorf("%q: %s is not listed:\n%s", args, n, out)
			}
		}
	}
	for args, first := range map[string]string{
		"":             "mcpparity: no subcommand given",
		"nope":         `mcpparity: unknown subcommand "nope"`,
		"help nope":    `mcpparity help: unknown subcommand "nope"`,
		"help check x": `mcpparity help: one subcommand at most, got ["check" "x"]`,
	} {
		code, out, errs := run(strings.Fields(args)...)
		if code != 2 || out != "" || !strings.HasPrefix(errs, first+"\n") || !strings.Contains(errs, "usage: mcpparity <subcommand>") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", args, code, out, errs)
		}
	}
}

// TestParseArgs: positional arguments after the flags, or interleaved with
// them; "--" ends the flags either way.
func TestParseArgs(t *testing.T) {
	for _, c := range []struct {
		args        []string
		interleaved bool
		want        []string
		json        string
	}{
		{[]string{"a", "--json", "x", "b"}, true, []string{"a", "b"}, "x"},
		{[]string{"-json=x", "a", "b"}, true, []string{"a", "b"}, "x"},
		{[]string{"a", "--", "--json", "b"}, true, []string{"a", "--json", "b"}, ""},
		{[]string{"a", "--json", "x"}, false, []string{"a", "--json", "x"}, ""},
		{[]string{"--json", "x", "--", "-v", "y"}, false, []string{"-v", "y"}, "x"},
	} {
		cl := &call{name: "spawn", args: c.args, stdout: &bytes.Buffer{}, stderr: &bytes.Buffer{}}
		json := cl.flags("").String("json", "", "")
		got, code, done := cl.parseArgs(c.interleaved)
		if done || code != 0 || !reflect.DeepEqual(got, c.want) || *json != c.json {
			t.Errorf("%q (interleaved %v): %q, --json %q, code %d %v; want %q, --json %q", c.args, c.interleaved, got, *json, code, done, c.want, c.json)
		}
	}
}

// TestBadArguments: an argument a subcommand reads after its flags is a
// usage error: the error and the usage on stderr, exit 2, nothing run.
func TestBadArguments(t *testing.T) {
	for _, c := range []struct{ args, first string }{
		{"serve-ref", "--state is required"},
		{"replay --stdio", "--fixture is required"},
		{"replay --fixture sdk/stdio.json --fault nope:1", "--fault: "},
		{"replay --fixture sdk/sse.json --require-header X", `--require-header "X": want 'Name: value'`},
		{"diff --a ref", "--b is required"},
		{"diff --b nope:x", "--b: "},
		{"check --run (", "--run: "},
		{"matrix --no-defaults", "no implementation"},
		{"record --listen :0", "flag provided but not defined: -listen"},
		{"record --name x", "flag provided but not defined: -name"},
		{"record-proxy --upstream-cmd x --everything", "flag provided but not defined: -everything"},
		{"record-proxy --upstream-cmd x --suite d", "flag provided but not defined: -suite"},
		{"record-proxy --upstream-cmd x --drift", "flag provided but not defined: -drift"},
		{"record-proxy --upstream-cmd x", "give exactly one of --upstream URL and --upstream-cmd CMD, and one of --out FILE and --out-dir DIR"},
		{"record-proxy --upstream http://127.0.0.1:1/mcp --out-dir d", "--out-dir records a stdio server: it goes with --upstream-cmd"},
		{"record-suite", "--suite is required"},
		{"record-suite --suite d --out x.json", "flag provided but not defined: -out"},
		{"record-suite --suite d --listen :0", "flag provided but not defined: -listen"},
		{"record-suite --suite d --everything", "flag provided but not defined: -everything"},
		{"spawn", "no command given"},
		{"mutate-merge --json x", "no report given"},
		{"mutate --shard 3/2", ""},
		{"mutate --coverage maybe", `--coverage "maybe": want on, off or auto`},
		{"mutate --compile-only --fuzz -1s", "--fuzz must be positive; --fuzz-every needs --fuzz"},
		{"mutate-target", "--target-file is required"},
		{"mutate-target --target-file t.yaml --shard 1/2", "flag provided but not defined: -shard"},
		{"mutate-target --target-file t.yaml --compile-only", "flag provided but not defined: -compile-only"},
		{"mutate-target --target-file t.yaml --operators", "flag provided but not defined: -operators"},
		{"mutate-target --target-file t.yaml --min-score 1", "flag provided but not defined: -min-score"},
		{"fuzz --steps 0", "--steps, --parallel and --shrink must be at least 1"},
		{"diff --b ref --era 2026", "--era: MCPPARITY_ERA=\"2026\": want 2025-11-25 (the default) or 2026-07-28"},
		{"matrix --era 2026", `--era "2026": want 2025-11-25 or 2026-07-28`},
		{"mutate --era 2026", "--era: MCPPARITY_ERA=\"2026\""},
	} {
		args := strings.Fields(c.args)
		code, out, errs := run(args...)
		prefix := "mcpparity " + args[0] + ": " + c.first
		if code != 2 || out != "" || !strings.HasPrefix(errs, prefix) || !strings.Contains(errs, "\nusage: mcpparity "+args[0]+" ") {
			t.Errorf("%s: exit %d, stdout %q, stderr:\n%s", c.args, code, out, errs)
		}
	}
}
