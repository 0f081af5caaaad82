package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/mutations"
	"github.com/mcpparity/mcpparity/mutations/catalogue"
	"github.com/mcpparity/mcpparity/mutations/schemata"
)

func init() {
	register("mutate", "apply rule mutants and check that the suite kills each", runMutate)
	register("mutate-merge", "join the JSON reports of mutate shards", runMutateMerge)
}

// runFlags are the flags mutate and mutate-target share: the mutants of
// which rules, how many run at once, their timeouts, the JSON report, the
// fuzz phase and the suites check runs.
type runFlags struct {
	rules, jsonOut   *string
	era              *string
	workers, confirm *int
	floor, fuzzFor   *time.Duration
	mult             *float64
	fuzzEvery        *bool
	fuzzSeed         *uint64
	suite            *suiteFlags
}

// declareRunFlags declares the flags of runFlags; floorDefault says what
// --timeout-floor 0 means.
func declareRunFlags(flags *flag.FlagSet, floorDefault string) *runFlags {
	return &runFlags{
		rules:     flags.String("rule", "", "only the mutants of these rules or mutant ids (comma-separated), e.g. C1,P10"),
		jsonOut:   flags.String("json", "", "write the JSON report to this file"),
		workers:   flags.Int("workers", 0, fmt.Sprintf("runs in flight, a check or a test binary each (0: %d, 4 per CPU)", mutations.DefaultWorkers())),
		confirm:   flags.Int("confirm-workers", 0, "mutants at once when kills are confirmed, after the others, each with up to two runs (0: 2 per CPU)"),
		floor:     flags.Duration("timeout-floor", 0, "per-run timeout: this floor (0: "+floorDefault+")…"),
		mult:      flags.Float64("timeout-factor", mutations.DefaultFactor, "…plus this multiple of the baseline's time"),
		fuzzFor:   flags.Duration("fuzz", 0, "then fuzz each mutant the suite did not kill for this long (mcpparity fuzz against the reference); 0: no fuzz"),
		fuzzEvery: flags.Bool("fuzz-every", false, "with --fuzz: fuzz every viable mutant, killed ones too (the search's time to a finding)"),
		fuzzSeed:  flags.Uint64("fuzz-seed", 1, "with --fuzz: the first sequence's seed of each search"),
		suite:     declareSuiteFlags(flags, false),
		era:       declareEraFlag(flags),
	}
}

// setup reads the suites and the fuzz flags once parsed: check's
// arguments and the fuzz phase, or an exit code (not 0).
func (f *runFlags) setup(c *call) ([]string, mutations.FuzzConfig, int) {
	checkArgs, code := c.suiteCheckArgs(f.suite)
	if code != 0 {
		return nil, mutations.FuzzConfig{}, code
	}
	if *f.era != "" {
		if _, err := impl.ParseEra(*f.era); err != nil {
			return nil, mutations.FuzzConfig{}, c.badUsage("--era: %v", err)
		}
		if checkArgs == nil {
			checkArgs = []string{"check"}
		}
		checkArgs = append(checkArgs, "--era", *f.era)
	}
	if *f.fuzzFor < 0 || *f.fuzzEvery && *f.fuzzFor == 0 {
		return nil, mutations.FuzzConfig{}, c.badUsage("--fuzz must be positive; --fuzz-every needs --fuzz")
	}
	return checkArgs, mutations.FuzzConfig{Duration: *f.fuzzFor, Every: *f.fuzzEvery, Seed: *f.fuzzSeed, Era: *f.era}, 0
}

// mutateFlags are the flags of `mcpparity mutate`.
type mutateFlags struct {
	*runFlags
	shard, pkg, root, catalogue, changed, coverage, buildDir *string
	limit                                                    *int
	operators, noFilter, ownBuilds, noTests, list            *bool
	compileOnly                                              *bool
	seed                                                     *uint64
	minScore                                                 *float64
}

