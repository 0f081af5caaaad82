package fuzz

import (
	"context"
	"errors"
	"fmt"

	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/verdict"
)

// Judge runs a scenario on both sides in an era and judges the target
// (Runner does).
type Judge interface {
	Run(ctx context.Context, sc *scenario.Scenario, era string) (Outcome, error)
}

// Runner runs a scenario against the reference, then against the target
// with the reference's observations as its golden file: the target is
// judged as check judges it (the normalizer, go-cmp, the target file's
// deviations).
type Runner struct {
	// Ref and Target are the configurations of the two runs (Ref.Target
	// is the embedded reference).
	Ref, Target runner.Config
	Deviations  []compare.Deviation
}

// Outcome is one scenario run on both sides.
type Outcome struct {
	// Golden is the reference's observations, as a golden file holds them.
	Golden []byte
	// Result is the target's verdict against them.
	Result report.Result
}

// Diverged reports whether the target differs where no deviation
// accepts it.
func (o Outcome) Diverged() bool { return o.Result.Verdict == verdict.Fail }

// errStopped is a run cut short by its context (the fuzz's time is up).
var errStopped = errors.New("stopped")

// Run runs sc on both sides. An error is a side that could not run (the
// harness, or a target that did not start), or errStopped.
func (r *Runner) Run(ctx context.Context, sc *scenario.Scenario, era string) (Outcome, error) {
	golden, err := r.Reference(ctx, sc, era)
	if err != nil {
		return Outcome{}, err
	}
	cfg := r.Target
	cfg.Era = era
	res := runner.Check(ctx, cfg, []*scenario.Scenario{sc}, func(string, string) ([]byte, error) { return golden, nil }, r.Deviations, nil)[0]
	if ctx.Err() != nil {
		return Outcome{}, errStopped
	}
	if res.Verdict == verdict.Error || res.Verdict == verdict.Skipped {
		return Outcome{}, fmt.Errorf("target %s: %s", r.Target.Target.Name(), res.Err)
	}
	return Outcome{Golden: golden, Result: res}, nil
}

// Reference runs sc against the reference in era and returns its observations
// in the golden form.
func (r *Runner) Reference(ctx context.Context, sc *scenario.Scenario, era string) ([]byte, error) {
	cfg := r.Ref
	cfg.Era = era
	obs, _, _, err := runner.RunScenario(ctx, cfg, sc)
	if ctx.Err() != nil {
		return nil, errStopped
	}
	if err != nil {
		return nil, fmt.Errorf("reference: %w", err)
	}
	return runner.EncodeObservations(obs)
}

// Differences are the target's differences no deviation accepts.
func (o Outcome) Differences() []compare.Diff {
	var out []compare.Diff
	for _, d := range o.Result.Diffs {
		if !d.Accepted {
			out = append(out, d)
		}
	}
	return out
}
