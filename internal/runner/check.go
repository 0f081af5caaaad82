package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
	"github.com/mcpparity/mcpparity/internal/verdict"
)

// DefaultParallel is how many scenarios Check runs at once: each has its
// own target, folders and servers, and mostly waits.
const DefaultParallel = 8

// Check runs scenarios against cfg.Target, cfg.Parallel at a time, and
// compares each with its golden observations. Results come in the order of
// scenarios; progress gets one line per scenario, in that order too, as
// soon as it and those before it are done. Deviations of another era than
// cfg's accept nothing.
func Check(ctx context.Context, cfg Config, scenarios []*scenario.Scenario, golden scenario.Golden, deviations []compare.Deviation, progress io.Writer) []report.Result {
	deviations = compare.DeviationsIn(deviations, cfg.era())
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	parallel := cfg.Parallel
	if parallel <= 0 {
		parallel = DefaultParallel
	}
	results := make([]report.Result, len(scenarios))
	done := make([]chan struct{}, len(scenarios))
	for i := range scenarios {
		done[i] = make(chan struct{})
	}
	// Slots are handed out in startOrder: the scenarios that wait on
	// deadlines first, so that their waits overlap the others' work.
	turns := make([]chan bool, len(scenarios)) // true: a slot was taken for it
	for i := range turns {
		turns[i] = make(chan bool, 1)
	}
	slots := make(chan struct{}, parallel)
	go func() {
		for _, i := range startOrder(scenarios) {
			if ctx.Err() != nil {
				turns[i] <- false
				continue
			}
			select {
			case slots <- struct{}{}:
				turns[i] <- true
			case <-ctx.Done():
				turns[i] <- false
			}
		}
	}()
	rr := newRerunner(len(scenarios), !cfg.FailFast)
	for i, s := range scenarios {
		go func() {
			defer close(done[i])
			results[i] = checkInTurn(ctx, cfg, s, golden, deviations, <-turns[i], slots, rr)
			if results[i].Verdict == verdict.Fail && cfg.FailFast {
				stop()
			}
		}()
	}
	for i := range scenarios {
		<-done[i]
		if progress != nil {
			res := results[i]
			fmt.Fprintf(progress, "%-8s %-24s %s%s\n", res.Verdict, res.Scenario, res.Duration, summary(res))
		}
	}
	return results
}

// checkInTurn runs s in the slot it was given (took: one was taken for
// it), and once more alone when it is timed and fails.
func checkInTurn(ctx context.Context, cfg Config, s *scenario.Scenario, golden scenario.Golden, deviations []compare.Deviation, took bool, slots chan struct{}, rr *rerunner) report.Result {
	res := checkTimed(ctx, cfg, s, golden, deviations)
	rr.firstRunDone()
	if took {
		<-slots
	}
	if !wantsRerun(cfg, s, res) {
		return res
	}
	return rr.again(ctx, res, func() report.Result { return checkTimed(ctx, cfg, s, golden, deviations) })
}

// checkTimed is checkOne with its duration; skipped when ctx has ended.
func checkTimed(ctx context.Context, cfg Config, s *scenario.Scenario, golden scenario.Golden, deviations []compare.Deviation) report.Result {
	if ctx.Err() != nil {
		return report.Result{Scenario: s.ID(), Verdict: verdict.Skipped}
	}
	if !s.RunsIn(cfg.Era) {
		return report.Result{Scenario: s.ID(), Verdict: verdict.Skipped, Err: "runs in era " + strings.Join(s.Eras, ", ") + " only", Eras: s.Eras}
	}
	start := time.Now()
	res := checkOne(ctx, cfg, s, golden, deviations)
	res.Duration = time.Since(start).Round(time.Millisecond)
	if res.Verdict == verdict.Error && ctx.Err() != nil {
		res = report.Result{Scenario: s.ID(), Verdict: verdict.Skipped, Duration: res.Duration}
	}
	return res
}

// startOrder lists the indexes of scenarios in the order they start: those
// that set a time scale (they wait on deadlines) first, then the others,
// each in name order.
func startOrder(scenarios []*scenario.Scenario) []int {
	var first, rest []int
	for i, s := range scenarios {
		if s.Timed() {
			first = append(first, i)
		} else {
			rest = append(rest, i)
		}
	}
	return append(first, rest...)
}

func summary(r report.Result) string {
	s := verdictSummary(r)
	if r.Rerun != "" {
		s += "  (" + r.Rerun + ")"
	}
	return s
}

func verdictSummary(r report.Result) string {
	switch r.Verdict {
	case verdict.Error, verdict.Skipped:
		return "  " + r.Err
	case verdict.Fail, verdict.Accepted:
		n := 0
		for _, d := range r.Diffs {
			if !d.Accepted {
				n++
			}
		}
		return fmt.Sprintf("  %d difference(s), %d accepted", n, len(r.Diffs)-n)
	}
	return ""
}

