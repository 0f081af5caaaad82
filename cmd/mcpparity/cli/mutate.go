package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/mcpparity/mcpparity/mutations"
)

func init() {
	register("mutate", "apply rule mutants and check that the suite kills each", runMutate)
	register("mutate-merge", "join the JSON reports of mutate shards", runMutateMerge)
}

// runMutate is `mcpparity mutate`: the rule mutants of the catalogue (or
// operator mutants with --operators), each judged by the conformance check
// (the suite) and by impl's tests, from one schemata build.
func runMutate(ctx context.Context, c *call) int {
	stdout, stderr := c.stdout, c.stderr
	flags := c.flags("[--rule ID[,ID…]] [--changed REV] [--shard K/N] [--operators] [--target-file F] [--suite DIR]... [flags]", `
Rule mutants (mutations/rules) and operator mutants (--operators) are built
into one binary and judged by check against the mutated reference, and by
impl's tests. With --target-file, the target's own catalogue (its mutants
section) is applied to copies of its folder, each built and checked. With
--suite, check runs the suites' scenarios beside the embedded ones.
exit codes: 0 every mutant killed by the suite, 1 a survivor (or a timeout,
or a broken catalogue entry), 2 setup error, 130 interrupted`)
	var (
		rules     = flags.String("rule", "", "only the mutants of these rules or mutant ids (comma-separated), e.g. C1,P10")
		shard     = flags.String("shard", "1/1", "run the K-th of N deterministic slices, K/N")
		jsonOut   = flags.String("json", "", "write the JSON report to this file")
		workers   = flags.Int("workers", 0, fmt.Sprintf("runs in flight, a check or a test binary each (0: %d, 4 per CPU)", mutations.DefaultWorkers()))
		operators = flags.Bool("operators", false, "operator mutants generated from the Go AST instead of the rule catalogue")
		pkg       = flags.String("package", "impl", "with --operators: the package folder to mutate, relative to the module root")
		limit     = flags.Int("limit", 0, "with --operators: sample at most N mutants (0: all)")
		seed      = flags.Uint64("seed", 1, "with --operators --limit: the sampling seed")
		minScore  = flags.Float64("min-score", 0, "with --operators: exit 0 when the score (0..1) reaches this")
		root      = flags.String("root", "", "module root (default: the folder of the nearest go.mod)")
		catalogue = flags.String("catalogue", "mutations/rules", "catalogue folder, relative to the module root (with --target-file: relative to the target file's folder, in place of its mutants section's)")
		floor     = flags.Duration("timeout-floor", 0, fmt.Sprintf("per-run timeout: this floor (0: %v, %v with coverage)…", mutations.DefaultFloor, mutations.CoveredFloor))
		mult      = flags.Float64("timeout-factor", mutations.DefaultFactor, "…plus this multiple of the baseline's time")
		noFilter  = flags.Bool("no-filter", false, "run impl's whole tests for every mutant (no rule-named first run)")
		changed   = flags.String("changed", "", "only the mutants whose rule's files or scenarios changed since this git revision (git diff --name-only REV)")
		ownBuilds = flags.Bool("own-builds", false, "build each mutant alone instead of in the schemata (slower; a cross-check)")
		coverage  = flags.String("coverage", "auto", "on: a mutant the unmutated runs never reach is \"not covered\" and not run; auto: on with --operators")
		noTests   = flags.Bool("no-tests", false, "judge by the suite only (impl's tests not run)")
		confirm   = flags.Int("confirm-workers", 0, "mutants at once when kills are confirmed, after the others, each with up to two runs (0: 2 per CPU)")
		list      = flags.Bool("list", false, "list the selected mutants and exit")
		buildDir  = flags.String("build", "", "only build the schemata into this folder (mcpparity, impl.test), to run a mutant by hand: "+mutations.MutantEnv+"=<id> <folder>/mcpparity check")
		check     = flags.Bool("check", false, "only compile the selected mutants (the schemata, and each mutant built alone; no run): a quick catalogue check")
		target    = flags.String("target-file", "", "mutate a target of its own: its target file's mutants, applied to copies of its folder (docs/targets.md)")
		fuzzFor   = flags.Duration("fuzz", 0, "then fuzz each mutant the suite did not kill for this long (mcpparity fuzz against the reference); 0: no fuzz")
		fuzzEvery = flags.Bool("fuzz-every", false, "with --fuzz: fuzz every viable mutant, killed ones too (the search's time to a finding)")
		fuzzSeed  = flags.Uint64("fuzz-seed", 1, "with --fuzz: the first sequence's seed of each search")
		sf        = declareSuiteFlags(flags, false)
	)
	if code, done := c.parse(); done {
		return code
	}
	checkArgs, code := c.suiteCheckArgs(sf)
	if code != 0 {
		return code
	}
	if *fuzzFor < 0 || *fuzzEvery && *fuzzFor == 0 {
		return c.badUsage("--fuzz must be positive; --fuzz-every needs --fuzz")
	}
	fz := mutations.FuzzConfig{Duration: *fuzzFor, Every: *fuzzEvery, Seed: *fuzzSeed}
	if *target != "" {
		cat := ""
		if isFlagSet(c, "catalogue") {
			cat = *catalogue
		}
		return runTargetMutants(ctx, mutations.TargetConfig{File: *target, Workers: *workers, CheckArgs: checkArgs, Fuzz: fz, Catalogue: cat},
			*rules, *jsonOut, stdout, stderr)
	}
	sh, err := mutations.ParseShard(*shard)
	if err != nil {
		return c.badUsage("%v", err)
	}
	dir, err := moduleRoot(*root)
	if err != nil {
		fmt.Fprintln(stderr, "mcpparity mutate:", err)
		return 2
	}

	var cover bool
	switch *coverage {
	case "on", "true":
		cover = true
	case "off", "false":
	case "auto":
		cover = *operators
	default:
		return c.badUsage("--coverage %q: want on, off or auto", *coverage)
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
		fmt.Fprintln(stderr, "mcpparity mutate:", err)
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
			fmt.Fprintln(stderr, "mcpparity mutate:", err)
			return 2
		}
	}
	if *changed != "" {
		files, err := mutations.ChangedFiles(ctx, dir, *changed)
		if err != nil {
			fmt.Fprintln(stderr, "mcpparity mutate: --changed:", err)
			return 2
		}
		scenarios, err := mutations.RuleScenarios(dir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			fmt.Fprintf(stderr, "mcpparity mutate: --changed: no %s/: a rule's scenarios do not count, only its mutants' files\n", mutations.ScenariosDir)
		case err != nil:
			fmt.Fprintln(stderr, "mcpparity mutate: --changed:", err)
			return 2
		}
		all := ms
		if !*operators {
			all, _ = mutations.LoadCatalogue(os.DirFS(dir), filepath.ToSlash(*catalogue))
		}
		ms = mutations.SelectChanged(ms, all, files, scenarios, filepath.ToSlash(*catalogue))
		fmt.Fprintf(stderr, "mcpparity mutate: --changed %s: %d file(s) changed, %d mutant(s) concerned\n", *changed, len(files), len(ms))
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
		Progress: stderr, NoFilter: *noFilter, OwnBuilds: *ownBuilds, Coverage: cover, NoTests: *noTests,
		ConfirmWorkers: *confirm, CheckArgs: checkArgs, Fuzz: fz,
	})
	if err != nil {
		fmt.Fprintln(stderr, "mcpparity mutate:", err)
		return 2
	}
	if *buildDir != "" {
		res, err := r.Build(ctx, ms, *buildDir)
		if err != nil {
			fmt.Fprintln(stderr, "mcpparity mutate:", err)
			return 2
		}
		listUnhosted(stdout, ms, res, "not in this build (it needs its own: %s)")
		fmt.Fprintf(stdout, "%s: %d mutant(s); run one with %s=<id>\n", *buildDir, res.Hosted, mutations.MutantEnv)
		return 0
	}
	if *check {
		res, err := r.Check(ctx, ms)
		if err != nil {
			fmt.Fprintln(stderr, "mcpparity mutate:", err)
			return 2
		}
		listUnhosted(stdout, ms, res, "built alone: %s")
		fmt.Fprintf(stdout, "%d mutant(s) compiled (%d in the schemata, %d alone), %d failed\n", len(ms), res.Hosted, len(res.Own), len(res.Broken))
		if len(res.Broken) > 0 {
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "mcpparity mutate: %d %s mutant(s) (shard %s of %d), baseline first\n", len(ms), mode, sh, selected)
	rep, err := r.Run(ctx, ms)
	if rep == nil {
		fmt.Fprintln(stderr, "mcpparity mutate:", err)
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
func runMutateMerge(ctx context.Context, c *call) int {
	_ = ctx
	stdout, stderr := c.stdout, c.stderr
	flags := c.flags("a.json b.json … [--json out.json] [--min-score X]", `
The reports may come before, after or among the flags.`)
	jsonOut := flags.String("json", "", "write the joined JSON report to this file")
	minScore := flags.Float64("min-score", 0, "with --operators reports: exit 0 when the score (0..1) reaches this")
	files, code, done := c.parseArgs(true)
	if done {
		return code
	}
	if len(files) == 0 {
		return c.badUsage("no report given")
	}
	var reps []*mutations.Report
	for _, f := range files {
		r, err := mutations.ReadReportFile(f)
		if err != nil {
			fmt.Fprintln(stderr, "mcpparity mutate-merge:", err)
			return 2
		}
		reps = append(reps, r)
	}
	rep, err := mutations.Merge(reps...)
	if rep == nil {
		fmt.Fprintln(stderr, "mcpparity mutate-merge:", err)
		return 2
	}
	code = finishReport(rep, *jsonOut, *minScore, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "mcpparity mutate-merge:", err)
		return 2
	}
	return code
}

// listUnhosted prints the mutants the schemata do not hold: those that do
// not compile, and those built alone (own: a format of the reason).
func listUnhosted(w io.Writer, ms []mutations.Mutant, res *mutations.CheckResult, own string) {
	for _, m := range ms {
		if msg, ok := res.Broken[m.ID]; ok {
			fmt.Fprintf(w, "%s (%s:%d) does not compile:\n%s\n", m.ID, m.File, m.Line, msg)
		} else if why, ok := res.Own[m.ID]; ok {
			fmt.Fprintf(w, "%s (%s:%d) "+own+"\n", m.ID, m.File, m.Line, why)
		}
	}
}

// runTargetMutants is mutate --target-file: a target's own mutants.
func runTargetMutants(ctx context.Context, cfg mutations.TargetConfig, rules, jsonOut string, stdout, stderr io.Writer) int {
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "mcpparity mutate:", err)
		return 2
	}
	var ids []string
	for _, id := range strings.Split(rules, ",") {
		if id = strings.TrimSpace(id); id != "" {
			ids = append(ids, id)
		}
	}
	cfg.Harness, cfg.Progress, cfg.IDs = exe, stderr, ids
	rep, err := mutations.RunTarget(ctx, cfg)
	if rep == nil {
		fmt.Fprintln(stderr, "mcpparity mutate:", err)
		return 2
	}
	return finishReport(rep, jsonOut, 0, stdout, stderr)
}

func finishReport(rep *mutations.Report, jsonOut string, minScore float64, stdout, stderr io.Writer) int {
	if err := rep.WriteTable(stdout); err != nil {
		fmt.Fprintln(stderr, "mcpparity mutate:", err)
		return 2
	}
	if jsonOut != "" {
		if err := rep.WriteFile(jsonOut); err != nil {
			fmt.Fprintln(stderr, "mcpparity mutate:", err)
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
