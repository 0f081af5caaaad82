package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"

	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
)

func init() {
	register("check", "run the conformance scenarios against a target", runCheck)
}

// Exit codes of check and diff.
const (
	exitParity    = 0
	exitDiverged  = 1
	exitCannotRun = 2
)

// setup is what check, diff and matrix share: the scenarios (embedded
// and of the --suite folders) that --run selects, their golden files, the
// embedded config changes, the harness command. Everything a run needs
// is read before it starts: a suite that cannot be loaded (two scenarios
// of one name, a fixture not found) or, with needGolden, a selected
// scenario without its golden file is an error. A code other than 0 is
// the exit code of a setup that failed (its error written).
func (c *call) setup(runExpr string, sf *suiteFlags, needGolden bool) (*runner.Config, []*scenario.Scenario, scenario.Golden, int) {
	var run *regexp.Regexp
	if runExpr != "" {
		var err error
		if run, err = regexp.Compile(runExpr); err != nil {
			return nil, nil, nil, c.badUsage("--run: %v", err)
		}
	}
	suites, err := sf.suites()
	if err != nil {
		return nil, nil, nil, c.badUsage("%v", err)
	}
	all, err := c.loadScenarios(sf.builtin(), suites)
	if err != nil {
		return nil, nil, nil, c.fail(exitCannotRun, err)
	}
	changes, err := scenario.EmbeddedChanges()
	if err != nil {
		return nil, nil, nil, c.fail(exitCannotRun, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, nil, c.fail(exitCannotRun, err)
	}
	scs := scenario.Select(all, run)
	if len(scs) == 0 {
		return nil, nil, nil, c.failf(exitCannotRun, "no scenario matches --run %q", runExpr)
	}
	golden := scenario.GoldenOf(all)
	if needGolden {
		if err := scenario.RequireGolden(scs, golden); err != nil {
			return nil, nil, nil, c.failf(exitCannotRun, "%v; no scenario was run", err)
		}
	}
	return &runner.Config{Harness: []string{exe}, Changes: changes}, scs, golden, 0
}

// targetConfig resolves --target, --target-file and --era into cfg: the
// flag's era, else the target file's, else the handshake era.
func targetConfig(cfg *runner.Config, spec, file, era string) ([]compare.Deviation, error) {
	var tf *target.TargetFile
	if file != "" {
		var err error
		if tf, err = target.LoadTargetFile(file); err != nil {
			return nil, err
		}
		if spec == "" {
			spec = tf.Target
		}
		if era == "" {
			era = tf.Era
		}
		cfg.Vars = tf.Env
	}
	var err error
	if cfg.Era, err = impl.ParseEra(era); err != nil {
		return nil, fmt.Errorf("--era: %w", err)
	}
	t, err := target.ParseTarget(spec)
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

// declareEraFlag declares --era, the protocol era a target speaks.
func declareEraFlag(fs *flag.FlagSet) *string {
	return fs.String("era", "", "the protocol `era` the target speaks: "+impl.EraHandshake+" (the default, or the target file's era) or "+impl.EraModern+"; given to it as "+impl.EraVar+", and the era of the golden files")
}

// eraNote names an era other than the handshake one, for a heading.
func eraNote(era string) string {
	if era == "" || era == impl.EraHandshake {
		return ""
	}
	return ", era " + era
}

// reach says, once before any scenario, whether a target that can tell
// (url:, image:) cannot be reached.
func reach(ctx context.Context, t target.Target) error {
	if p, ok := t.(target.Reacher); ok {
		return p.Reach(ctx)
	}
	return nil
}

func runCheck(ctx context.Context, c *call) int {
	fs := c.flags("[--target T | --target-file F] [--suite DIR]... [--no-builtin] [flags]", checkNotes)
	target := fs.String("target", "", "target: ref (default), cmd:<command line>, url:<base>, image:<name:tag>")
	targetFile := fs.String("target-file", "", "target file (JSON or YAML): target, env, store commands, accepted deviations")
	runExpr := fs.String("run", "", "run only the scenarios whose name (03-status, SUITE:NAME) matches this regular expression")
	junit := fs.String("junit", "", "write JUnit XML to this file (its folder is made)")
	markdownOut := fs.String("report", "", "write a Markdown summary to this file (its folder is made)")
	jsonOut := fs.String("json", "", "write the results (verdicts, differences, errors) as JSON to this file (its folder is made)")
	failFast := fs.Bool("failfast", false, "stop at the first scenario that fails (the others are skipped)")
	parallel := fs.Int("parallel", runner.DefaultParallel, "scenarios run at once")
	era := declareEraFlag(fs)
	noRerun := fs.Bool("no-rerun", false, "keep the first verdict of a scenario that sets a time scale and fails (by default it runs once more, alone, after the others)")
	sf := declareSuiteFlags(fs, true)
	if code, done := c.parse(); done {
		return code
	}
	cfg, scs, golden, code := c.setup(*runExpr, sf, true)
	if code != 0 {
		return code
	}
	devs, err := targetConfig(cfg, *target, *targetFile, *era)
	if err != nil {
		return c.fail(exitCannotRun, err)
	}
	stdout := c.stdout
	// Output files are opened before anything runs: a bad path costs
	// nothing.
	outs, err := openFiles(map[string]string{"junit": *junit, "report": *markdownOut, "json": *jsonOut})
	if err != nil {
		return c.fail(exitCannotRun, err)
	}
	defer outs.abort()
	cfg.FailFast, cfg.Parallel, cfg.NoRerun = *failFast, *parallel, *noRerun
	if err := reach(ctx, cfg.Target); err != nil {
		return c.failf(exitCannotRun, "target %s cannot be reached, no scenario was run: %v", cfg.Target.Name(), err)
	}
	fmt.Fprintf(stdout, "target %s%s: %d scenario(s)\n", cfg.Target.Name(), eraNote(cfg.Era), len(scs))
	results := runner.Check(ctx, *cfg, scs, golden, devs, stdout)
	report.WriteDetails(stdout, results)
	name := cfg.Target.Name()
	if err := outs.write(map[string]func(io.Writer) error{
		"junit":  func(w io.Writer) error { return report.WriteJUnit(w, name, results) },
		"report": func(w io.Writer) error { report.WriteMarkdown(w, name, results); return nil },
		"json":   func(w io.Writer) error { return report.WriteJSON(w, name, cfg.Era, results) },
	}); err != nil {
		return c.fail(exitCannotRun, err)
	}
	diverged, errored := report.Failed(results)
	switch {
	case errored:
		return exitCannotRun
	case diverged:
		return exitDiverged
	}
	return exitParity
}

const checkNotes = `
The embedded scenarios run, then those of each --suite folder (its
scenarios/*.json, compared with its golden/*.golden, replaying its
fixtures/ first, then the embedded fixtures); --no-builtin leaves the
embedded ones out. A scenario that sets a time scale and fails runs once
more, alone, after the others: its verdict is that run's, and the report
says it ran twice (--no-rerun keeps the first).
exit codes:
  0  parity: every scenario passed (accepted deviations included)
  1  divergence: the target behaved differently; the report names the scenario, step and field
  2  could not run: bad flags or target file, a suite that cannot be loaded (two scenarios of one
     name, a fixture not found, a scenario without its golden file), a target that does not start,
     a harness error`
