package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/fuzz"
	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/target"
)

func init() {
	register("fuzz", "generate sequences of steps and run each against the reference and a target, until they differ", runFuzz)
}

func runFuzz(ctx context.Context, c *call) int {
	fs := c.flags("[--target T | --target-file F] [--seed S] [--steps N] [--duration D] [--suite DIR] [--json F]", fuzzNotes)
	target := fs.String("target", "", "target: ref (default), cmd:<command line>, url:<base>, image:<name:tag>")
	targetFile := fs.String("target-file", "", "target file (JSON or YAML): target, env, store commands, accepted deviations")
	seed := fs.Uint64("seed", 0, "the first sequence's seed (default: drawn from the clock, and printed)")
	steps := fs.Int("steps", fuzz.DefaultSteps, "units of steps in each sequence")
	duration := fs.Duration("duration", time.Minute, "how long to search (shrinking a finding comes after)")
	sequences := fs.Int("sequences", 0, "stop after this many sequences (0: when --duration ends)")
	parallel := fs.Int("parallel", fuzz.DefaultParallel, "sequences run at once")
	shrink := fs.Int("shrink", fuzz.DefaultShrinkRuns, "runs the shrinker may make")
	suiteDir := fs.String("suite", "fuzz-suite", "where a finding is written: DIR/scenarios/NAME.json and DIR/golden/NAME.golden")
	jsonOut := fs.String("json", "", "write what the run did (seed, sequences, the finding and its differences) as JSON to this file")
	era := declareEraFlag(fs)
	if code, done := c.parse(); done {
		return code
	}
	if *steps < 1 || *duration <= 0 || *sequences < 0 || *parallel < 1 || *shrink < 1 {
		return c.badUsage("--steps, --parallel and --shrink must be at least 1, --duration positive, --sequences not negative")
	}
	if !isFlagSet(c, "seed") {
		*seed = uint64(time.Now().UnixNano())
	}
	// A fuzz run allocates much and keeps little: collect less often.
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	runner, code := c.fuzzRunner(*target, *targetFile, *era)
	if code != 0 {
		return code
	}
	outs, err := openFiles(map[string]string{"json": *jsonOut})
	if err != nil {
		return c.fail(exitCannotRun, err)
	}
	defer outs.abort()
	if err := reach(ctx, runner.Target.Target); err != nil {
		return c.failf(exitCannotRun, "target %s cannot be reached: %v", runner.Target.Target.Name(), err)
	}
	name := runner.Target.Target.Name()
	fmt.Fprintf(c.stdout, "fuzz: target %s, seed %d, %d units a sequence, for %v\n", name, *seed, *steps, *duration)
	// Without --era (or a target file's 2026-07-28), each sequence draws
	// its era.
	fixed := *era
	if fixed == "" && runner.Target.Era == impl.EraModern {
		fixed = impl.EraModern
	}
	rep, err := fuzz.Run(ctx, runner, fuzz.Options{Seed: *seed, Steps: *steps, Duration: *duration, Sequences: *sequences,
		Parallel: *parallel, ShrinkRuns: *shrink, Log: c.stdout, Era: fixed})
	if rep != nil {
		fmt.Fprintf(c.stdout, "%d sequence(s), %d step(s) in %v\n", rep.Sequences, rep.Steps, rep.Elapsed)
	}
	if err != nil {
		return c.fail(exitCannotRun, err)
	}
	return c.fuzzOutcome(ctx, runner, rep, name, *suiteDir, *target, *targetFile, outs)
}

// fuzzOutcome writes a run's finding into the suite folder, says what it
// found, writes the JSON report and returns the exit code.
func (c *call) fuzzOutcome(ctx context.Context, r *fuzz.Runner, rep *fuzz.Report, name, suiteDir, target, targetFile string, outs *outputFiles) int {
	var written *fuzz.Written
	if f := rep.Finding; f != nil {
		f.Shrunk.Scenario.Description = fuzz.Describe(f, name)
		// The file every era shares: the reference's observations in the
		// handshake era.
		shared, err := r.Reference(ctx, f.Shrunk.Scenario, impl.EraHandshake)
		if err != nil {
			return c.fail(exitCannotRun, err)
		}
		w, err := fuzz.Write(suiteDir, f.Shrunk.Scenario, f.Shrunk.Era, f.Outcome.Golden, shared)
		if err != nil {
			return c.fail(exitCannotRun, err)
		}
		written = &w
		printFinding(c.stdout, f, w, target, targetFile)
	} else {
		fmt.Fprintln(c.stdout, "no divergence found")
	}
	if err := outs.write(map[string]func(io.Writer) error{
		"json": func(w io.Writer) error { return writeJSON(w, fuzz.JSONReport(name, rep, written)) },
	}); err != nil {
		return c.fail(exitCannotRun, err)
	}
	if rep.Finding != nil {
		return exitDiverged
	}
	return exitParity
}

// fuzzRunner resolves the target and the harness into a runner.
func (c *call) fuzzRunner(spec, targetFile, era string) (*fuzz.Runner, int) {
	exe, err := os.Executable()
	if err != nil {
		return nil, c.fail(exitCannotRun, err)
	}
	cfg := runner.Config{Harness: []string{exe}}
	devs, err := targetConfig(&cfg, spec, targetFile, era)
	if err != nil {
		return nil, c.fail(exitCannotRun, err)
	}
	ref := runner.Config{Target: target.RefTarget{}, Harness: cfg.Harness, Era: cfg.Era}
	return &fuzz.Runner{Ref: ref, Target: cfg, Deviations: devs}, 0
}

// isFlagSet reports whether the command line set the flag.
func isFlagSet(c *call, name string) bool {
	set := false
	c.fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// printFinding says what differs, where it was written and how to
// reproduce it.
func printFinding(w io.Writer, f *fuzz.Finding, written fuzz.Written, spec, file string) {
	fmt.Fprintf(w, "shrunk from %d to %d step(s) in %d run(s)\n", len(f.Original.Scenario.Steps), len(f.Shrunk.Scenario.Steps), f.ShrinkRuns)
	report.WriteDetails(w, []report.Result{f.Outcome.Result})
	fmt.Fprintf(w, "written: %s\n         %s\n", written.Scenario, written.Golden)
	how := "--target " + spec
	if file != "" {
		how = "--target-file " + file
	} else if spec == "" {
		how = "--target ref"
	}
	fmt.Fprintf(w, "reproduce: mcpparity fuzz %s --era %s --seed %d --sequences 1\n", how, f.Shrunk.Era, f.Seed)
}

const fuzzNotes = `
Each sequence is generated from its seed (printed with a finding) and run
as a scenario on the reference and on the target, side by side; the first
one on which they differ is shrunk to a minimal sequence that still
differs, written as a scenario with the reference's observations as its
golden file, and printed.

exit codes:
  0  nothing found
  1  a divergence found, shrunk and written
  2  could not run: bad flags or target file, a target that does not start, a harness error`
