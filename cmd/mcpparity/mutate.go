package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpparity/mcpparity/mutations"
)

// runMutate is `mcpparity mutate`: the rule mutants of the catalogue (or
// operator mutants with --operators) against impl's tests.
func runMutate(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("mutate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		rules     = fs.String("rule", "", "only the mutants of these rules or mutant ids (comma-separated), e.g. C1,P10")
		shard     = fs.String("shard", "1/1", "run the K-th of N deterministic slices, K/N")
		jsonOut   = fs.String("json", "", "write the JSON report to this file")
		workers   = fs.Int("workers", 0, "mutants in flight (0: number of CPUs)")
		operators = fs.Bool("operators", false, "operator mutants generated from the Go AST instead of the rule catalogue")
		pkg       = fs.String("package", "impl", "with --operators: the package folder to mutate, relative to the module root")
		limit     = fs.Int("limit", 0, "with --operators: sample at most N mutants (0: all)")
		seed      = fs.Uint64("seed", 1, "with --operators --limit: the sampling seed")
		minScore  = fs.Float64("min-score", 0, "with --operators: exit 0 when the score (0..1) reaches this")
		root      = fs.String("root", "", "module root (default: the folder of the nearest go.mod)")
		catalogue = fs.String("catalogue", "mutations/rules", "catalogue folder, relative to the module root")
		execMode  = fs.String("exec", mutations.ExecBinary, "binary (go test -c once per mutant, then run) or gotest (go test directly)")
		floor     = fs.Duration("timeout-floor", 30*time.Second, "per-mutant timeout: this floor…")
		mult      = fs.Float64("timeout-factor", 3, "…plus this multiple of the baseline's time")
		noFilter  = fs.Bool("no-filter", false, "run the whole package for every mutant (no rule-named first run)")
		list      = fs.Bool("list", false, "list the selected mutants and exit")
		check     = fs.Bool("check", false, "only compile each selected mutant (go build -overlay, no tests): a quick catalogue check")
	)
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mcpparity mutate [--rule ID[,ID…]] [--shard K/N] [--json FILE] [--workers N] [--operators [--limit N --seed S]]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "mutate: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	sh, err := mutations.ParseShard(*shard)
	if err != nil {
		fmt.Fprintln(stderr, "mutate:", err)
		return 2
	}
	dir, err := moduleRoot(*root)
	if err != nil {
		fmt.Fprintln(stderr, "mutate:", err)
		return 2
	}

	mode := mutations.ModeRules
	var ms []mutations.Mutant
	if *operators {
		mode = mutations.ModeOperators
		ms, err = mutations.OperatorMutants(dir, filepath.ToSlash(filepath.Clean(*pkg)))
		if err == nil {
			ms = mutations.Sample(ms, *limit, *seed)
		}
	} else {
		ms, err = mutations.LoadCatalogue(os.DirFS(dir), filepath.ToSlash(*catalogue))
		if err == nil {
			// The whole catalogue is checked, not only the selection: a
			// stale mutant is an error before anything runs.
			err = mutations.Resolve(dir, ms)
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "mutate:", err)
		return 2
	}
	if *rules != "" {
		var ids []string
		for _, id := range strings.Split(*rules, ",") {
			if id = strings.TrimSpace(id); id != "" {
				ids = append(ids, id)
			}
		}
		if ms, err = mutations.Select(ms, ids); err != nil {
			fmt.Fprintln(stderr, "mutate:", err)
			return 2
		}
	}
	mutations.Number(ms)
	selected := len(ms)
	ms = sh.Split(ms)

	if *list {
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		for _, m := range ms {
			fmt.Fprintf(tw, "%s\t%s\t%s:%d\t%s\n", m.Rule, m.ID, m.File, m.Line, m.Why)
		}
		_ = tw.Flush()
		fmt.Fprintf(stdout, "%d mutant(s) (shard %s of %d selected)\n", len(ms), sh, selected)
		return 0
	}

	r, err := mutations.NewRunner(mutations.Config{
		Root: dir, Workers: *workers, Floor: *floor, Multiplier: *mult,
		Exec: *execMode, Progress: stderr, NoFilter: *noFilter,
	})
	if err != nil {
		fmt.Fprintln(stderr, "mutate:", err)
		return 2
	}
	if *check {
		failed, err := r.Check(ctx, ms)
		if err != nil {
			fmt.Fprintln(stderr, "mutate:", err)
			return 2
		}
		for _, m := range ms {
			if msg, ok := failed[m.ID]; ok {
				fmt.Fprintf(stdout, "%s (%s:%d) does not compile:\n%s\n", m.ID, m.File, m.Line, msg)
			}
		}
		fmt.Fprintf(stdout, "%d mutant(s) compiled, %d failed\n", len(ms), len(failed))
		if len(failed) > 0 {
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "mutate: %d %s mutant(s) (shard %s of %d), baseline first\n", len(ms), mode, sh, selected)
	rep, err := r.Run(ctx, ms)
	if rep == nil {
		fmt.Fprintln(stderr, "mutate:", err)
		return 2
	}
	rep.Mode = mode
	rep.Selected = selected
	if sh.N > 1 {
		rep.Shards = []mutations.Shard{sh}
	}
	return finishReport(rep, *jsonOut, *minScore, stdout, stderr)
}

// runMutateMerge is `mcpparity mutate-merge a.json b.json … [--json out]`:
// shard reports joined, printed and judged as if one run.
func runMutateMerge(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	_ = ctx
	var files []string
	var jsonOut string
	minScore := 0.0
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, val, hasVal := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case !strings.HasPrefix(a, "-"):
			files = append(files, a)
		case name == "json" || name == "min-score":
			if !hasVal {
				if i+1 >= len(args) {
					fmt.Fprintf(stderr, "mutate-merge: %s needs a value\n", a)
					return 2
				}
				i++
				val = args[i]
			}
			if name == "json" {
				jsonOut = val
			} else if _, err := fmt.Sscan(val, &minScore); err != nil {
				fmt.Fprintf(stderr, "mutate-merge: --min-score %q: %v\n", val, err)
				return 2
			}
		default:
			fmt.Fprintln(stderr, "usage: mcpparity mutate-merge a.json b.json … [--json out.json] [--min-score X]")
			return 2
		}
	}
	if len(files) == 0 {
		fmt.Fprintln(stderr, "usage: mcpparity mutate-merge a.json b.json … [--json out.json] [--min-score X]")
		return 2
	}
	var reps []*mutations.Report
	for _, f := range files {
		r, err := mutations.ReadReportFile(f)
		if err != nil {
			fmt.Fprintln(stderr, "mutate-merge:", err)
			return 2
		}
		reps = append(reps, r)
	}
	rep, err := mutations.Merge(reps...)
	if rep == nil {
		fmt.Fprintln(stderr, "mutate-merge:", err)
		return 2
	}
	code := finishReport(rep, jsonOut, minScore, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "mutate-merge:", err)
		return 2
	}
	return code
}

func finishReport(rep *mutations.Report, jsonOut string, minScore float64, stdout, stderr io.Writer) int {
	if err := rep.WriteTable(stdout); err != nil {
		fmt.Fprintln(stderr, "mutate:", err)
		return 2
	}
	if jsonOut != "" {
		if err := rep.WriteFile(jsonOut); err != nil {
			fmt.Fprintln(stderr, "mutate:", err)
			return 2
		}
	}
	return rep.ExitCode(minScore)
}

// moduleRoot returns dir, or the folder of the nearest go.mod above the
// working directory.
func moduleRoot(dir string) (string, error) {
	if dir != "" {
		return filepath.Abs(dir)
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for d := wd; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d, nil
		}
		if filepath.Dir(d) == d {
			return "", errors.New("no go.mod above " + wd + " (use --root)")
		}
	}
}
