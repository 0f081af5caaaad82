package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/mcpparity/mcpparity/internal/suite"
)

func init() {
	register("check", "run the conformance scenarios against a target", runCheck)
	register("diff", "run the scenarios against two targets and show where they differ", runDiff)
	register("spawn", "run a command as a child and wait for it, as a launcher does (stdio scenarios)", runSpawn)
}

// Exit codes of check and diff.
const (
	exitParity    = 0
	exitDiverged  = 1
	exitCannotRun = 2
)

// setup is what check and diff share: the embedded scenarios and
// mutations, the harness command, the run filter.
func setup(runExpr string) (*suite.Config, []*suite.Scenario, *regexp.Regexp, error) {
	scs, err := suite.EmbeddedScenarios()
	if err != nil {
		return nil, nil, nil, err
	}
	muts, err := suite.EmbeddedChanges()
	if err != nil {
		return nil, nil, nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, nil, err
	}
	var run *regexp.Regexp
	if runExpr != "" {
		if run, err = regexp.Compile(runExpr); err != nil {
			return nil, nil, nil, fmt.Errorf("--run: %w", err)
		}
	}
	return &suite.Config{Harness: []string{exe}, Changes: muts}, scs, run, nil
}

// targetConfig resolves --target and --target-file into cfg.
func targetConfig(cfg *suite.Config, spec, file string) ([]suite.Deviation, error) {
	var tf *suite.TargetFile
	if file != "" {
		var err error
		if tf, err = suite.LoadTargetFile(file); err != nil {
			return nil, err
		}
		if spec == "" {
			spec = tf.Target
		}
		cfg.Vars = tf.Env
	}
	t, err := suite.ParseTarget(spec)
	if err != nil {
		return nil, err
	}
	cfg.Target = t
	if cfg.Store, err = tf.StoreFor(); err != nil {
		return nil, err
	}
	if tf != nil {
		return tf.Deviations, nil
	}
	return nil, nil
}

// probe says, once before any scenario, whether a target that can tell
// (url:, image:) cannot be reached.
func probe(ctx context.Context, t suite.Target) error {
	if p, ok := t.(suite.Prober); ok {
		return p.Probe(ctx)
	}
	return nil
}

func runCheck(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("check", "[--target T | --target-file F] [flags]", stdout, stderr, checkNotes)
	target := fs.String("target", "", "target: ref (default), cmd:<command line>, url:<base>, image:<name:tag>")
	targetFile := fs.String("target-file", "", "target file (JSON or YAML): target, env, store commands, accepted deviations")
	runExpr := fs.String("run", "", "run only the scenarios matching this regular expression")
	junit := fs.String("junit", "", "write JUnit XML to this file (its folder is made)")
	report := fs.String("report", "", "write a Markdown summary to this file (its folder is made)")
	jsonOut := fs.String("json", "", "write the results (verdicts, differences, errors) as JSON to this file (its folder is made)")
	failFast := fs.Bool("failfast", false, "stop at the first scenario that fails (the others are skipped)")
	parallel := fs.Int("parallel", suite.DefaultParallel, "scenarios run at once")
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	cfg, scs, run, err := setup(*runExpr)
	if err != nil {
		fmt.Fprintf(stderr, "check: %v\n", err)
		return exitCannotRun
	}
	devs, err := targetConfig(cfg, *target, *targetFile)
	if err != nil {
		fmt.Fprintf(stderr, "check: %v\n", err)
		return exitCannotRun
	}
	scs = suite.Select(scs, run)
	if len(scs) == 0 {
		fmt.Fprintf(stderr, "check: no scenario matches --run %q\n", *runExpr)
		return exitCannotRun
	}
	// Output files are opened before anything runs: a bad path costs
	// nothing.
	outs, err := openFiles(map[string]string{"junit": *junit, "report": *report, "json": *jsonOut})
	if err != nil {
		fmt.Fprintf(stderr, "check: %v\n", err)
		return exitCannotRun
	}
	defer outs.abort()
	cfg.FailFast, cfg.Parallel = *failFast, *parallel
	if err := probe(ctx, cfg.Target); err != nil {
		fmt.Fprintf(stderr, "check: target %s cannot be reached, no scenario was run: %v\n", cfg.Target.Name(), err)
		return exitCannotRun
	}
	fmt.Fprintf(stdout, "target %s: %d scenario(s)\n", cfg.Target.Name(), len(scs))
	results := suite.Check(ctx, *cfg, scs, suite.EmbeddedGolden, devs, stdout)
	suite.WriteDetails(stdout, results)
	name := cfg.Target.Name()
	if err := outs.write(map[string]func(io.Writer) error{
		"junit":  func(w io.Writer) error { return suite.WriteJUnit(w, name, results) },
		"report": func(w io.Writer) error { suite.WriteMarkdown(w, name, results); return nil },
		"json":   func(w io.Writer) error { return suite.WriteJSON(w, name, results) },
	}); err != nil {
		fmt.Fprintf(stderr, "check: %v\n", err)
		return exitCannotRun
	}
	diverged, errored := suite.Failed(results)
	switch {
	case errored:
		return exitCannotRun
	case diverged:
		return exitDiverged
	}
	return exitParity
}

const checkNotes = `
exit codes:
  0  parity: every scenario passed (accepted deviations included)
  1  divergence: the target behaved differently; the report names the scenario, step and field
  2  could not run: bad flags or target file, a target that does not start, a harness error`

func runDiff(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("diff", "--a T1 --b T2 [--run RE]", stdout, stderr, `
exit codes: 0 the same observations, 1 a difference, 2 could not run`)
	a := fs.String("a", "ref", "first target")
	b := fs.String("b", "", "second target")
	runExpr := fs.String("run", "", "run only the scenarios matching this regular expression")
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	if *b == "" {
		fmt.Fprintln(stderr, "diff: --b is required")
		return exitCannotRun
	}
	cfg, scs, run, err := setup(*runExpr)
	if err != nil {
		fmt.Fprintf(stderr, "diff: %v\n", err)
		return exitCannotRun
	}
	ta, err := suite.ParseTarget(*a)
	if err != nil {
		fmt.Fprintf(stderr, "diff: --a: %v\n", err)
		return exitCannotRun
	}
	tb, err := suite.ParseTarget(*b)
	if err != nil {
		fmt.Fprintf(stderr, "diff: --b: %v\n", err)
		return exitCannotRun
	}
	code := exitParity
	for _, s := range scs {
		if run != nil && !run.MatchString(s.Name) {
			continue
		}
		diffs, err := suite.DiffTargets(ctx, *cfg, s, ta, tb)
		if err != nil {
			fmt.Fprintf(stdout, "error    %s: %v\n", s.Name, err)
			code = exitCannotRun
			continue
		}
		if len(diffs) == 0 {
			fmt.Fprintf(stdout, "same     %s\n", s.Name)
			continue
		}
		fmt.Fprintf(stdout, "differ   %s: %d difference(s)\n", s.Name, len(diffs))
		suite.WriteSideBySide(stdout, ta.Name(), tb.Name(), diffs)
		if code == exitParity {
			code = exitDiverged
		}
	}
	return code
}

func runSpawn(_ context.Context, args []string, _, stderr io.Writer) int {
	return suite.SpawnMain(args, stderr)
}
