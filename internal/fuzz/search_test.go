package fuzz

import (
	"context"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/verdict"
)

// rankJudge makes sequences diverge by rank: slow ones after a while (or
// when cut), the others at once.
type rankJudge struct {
	ranks    map[string]int // scenario name → sequence rank
	diverge  map[int]bool
	slow     map[int]bool
	finished chan int
}

func (j *rankJudge) Run(ctx context.Context, sc *scenario.Scenario, _ string) (Outcome, error) {
	rank := j.ranks[sc.Name]
	if j.slow[rank] {
		// Still running once a later sequence has diverged, and for a
		// while after: a search that cuts what runs once it finds a
		// divergence cuts this one (its verdict would then depend on which
		// ended first); one that keeps it waits.
		<-j.finished
		select {
		case <-ctx.Done():
			return Outcome{}, errStopped
		case <-time.After(100 * time.Millisecond):
		}
	}
	defer func() {
		if j.diverge[rank] && !j.slow[rank] {
			close(j.finished)
		}
	}()
	v := verdict.Pass
	if j.diverge[rank] {
		v = verdict.Fail
	}
	return Outcome{Golden: []byte("[]"), Result: report.Result{Verdict: v}}, nil
}

// TestSearchKeepsTheLowestRank: sequence 0 diverges after sequence 2 has,
// and it is the finding all the same, at every parallelism that runs them
// side by side: the verdict does not depend on which ends first.
func TestSearchKeepsTheLowestRank(t *testing.T) {
	for _, parallel := range []int{3, 8} {
		j := &rankJudge{ranks: map[string]int{}, diverge: map[int]bool{0: true, 2: true}, slow: map[int]bool{0: true}, finished: make(chan int)}
		seed := uint64(5)
		for i := range 16 {
			j.ranks[ScenarioName(seed)] = i
			seed = next(seed)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		rep, found, err := search(ctx, j, Options{Seed: 5, Steps: 4, Parallel: parallel, Sequences: 16})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if found == nil || found.Sequence != 0 {
			t.Fatalf("parallel %d: found %+v, want sequence 0 (report %+v)", parallel, found, rep)
		}
	}
}
