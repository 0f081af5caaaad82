package cli

import (
	"context"
	"fmt"

	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/target"
)

func init() {
	register("diff", "run the scenarios against two targets and show where they differ", runDiff)
}

func runDiff(ctx context.Context, c *call) int {
	fs := c.flags("--a T1 --b T2 [--run RE] [--suite DIR]... [--no-builtin]", `
exit codes: 0 the same observations, 1 a difference, 2 could not run`)
	a := fs.String("a", "ref", "first target")
	b := fs.String("b", "", "second target")
	runExpr := fs.String("run", "", "run only the scenarios whose name (03-status, SUITE:NAME) matches this regular expression")
	sf := declareSuiteFlags(fs, true)
	era := declareEraFlag(fs)
	if code, done := c.parse(); done {
		return code
	}
	if *b == "" {
		return c.badUsage("--b is required")
	}
	ta, err := target.ParseTarget(*a)
	if err != nil {
		return c.badUsage("--a: %v", err)
	}
	tb, err := target.ParseTarget(*b)
	if err != nil {
		return c.badUsage("--b: %v", err)
	}
	cfg, scs, _, code := c.setup(*runExpr, sf, false)
	if code != 0 {
		return code
	}
	if cfg.Era, err = impl.ParseEra(*era); err != nil {
		return c.badUsage("--era: %v", err)
	}
	stdout := c.stdout
	code = exitParity
	for _, s := range scs {
		diffs, err := runner.DiffTargets(ctx, *cfg, s, ta, tb)
		if err != nil {
			fmt.Fprintf(stdout, "error    %s: %v\n", s.ID(), err)
			code = exitCannotRun
			continue
		}
		if len(diffs) == 0 {
			fmt.Fprintf(stdout, "same     %s\n", s.ID())
			continue
		}
		fmt.Fprintf(stdout, "differ   %s: %d difference(s)\n", s.ID(), len(diffs))
		report.WriteSideBySide(stdout, ta.Name(), tb.Name(), diffs)
		if code == exitParity {
			code = exitDiverged
		}
	}
	return code
}
