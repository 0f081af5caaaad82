package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcpparity/mcpparity/internal/record"
	"github.com/mcpparity/mcpparity/recorder"
)

func init() {
	register("record", "record the fixtures from the live servers (or proxy any server with --upstream/--upstream-cmd)", runRecord)
}

// recordFlags are the flags of `mcpparity record` (the fixtures).
type recordFlags struct {
	fs                *flag.FlagSet
	out, golden       *string
	check, everything *bool
}

func newRecordFlags(w io.Writer) *recordFlags {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(w)
	return &recordFlags{
		fs:         fs,
		out:        fs.String("out", "fixtures/recordings", "folder of the recordings"),
		check:      fs.Bool("check", false, "record into a temporary folder and fail with a diff when the stored fixtures differ"),
		everything: fs.Bool("everything", false, "also record server-everything (npx) into everything/stdio.json and everything/http.json"),
		golden:     fs.String("golden", "golden", "golden folder rewritten after recording (empty: leave golden files alone)"),
	}
}

// recordUsage shows both forms of the command and all their flags.
func recordUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: mcpparity record [--check] [--everything] [--out DIR] [--golden DIR]")
	fmt.Fprintln(w, "  re-record the fixtures through the reference pool, then refresh the golden files")
	newRecordFlags(w).fs.PrintDefaults()
	fmt.Fprintln(w)
	recorder.PrintProxyUsage(w)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Flags take one or two dashes (-upstream, --upstream), a value after a space or an '='.")
}

// flagName returns the name of a flag argument ("-x", "--x", "--x=v"), or
// "" for anything else.
func flagName(arg string) string {
	if len(arg) < 2 || arg[0] != '-' || arg == "--" {
		return ""
	}
	name := strings.TrimPrefix(strings.TrimPrefix(arg, "-"), "-")
	name, _, _ = strings.Cut(name, "=")
	return name
}

func runRecord(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	proxy := false
	for _, a := range args {
		if a == "--" {
			break
		}
		switch flagName(a) {
		case "h", "help":
			recordUsage(stdout)
			return 0
		case "upstream", "upstream-cmd":
			proxy = true
		}
	}
	if proxy {
		return runRecordProxy(ctx, args, stdout, stderr)
	}
	rf := newRecordFlags(io.Discard)
	if err := rf.fs.Parse(args); err != nil {
		fmt.Fprintf(stderr, "record: %v (see mcpparity record --help)\n", err)
		return 2
	}
	fs, out, check, everything, golden := rf.fs, rf.out, rf.check, rf.everything, rf.golden
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "record: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "record: %v\n", err)
		return 2
	}
	sets := append([]record.Set{}, record.SDKSets...)
	if *everything {
		sets = append(sets, record.EverythingSets...)
	}
	dir := *out
	if *check {
		tmp, err := os.MkdirTemp("", "mcpparity-record-")
		if err != nil {
			fmt.Fprintf(stderr, "record: %v\n", err)
			return 2
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	for _, s := range sets {
		path := filepath.Join(dir, s.File)
		if err := record.Record(ctx, s, path, []string{exe}); err != nil {
			fmt.Fprintf(stderr, "record %s: %v\n", s.File, err)
			if errors.Is(err, record.ErrNoNpx) {
				return 2
			}
			return 1
		}
		fmt.Fprintf(stdout, "recorded %s\n", path)
	}
	if *check {
		return checkDrift(sets, dir, *out, stdout, stderr)
	}
	if *golden != "" {
		return refreshGolden(ctx, *golden, stdout, stderr)
	}
	return 0
}

// checkDrift compares fresh recordings with the stored ones.
func checkDrift(sets []record.Set, fresh, stored string, stdout, stderr io.Writer) int {
	drift := false
	for _, s := range sets {
		a, err := os.ReadFile(filepath.Join(stored, s.File))
		if err != nil {
			fmt.Fprintf(stderr, "record --check: stored fixture: %v\n", err)
			return 2
		}
		b, err := os.ReadFile(filepath.Join(fresh, s.File))
		if err != nil {
			fmt.Fprintf(stderr, "record --check: %v\n", err)
			return 2
		}
		if d := record.Compare(a, b); d != "" {
			drift = true
			fmt.Fprintf(stdout, "drift in %s:\n%s", s.File, d)
		}
	}
	if drift {
		fmt.Fprintln(stdout, "record --check: the stored fixtures differ from a fresh recording (run mcpparity record to accept)")
		return 1
	}
	fmt.Fprintln(stdout, "record --check: the stored fixtures match a fresh recording")
	return 0
}

// refreshGolden rewrites the golden files from the new recordings. The
// recordings are embedded at build time, so this runs the suite from the
// source tree (`go test ./internal/suite -update`), in the module root.
func refreshGolden(ctx context.Context, dir string, stdout, stderr io.Writer) int {
	root := filepath.Dir(filepath.Clean(dir))
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		fmt.Fprintf(stderr, "record: golden files not refreshed: %s is not in a source tree (run go test ./internal/suite -run TestScenarios -update there)\n", dir)
		return 1
	}
	cmd := exec.CommandContext(ctx, "go", "test", "./internal/suite", "-run", "TestScenarios", "-count=1", "-update")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if err := cmd.Run(); err != nil {
		fmt.Fprintf(stderr, "record: refreshing golden files: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "refreshed %s (read the diff: git diff %s)\n", dir, dir)
	return 0
}
