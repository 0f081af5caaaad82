package cli

import (
	"context"
	"os"

	"github.com/mcpparity/mcpparity/mutations"
)

func init() {
	register("mutate-target", "apply a target file's own mutants to its implementation and check that the suite kills each", runMutateTarget)
}

// runMutateTarget is `mcpparity mutate-target --target-file F`: a target's
// own mutants (its target file's mutants section), each applied to a copy
// of its folder, built and judged by check.
func runMutateTarget(ctx context.Context, c *call) int {
	flags := c.flags("--target-file F [--catalogue DIR] [--rule ID[,ID…]] [--suite DIR]... [flags]", `
The target's own catalogue (its target file's mutants section, or
--catalogue) is applied to copies of its folder, each built by the section's
build and checked; compiled-in mutants (a switch) are selected by the
target's switch instead. With --suite, check runs the suites' scenarios
beside the embedded ones. impl's mutants: mcpparity mutate.
exit codes: 0 every mutant killed by the suite, 1 a survivor (or a timeout,
or a broken catalogue entry), 2 setup error, 130 interrupted`)
	file := flags.String("target-file", "", "the target file whose mutants section names the catalogue and the build (docs/targets.md); required")
	catalogue := flags.String("catalogue", "", "catalogue folder, relative to the target file's folder, in place of its mutants section's")
	f := declareRunFlags(flags, mutations.DefaultFloor.String())
	if code, done := c.parse(); done {
		return code
	}
	if *file == "" {
		return c.badUsage("--target-file is required")
	}
	checkArgs, fz, code := f.setup(c)
	if code != 0 {
		return code
	}
	return c.runTargetMutants(ctx, mutations.TargetConfig{File: *file, Workers: *f.workers, ConfirmWorkers: *f.confirm,
		Floor: *f.floor, Multiplier: *f.mult, CheckArgs: checkArgs, Fuzz: fz, Catalogue: *catalogue}, *f.rules, *f.jsonOut)
}

// runTargetMutants runs a target's own mutants and reports them.
func (c *call) runTargetMutants(ctx context.Context, cfg mutations.TargetConfig, rules, jsonOut string) int {
	exe, err := os.Executable()
	if err != nil {
		return c.fail(2, err)
	}
	cfg.Harness, cfg.Progress, cfg.IDs = exe, c.stderr, splitIDs(rules)
	rep, err := mutations.RunTarget(ctx, cfg)
	if rep == nil {
		return c.fail(2, err)
	}
	return c.finishReport(rep, jsonOut, 0)
}