func declareMutateFlags(flags *flag.FlagSet) *mutateFlags {
	return &mutateFlags{
		runFlags:    declareRunFlags(flags, fmt.Sprintf("%v, %v with coverage", mutations.DefaultFloor, mutations.CoveredFloor)),
		shard:       flags.String("shard", "1/1", "run the K-th of N deterministic slices, K/N"),
		operators:   flags.Bool("operators", false, "operator mutants generated from the Go AST instead of the rule catalogue"),
		pkg:         flags.String("package", "impl", "with --operators: the package folder to mutate, relative to the module root"),
		limit:       flags.Int("limit", 0, "with --operators: sample at most N mutants (0: all)"),
		seed:        flags.Uint64("seed", 1, "with --operators --limit: the sampling seed"),
		minScore:    flags.Float64("min-score", 0, "with --operators: exit 0 when the score (0..1) reaches this"),
		root:        flags.String("root", "", "module root (default: the folder of the nearest go.mod)"),
		catalogue:   flags.String("catalogue", "mutations/rules", "catalogue folder, relative to the module root"),
		noFilter:    flags.Bool("no-filter", false, "run impl's whole tests for every mutant (no rule-named first run)"),
		changed:     flags.String("changed", "", "only the mutants whose rule's files or scenarios changed since this git revision (git diff --name-only REV)"),
		ownBuilds:   flags.Bool("own-builds", false, "build each mutant alone instead of in the schemata (slower; a cross-check)"),
		coverage:    flags.String("coverage", "auto", "on: a mutant the unmutated runs never reach is \"not covered\" and not run; auto: on with --operators"),
		noTests:     flags.Bool("no-tests", false, "judge by the suite only (impl's tests not run)"),
		list:        flags.Bool("list", false, "list the selected mutants and exit"),
		buildDir:    flags.String("build", "", "only build the schemata into this folder (mcpparity, impl.test), to run a mutant by hand: "+schemata.MutantEnv+"=<id> <folder>/mcpparity check"),
		compileOnly: flags.Bool("compile-only", false, "only compile the selected mutants (the schemata, and each mutant built alone; no run): a quick catalogue check"),
	}
}

// mutateOldSpelling is the subcommand and arguments a command line of
// mutate as once spelled runs now, said in a notice: --target-file runs
// mutate-target, --check is --compile-only.
func (c *call) mutateOldSpelling() (string, []string) {
	if given := givenFlag(c.args, "target-file"); given != "" {
		c.notice("mutate "+given, "mutate-target "+given)
		return "mutate-target", c.args
	}
	if given := givenFlag(c.args, "check"); given != "" {
		c.notice("mutate "+given, "mutate "+renamed(given, "check", "compile-only"))
		return "mutate", renameFlag(c.args, "check", "compile-only")
	}
	return "mutate", c.args
}

// runMutate is `mcpparity mutate`: the rule mutants of the catalogue (or
// operator mutants with --operators), each judged by the conformance check
// (the suite) and by impl's tests, from one schemata build.
func runMutate(ctx context.Context, c *call) int {
	name, args := c.mutateOldSpelling()
	if name != "mutate" {
		return c.runAs(ctx, name, args)
	}
	c.args = args
	flags := c.flags("[--rule ID[,ID…]] [--changed REV] [--shard K/N] [--operators] [--compile-only] [--suite DIR]... [flags]", `
Rule mutants (mutations/rules) and operator mutants (--operators) are built
into one binary and judged by check against the mutated reference, and by
impl's tests. With --suite, check runs the suites' scenarios beside the
embedded ones. A target's own mutants: mcpparity mutate-target.
exit codes: 0 every mutant killed by the suite, 1 a survivor (or a timeout,
or a broken catalogue entry), 2 setup error, 130 interrupted`)
	f := declareMutateFlags(flags)
	if code, done := c.parse(); done {
		return code
	}
	cfg, sh, code := f.config(c)
	if code != 0 {
		return code
	}
	return c.runImplMutants(ctx, f, cfg, sh)
}

// config reads mutate's flags once parsed: the runner's configuration and
// the shard, or an exit code (not 0).
func (f *mutateFlags) config(c *call) (mutations.Config, catalogue.Shard, int) {
	checkArgs, fz, code := f.setup(c)
	if code != 0 {
		return mutations.Config{}, catalogue.Shard{}, code
	}
	sh, err := catalogue.ParseShard(*f.shard)
	if err != nil {
		return mutations.Config{}, sh, c.badUsage("%v", err)
	}
	cover, err := coverageOn(*f.coverage, *f.operators)
	if err != nil {
		return mutations.Config{}, sh, c.badUsage("%v", err)
	}
	dir, err := moduleRoot(*f.root)
	if err != nil {
		return mutations.Config{}, sh, c.fail(2, err)
	}
	return mutations.Config{
		Root: dir, Workers: *f.workers, Floor: *f.floor, Multiplier: *f.mult,
		Progress: c.stderr, NoFilter: *f.noFilter, OwnBuilds: *f.ownBuilds, Coverage: cover, NoTests: *f.noTests,
		ConfirmWorkers: *f.confirm, CheckArgs: checkArgs, Fuzz: fz,
	}, sh, 0
}

