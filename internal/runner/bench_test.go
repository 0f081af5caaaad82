package runner_test

import (
	"context"
	"testing"

	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
	"github.com/mcpparity/mcpparity/internal/verdict"
)

// BenchmarkCheck is the whole `check` against the embedded reference: every
// scenario on a fresh target, compared with its golden file.
func BenchmarkCheck(b *testing.B) {
	muts, err := scenario.EmbeddedChanges()
	if err != nil {
		b.Fatal(err)
	}
	scs, err := scenario.EmbeddedScenarios()
	if err != nil {
		b.Fatal(err)
	}
	cfg := runner.Config{Target: target.RefTarget{}, Harness: harnessCommand(b), Changes: muts}
	for b.Loop() {
		for _, r := range runner.Check(context.Background(), cfg, scs, scenario.EmbeddedGolden, nil, nil) {
			if r.Verdict != verdict.Pass && !r.NotInEra() {
				b.Fatalf("%s: %s %s %+v", r.Scenario, r.Verdict, r.Err, r.Diffs)
			}
		}
	}
}
