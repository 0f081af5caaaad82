package fuzz

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/verdict"
)

// fakeJudge says a scenario diverges at its first step that bad accepts.
type fakeJudge struct {
	bad  func(scenario.Step) bool
	runs int
}

func (j *fakeJudge) Run(_ context.Context, sc *scenario.Scenario, _ string) (Outcome, error) {
	j.runs++
	for i, st := range sc.Steps {
		if j.bad(st) {
			d := compare.Diff{Path: fmt.Sprintf("[%d].status", i), Step: st.Name, Want: "200", Got: "500"}
			return Outcome{Golden: []byte("[]"), Result: report.Result{Verdict: verdict.Fail, Diffs: []compare.Diff{d}}}, nil
		}
	}
	return Outcome{Golden: []byte("[]"), Result: report.Result{Verdict: verdict.Pass}}, nil
}

// firstDiverging finds, from seed 1 on, a generated program the judge
// says diverges.
func firstDiverging(t *testing.T, j *fakeJudge) (*Program, Outcome) {
	t.Helper()
	for seed := uint64(1); seed < 500; seed++ {
		p, err := fromSeed(seed, DefaultSteps, ScenarioName(seed))
		if err != nil {
			t.Fatal(err)
		}
		if out, _ := j.Run(context.Background(), p.Scenario, ""); out.Diverged() {
			return p, out
		}
	}
	t.Fatal("no generated program diverges")
	return nil, Outcome{}
}

// TestShrinkToTheStep: a divergence on the catalog step shrinks to that
// step alone, without servers or store, the same way twice.
func TestShrinkToTheStep(t *testing.T) {
	catalog := func(st scenario.Step) bool { return st.Path == "/api/mcp/catalog" }
	var results []string
	for range 2 {
		j := &fakeJudge{bad: catalog}
		p, out := firstDiverging(t, j)
		j.runs = 0
		shrunk, sout, runs, err := shrink(context.Background(), j, p, out, DefaultShrinkRuns)
		if err != nil {
			t.Fatal(err)
		}
		sc := shrunk.Scenario
		if len(sc.Steps) != 1 || !catalog(sc.Steps[0]) || len(sc.Servers) != 0 || len(sc.Seed) != 0 || !sout.Diverged() {
			t.Fatalf("shrunk from %d steps to %s", len(p.Scenario.Steps), scenarioJSON(t, sc))
		}
		if runs != j.runs || runs > DefaultShrinkRuns {
			t.Errorf("%d runs reported, %d made", runs, j.runs)
		}
		results = append(results, scenarioJSON(t, sc))
	}
	if results[0] != results[1] {
		t.Errorf("two shrinks differ:\n%s\n%s", results[0], results[1])
	}
}

// TestShrinkKeepsWhatMatters: a divergence that needs a save of a
// configured server with a url keeps a save with a url (and the final
// replays observation when the server kept is a replay).
func TestShrinkKeepsWhatMatters(t *testing.T) {
	saveURL := func(st scenario.Step) bool {
		return st.Path == "/api/mcp/save" && st.Store && len(st.Body) > 0 && strings.Contains(string(st.Body), `"url":"{url:`)
	}
	j := &fakeJudge{bad: saveURL}
	p, out := firstDiverging(t, j)
	shrunk, _, _, err := shrink(context.Background(), j, p, out, DefaultShrinkRuns)
	if err != nil {
		t.Fatal(err)
	}
	sc := shrunk.Scenario
	steps := sc.Steps
	if n := len(steps); n == 2 && steps[1].Kind == scenario.KindReplays {
		steps = steps[:1]
	}
	if len(steps) != 1 || !saveURL(steps[0]) || len(sc.Servers) != 1 {
		t.Fatalf("shrunk to %s", scenarioJSON(t, sc))
	}
}

// TestShrinkBudget: the shrinker stops at its budget.
func TestShrinkBudget(t *testing.T) {
	j := &fakeJudge{bad: func(st scenario.Step) bool { return st.Path == "/api/mcp" }}
	p, out := firstDiverging(t, j)
	j.runs = 0
	if _, _, runs, err := shrink(context.Background(), j, p, out, 3); err != nil || runs != 3 || j.runs != 3 {
		t.Errorf("budget 3: %d runs reported, %d made, %v", runs, j.runs, err)
	}
}