// runImplMutants selects impl's mutants and lists, builds, compiles or
// runs those of the shard.
func (c *call) runImplMutants(ctx context.Context, f *mutateFlags, cfg mutations.Config, sh catalogue.Shard) int {
	ms, err := c.selectMutants(ctx, cfg.Root, f)
	if err != nil {
		return c.fail(2, err)
	}
	mutations.Number(ms)
	selected := len(ms)
	ms = sh.Split(ms)
	if *f.list {
		return listMutants(c.stdout, ms, sh, selected)
	}
	r, err := mutations.NewRunner(cfg)
	switch {
	case err != nil:
		return c.fail(2, err)
	case *f.buildDir != "":
		return c.buildMutants(ctx, r, ms, *f.buildDir)
	case *f.compileOnly:
		return c.compileMutants(ctx, r, ms)
	}
	mode := modeOf(*f.operators)
	c.logf("%d %s mutant(s) (shard %s of %d), baseline first", len(ms), mode, sh, selected)
	rep, err := r.Run(ctx, ms)
	if rep == nil {
		return c.fail(2, err)
	}
	rep.Mode, rep.Selected = mode, selected
	if sh.N > 1 {
		rep.Shards = []catalogue.Shard{sh}
	}
	return c.finishReport(rep, *f.jsonOut, *f.minScore)
}

func modeOf(operators bool) string {
	if operators {
		return mutations.ModeOperators
	}
	return mutations.ModeRules
}

// coverageOn reads --coverage.
func coverageOn(flag string, operators bool) (bool, error) {
	switch flag {
	case "on", "true":
		return true, nil
	case "off", "false":
		return false, nil
	case "auto":
		return operators, nil
	}
	return false, fmt.Errorf("--coverage %q: want on, off or auto", flag)
}

func listMutants(w io.Writer, ms []catalogue.Mutant, sh catalogue.Shard, selected int) int {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s:%d\t%s\n", m.Rule, m.ID, m.File, m.Line, m.Why)
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "%d mutant(s) (shard %s of %d selected)\n", len(ms), sh, selected)
	return 0
}

// buildMutants is mutate --build: the schemata built into dir, to run by hand.
func (c *call) buildMutants(ctx context.Context, r *mutations.Runner, ms []catalogue.Mutant, dir string) int {
	res, err := r.Build(ctx, ms, dir)
	if err != nil {
		return c.fail(2, err)
	}
	listUnhosted(c.stdout, ms, res, "not in this build (it needs its own: %s)")
	fmt.Fprintf(c.stdout, "%s: %d mutant(s); run one with %s=<id>\n", dir, res.Hosted, schemata.MutantEnv)
	return 0
}

// compileMutants is mutate --compile-only: every selected mutant compiled, none run.
func (c *call) compileMutants(ctx context.Context, r *mutations.Runner, ms []catalogue.Mutant) int {
	res, err := r.Compile(ctx, ms)
	if err != nil {
		return c.fail(2, err)
	}
	listUnhosted(c.stdout, ms, res, "built alone: %s")
	fmt.Fprintf(c.stdout, "%d mutant(s) compiled (%d in the schemata, %d alone), %d failed\n", len(ms), res.Hosted, len(res.Own), len(res.Broken))
	if len(res.Broken) > 0 {
		return 1
	}
	return 0
}

// runMutateMerge is `mcpparity mutate-merge a.json b.json … [--json out]`:
// shard reports joined, printed and judged as if one run.
func runMutateMerge(ctx context.Context, c *call) int {
	_ = ctx
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
			return c.fail(2, err)
		}
		reps = append(reps, r)
	}
	rep, err := mutations.Merge(reps...)
	if rep == nil {
		return c.fail(2, err)
	}
	code = c.finishReport(rep, *jsonOut, *minScore)
	if err != nil {
		return c.fail(2, err)
	}
	return code
}

// listUnhosted prints the mutants the schemata do not hold: those that do
// not compile, and those built alone (own: a format of the reason).
func listUnhosted(w io.Writer, ms []catalogue.Mutant, res *mutations.CompileResult, own string) {
	for _, m := range ms {
		if msg, ok := res.Broken[m.ID]; ok {
			fmt.Fprintf(w, "%s (%s:%d) does not compile:\n%s\n", m.ID, m.File, m.Line, msg)
		} else if why, ok := res.Own[m.ID]; ok {
			fmt.Fprintf(w, "%s (%s:%d) "+own+"\n", m.ID, m.File, m.Line, why)
		}
	}
}

// finishReport prints the report's table, writes its JSON, and returns
// its exit code.
func (c *call) finishReport(rep *mutations.Report, jsonOut string, minScore float64) int {
	if err := rep.WriteTable(c.stdout); err != nil {
		return c.fail(2, err)
	}
	if jsonOut != "" {
		if err := rep.WriteFile(jsonOut); err != nil {
			return c.fail(2, err)
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
