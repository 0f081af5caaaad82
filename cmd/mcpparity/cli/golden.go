package cli

import (
	"context"
	"fmt"
	"os"
	"regexp"

	"github.com/mcpparity/mcpparity/internal/suite"
)

func init() {
	register("golden", "write a suite's golden files from the reference", runGolden)
}

const goldenNotes = `
Golden files come from the reference only (the embedded Go pool, in
process): golden runs it on each scenario of the --suite folders that
--run selects and writes DIR/golden/SCENARIO.golden, printing the diff of
every file it changes (read each one). A scenario whose sameAs names
another is compared with that one's golden file instead. The embedded
scenarios' golden files are the binary's: they are never written.
exit codes: 0 written or unchanged, 1 the reference does not do what a
scenario declares (an expectation, its sameAs: that file is not written),
2 could not run (bad flags, a suite that cannot be loaded, a scenario the
reference cannot run)`

func runGolden(ctx context.Context, c *call) int {
	fs := c.flags("--suite DIR [--suite DIR]... [--run RE]", goldenNotes)
	sf := declareSuiteFlags(fs, false)
	runExpr := fs.String("run", "", "only the scenarios whose name (SUITE:NAME) matches this regular expression")
	target := fs.String("target", "ref", "refused unless ref: golden files come from the reference only")
	targetFile := fs.String("target-file", "", "refused: golden files come from the reference only")
	if code, done := c.parse(); done {
		return code
	}
	if *target != "ref" || *targetFile != "" {
		what := *target
		if *targetFile != "" {
			what = *targetFile
		}
		return c.failf(exitCannotRun, "golden files come from the reference only: %s refused (check compares another target with them)", what)
	}
	if len(sf.dirs) == 0 {
		return c.badUsage("--suite is required: golden writes a suite's golden files")
	}
	var run *regexp.Regexp
	if *runExpr != "" {
		var err error
		if run, err = regexp.Compile(*runExpr); err != nil {
			return c.badUsage("--run: %v", err)
		}
	}
	cfg, scs, code := c.goldenSetup(sf, run, *runExpr)
	if code != 0 {
		return code
	}
	stdout := c.stdout
	fmt.Fprintf(stdout, "reference: %d scenario(s)\n", len(scs))
	code = exitParity
	err := suite.MakeGolden(ctx, *cfg, scs, func(ch suite.GoldenChange) {
		switch {
		case ch.Err != nil:
			fmt.Fprintf(stdout, "diverges  %s: %v\n", ch.Scenario, ch.Err)
			code = exitDiverged
		case ch.File == "":
			fmt.Fprintf(stdout, "same      %s (as its sameAs)\n", ch.Scenario)
		case ch.Diff == "":
			fmt.Fprintf(stdout, "unchanged %s\n", ch.File)
		default:
			fmt.Fprintf(stdout, "wrote     %s\n%s", ch.File, ch.Diff)
		}
	})
	if err != nil {
		return c.fail(exitCannotRun, err)
	}
	return code
}

// goldenSetup loads the suites alone and selects their scenarios.
func (c *call) goldenSetup(sf *suiteFlags, run *regexp.Regexp, runExpr string) (*suite.Config, []*suite.Scenario, int) {
	suites, err := sf.suites()
	if err != nil {
		return nil, nil, c.badUsage("%v", err)
	}
	all, err := suite.Load(false, suites)
	if err != nil {
		return nil, nil, c.fail(exitCannotRun, err)
	}
	scs := suite.Select(all, run)
	if len(scs) == 0 {
		return nil, nil, c.failf(exitCannotRun, "no scenario of the suites matches --run %q", runExpr)
	}
	changes, err := suite.EmbeddedChanges()
	if err != nil {
		return nil, nil, c.fail(exitCannotRun, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, c.fail(exitCannotRun, err)
	}
	return &suite.Config{Harness: []string{exe}, Changes: changes}, scs, 0
}
