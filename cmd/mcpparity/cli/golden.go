package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
)

func init() {
	register("golden", "write a suite's golden files from the reference", runGolden)
}

const goldenNotes = `
Golden files come from the reference only (the embedded Go pool, in
process): golden runs it on each scenario of the --suite folders that
--run selects and writes DIR/golden/SCENARIO.golden. It prints a line per
file (new, changed, unchanged) and the changed lines of each changed file
(read each one); --full also prints each new file whole. A scenario whose sameAs names
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
	full := fs.Bool("full", false, "print each new golden file whole, not only its line")
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
	return c.makeGolden(ctx, *cfg, scs, *full)
}

// makeGolden writes the golden files of scs from the reference, a line per
// file: the one writer of golden files, for golden and record.
func (c *call) makeGolden(ctx context.Context, cfg runner.Config, scs []*scenario.Scenario, full bool) int {
	stdout := c.stdout
	fmt.Fprintf(stdout, "reference: %d scenario(s)\n", len(scs))
	code := exitParity
	var n goldenCounts
	err := runner.MakeGolden(ctx, cfg, scs, func(ch runner.GoldenChange) {
		if ch.Err != nil {
			code = exitDiverged
		}
		n.write(stdout, ch, full)
	})
	if err != nil {
		return c.fail(exitCannotRun, err)
	}
	fmt.Fprintln(stdout, n)
	return code
}

// goldenCounts counts what golden did to each scenario's file.
type goldenCounts struct{ added, changed, unchanged, same, shared, diverged int }

// write prints one scenario's line: a new file with its size (whole with
// full), a changed one with its counts and changed lines.
func (n *goldenCounts) write(w io.Writer, ch runner.GoldenChange, full bool) {
	switch {
	case ch.Err != nil:
		n.diverged++
		fmt.Fprintf(w, "diverges  %s%s: %v\n", ch.Scenario, eraNote(ch.Era), ch.Err)
	case ch.File == "":
		n.same++
		fmt.Fprintf(w, "same      %s (as its sameAs)\n", ch.Scenario)
	case ch.Shared:
		n.shared++
		fmt.Fprintf(w, "shared    %s (the same in %s)\n", ch.File, ch.Era)
	case ch.Removed:
		n.changed++
		fmt.Fprintf(w, "removed   %s (%s now the same as the shared file)\n", ch.File, ch.Era)
	case ch.Diff == "":
		n.unchanged++
		fmt.Fprintf(w, "unchanged %s\n", ch.File)
	case ch.New:
		n.added++
		added, _ := diffCounts(ch.Diff)
		fmt.Fprintf(w, "new       %s (%d lines)\n", ch.File, added)
		if full {
			fmt.Fprint(w, ch.Diff)
		}
	default:
		n.changed++
		added, removed := diffCounts(ch.Diff)
		fmt.Fprintf(w, "changed   %s (+%d -%d lines)\n%s", ch.File, added, removed, ch.Diff)
	}
}

func (n goldenCounts) String() string {
	s := fmt.Sprintf("golden: %d new, %d changed, %d unchanged", n.added, n.changed, n.unchanged)
	if n.same > 0 {
		s += fmt.Sprintf(", %d as their sameAs", n.same)
	}
	if n.shared > 0 {
		s += fmt.Sprintf(", %d the same in another era", n.shared)
	}
	if n.diverged > 0 {
		s += fmt.Sprintf(", %d diverging (not written)", n.diverged)
	}
	return s
}

// diffCounts counts the added and removed lines of a unified diff (its
// two header lines aside).
func diffCounts(diff string) (added, removed int) {
	lines := strings.Split(diff, "\n")
	for _, l := range lines[min(2, len(lines)):] {
		switch {
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

// goldenSetup loads the suites alone and selects their scenarios.
func (c *call) goldenSetup(sf *suiteFlags, run *regexp.Regexp, runExpr string) (*runner.Config, []*scenario.Scenario, int) {
	suites, err := sf.suites()
	if err != nil {
		return nil, nil, c.badUsage("%v", err)
	}
	all, err := c.loadScenarios(false, suites)
	if err != nil {
		return nil, nil, c.fail(exitCannotRun, err)
	}
	scs := scenario.Select(all, run)
	if len(scs) == 0 {
		return nil, nil, c.failf(exitCannotRun, "no scenario of the suites matches --run %q", runExpr)
	}
	changes, err := scenario.EmbeddedChanges()
	if err != nil {
		return nil, nil, c.fail(exitCannotRun, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, c.fail(exitCannotRun, err)
	}
	return &runner.Config{Harness: []string{exe}, Changes: changes}, scs, 0
}
