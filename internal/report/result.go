package report

import (
	"time"

	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/verdict"
)

// Result is one scenario's outcome.
type Result struct {
	Scenario string          `json:"scenario"`
	Verdict  verdict.Verdict `json:"verdict"`
	Diffs    []compare.Diff  `json:"diffs,omitempty"`
	Err      string          `json:"error,omitempty"`
	Logs     string          `json:"logs,omitempty"`
	Duration time.Duration   `json:"duration"`
	// Rerun says why a timed scenario ran twice, and how each run ended
	// (rerun.go); the verdict is the second run's.
	Rerun string `json:"rerun,omitempty"`
	// Observed is the normalized observation, as a golden file holds it.
	Observed []byte `json:"-"`
	// Eras, on a scenario skipped for that, are the only eras it runs in.
	Eras []string `json:"eras,omitempty"`
}

// NotInEra reports whether r is a scenario skipped because it runs in
// other eras only.
func (r Result) NotInEra() bool { return r.Verdict == verdict.Skipped && len(r.Eras) > 0 }

// Failed reports whether any result is a divergence, and whether any is a
// harness error.
func Failed(results []Result) (diverged, errored bool) {
	for _, r := range results {
		switch r.Verdict {
		case verdict.Fail:
			diverged = true
		case verdict.Error:
			errored = true
		}
	}
	return diverged, errored
}