func checkOne(ctx context.Context, cfg Config, s *scenario.Scenario, golden scenario.Golden, deviations []compare.Deviation) report.Result {
	res := report.Result{Scenario: s.ID()}
	obs, expects, logs, err := RunScenario(ctx, cfg, s)
	res.Logs = logs
	if err != nil {
		res.Verdict, res.Err = verdict.Error, err.Error()
		return res
	}
	res.Observed, err = EncodeObservations(obs)
	if err != nil {
		res.Verdict, res.Err = verdict.Error, err.Error()
		return res
	}
	// Declared expectations (the config changes) first: they are the spec.
	for i, exp := range expects {
		if exp == nil {
			continue
		}
		for _, d := range compareExpect(*exp, obs[i]) {
			d.Path, d.Step = fmt.Sprintf("[%d].%s", i, d.Path), obs[i].Step
			d.Reason = "declared expectation of " + exp.Step
			res.Diffs = append(res.Diffs, d)
		}
	}
	goldenName := s.GoldenID()
	want, err := golden(goldenName, cfg.Era)
	if err != nil {
		res.Verdict, res.Err = verdict.Error, fmt.Sprintf("golden file: %v", err)
		return res
	}
	if s.SameAs == "" && len(res.Diffs) == 0 && bytes.Equal(want, res.Observed) {
		res.Verdict = verdict.Pass // the golden file's own bytes: nothing to compare
		return res
	}
	var wantObs []scenario.Observation
	if err := json.Unmarshal(want, &wantObs); err != nil {
		res.Verdict, res.Err = verdict.Error, fmt.Sprintf("golden file %s: %v", goldenName, err)
		return res
	}
	if s.SameAs != "" {
		wantObs = withoutReplays(wantObs)
	}
	for _, d := range compare.Compare(wantObs, obs) {
		d.Step = stepName(d.Path, obs)
		for _, dev := range deviations {
			if dev.Matches(s.ID(), d) {
				d.Accepted, d.Reason = true, dev.Reason
				break
			}
		}
		res.Diffs = append(res.Diffs, d)
	}
	res.Verdict = verdict.Pass
	for _, d := range res.Diffs {
		if !d.Accepted {
			res.Verdict = verdict.Fail
			break
		}
		res.Verdict = verdict.Accepted
	}
	return res
}

// compareExpect compares the fields an expectation sets.
func compareExpect(exp, got scenario.Observation) []compare.Diff {
	var diffs []compare.Diff
	if exp.Status != 0 && exp.Status != got.Status {
		diffs = append(diffs, compare.Diff{Path: "status", Want: fmt.Sprint(exp.Status), Got: fmt.Sprint(got.Status)})
	}
	if exp.Body != nil {
		for _, d := range compare.Compare(exp.Body, got.Body) {
			d.Path = joinPath("body", d.Path)
			diffs = append(diffs, d)
		}
	}
	if exp.Store != nil {
		for _, d := range compare.Compare(exp.Store, got.Store) {
			d.Path = joinPath("store", d.Path)
			diffs = append(diffs, d)
		}
	}
	return diffs
}

func joinPath(a, b string) string {
	if b == "" || b[0] == '[' {
		return a + b
	}
	return a + "." + b
}

// EncodeObservations is the golden file form: pretty JSON, stable order.
func EncodeObservations(obs []scenario.Observation) ([]byte, error) {
	v := compare.Generic(obs)
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(raw, '\n'), nil
}

// withoutReplays drops the observations of replay reports, which only the
// replayed scenario has.
func withoutReplays(obs []scenario.Observation) []scenario.Observation {
	var out []scenario.Observation
	for _, o := range obs {
		if o.Replays == nil {
			out = append(out, o)
		}
	}
	return out
}

// DiffTargets runs one scenario against two targets and compares their
// observations with each other (no golden file involved).
func DiffTargets(ctx context.Context, cfg Config, s *scenario.Scenario, a, b target.Target) ([]compare.Diff, error) {
	cfg.Target = a
	obsA, _, _, err := RunScenario(ctx, cfg, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", a.Name(), err)
	}
	cfg.Target = b
	obsB, _, _, err := RunScenario(ctx, cfg, s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return compare.Compare(obsA, obsB), nil
}

// stepName is the name of the observation a path like "[3].body" starts in.
func stepName(path string, obs []scenario.Observation) string {
	var i int
	if _, err := fmt.Sscanf(path, "[%d]", &i); err != nil || i < 0 || i >= len(obs) {
		return ""
	}
	return obs[i].Step
}
