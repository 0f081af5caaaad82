package runner

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/verdict"
)

// A scenario that sets a time scale tells durations apart by a few hundred
// milliseconds (docs/rules.md, T1.1): a machine loaded by other work can
// eat such a margin. When one fails, Check runs it once more, alone, once
// every first run is over; its verdict is that second run's. A divergence
// of the target is decided by the scale and fails again; only the load
// changed between the two runs. With FailFast the second run starts at
// once, the others still running: waiting for them would undo FailFast
// (a scenario unscaled by a mutant can wait minutes).

// rerunner holds the reruns until every first run is over (unless
// FailFast), and runs them one at a time.
type rerunner struct {
	left   atomic.Int64
	over   chan struct{} // closed when no first run is left to wait for
	alone  chan struct{} // a rerun holds it
	others bool          // reruns wait for the other scenarios
}

func newRerunner(firstRuns int, waitOthers bool) *rerunner {
	r := &rerunner{over: make(chan struct{}), alone: make(chan struct{}, 1), others: waitOthers}
	if !waitOthers {
		firstRuns = 0
	}
	r.left.Store(int64(firstRuns))
	if firstRuns == 0 {
		close(r.over)
	}
	return r
}

// firstRunDone marks one scenario's first run over (once per scenario;
// below zero when nothing waits).
func (r *rerunner) firstRunDone() {
	if r.left.Add(-1) == 0 {
		close(r.over)
	}
}

func wantsRerun(cfg Config, s *scenario.Scenario, first report.Result) bool {
	return !cfg.NoRerun && first.Verdict == verdict.Fail && s.Timed()
}

// again runs a failed timed scenario once more, alone; first stays the
// result when ctx ends before.
func (r *rerunner) again(ctx context.Context, first report.Result, run func() report.Result) report.Result {
	select {
	case <-r.over:
	case <-ctx.Done():
		return first
	}
	select {
	case r.alone <- struct{}{}:
	case <-ctx.Done():
		return first
	}
	defer func() { <-r.alone }()
	second := run()
	if ctx.Err() != nil {
		return first
	}
	how := "alone"
	if !r.others {
		how = "again at once"
	}
	second.Rerun = fmt.Sprintf("failed among the others, %s; %s: %s", firstDiff(first), how, second.Verdict)
	return second
}

// firstDiff names the first difference of a failed result.
func firstDiff(r report.Result) string {
	for _, d := range r.Diffs {
		if !d.Accepted {
			return "at " + d.Path
		}
	}
	return "no difference named"
}
