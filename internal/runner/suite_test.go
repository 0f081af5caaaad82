package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/golden"
	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
	"github.com/sebdah/goldie/v2"
)

// TestScenarios runs every scenario against the embedded reference in
// each era and compares its observations with its golden file of that era
// (golden/<scenario>.<era>.golden, else golden/<scenario>.golden); `go
// test ./internal/runner -run TestScenarios -update` rewrites them with
// runner.MakeGolden, as record does. Each era and scenario is a subtest:
// -run 'TestScenarios/2026-07-28/03-status'.
func TestScenarios(t *testing.T) {
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		updateGolden(t)
		return
	}
	scs, err := scenario.EmbeddedScenarios()
	if err != nil {
		t.Fatal(err)
	}
	g := goldie.New(t, goldie.WithFixtureDir(goldenDir), goldie.WithNameSuffix(".golden"))
	for _, era := range impl.Eras {
		cfg := testConfig(t, target.RefTarget{})
		cfg.Era = era
		t.Run(era, func(t *testing.T) {
			for _, s := range scs {
				t.Run(s.Name, func(t *testing.T) { assertScenario(t, g, cfg, s) })
			}
		})
	}
}

// assertScenario runs s in cfg's era and compares it with its golden file.
func assertScenario(t *testing.T, g *goldie.Goldie, cfg runner.Config, s *scenario.Scenario) {
	if !s.RunsIn(cfg.Era) {
		t.Skipf("%s runs in era %v only", s.Name, s.Eras)
	}
	obs, got := observe(t, cfg, s)
	if s.SameAs != "" {
		// Fidelity: the same observations as the replayed scenario.
		want := readGolden(t, s.SameAs, cfg.Era)
		for _, d := range compare.Compare(want, obs) {
			t.Errorf("differs from %s at %s: want %s, got %s", s.SameAs, d.Path, d.Want, d.Got)
		}
		return
	}
	if want, err := golden.Read(root, s.Name, cfg.Era); s.Timed() && (err != nil || !bytes.Equal(want, got)) {
		// As check does (rerun.go): a timed scenario that differs runs
		// once more; the test judges that run.
		t.Logf("%s differs from its golden file; it sets a time scale, so it runs once more", s.Name)
		_, got = observe(t, cfg, s)
	}
	g.Assert(t, goldenName(s.Name, cfg.Era), got)
}

// goldenName is the name of the golden file of a scenario in an era that
// golden.Read reads, without its suffix.
func goldenName(name, era string) string {
	own := golden.Path(root, name, era)
	if _, err := os.Stat(own); err == nil {
		return strings.TrimSuffix(filepath.Base(own), ".golden")
	}
	return name
}

// updateGolden writes the golden files of the source tree's scenarios, from
// its recordings, with the one writer of golden files.
func updateGolden(t *testing.T) {
	abs, err := filepath.Abs(root)
	if err != nil {
		t.Fatal(err)
	}
	scs, changes, err := scenario.LoadSource(abs, filepath.Join(abs, "fixtures", "recordings"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := runner.Config{Harness: harnessCommand(t), Changes: changes}
	err = runner.MakeGolden(context.Background(), cfg, scs, func(ch runner.GoldenChange) {
		switch {
		case ch.Err != nil:
			t.Errorf("%s (era %s): %v", ch.Scenario, ch.Era, ch.Err)
		case ch.Diff != "":
			t.Logf("%s written:\n%s", ch.File, ch.Diff)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
}

// observe runs s, checks its declared expectations, and returns its
// observations and their encoding.
func observe(t *testing.T, cfg runner.Config, s *scenario.Scenario) ([]scenario.Observation, []byte) {
	t.Helper()
	obs, expects, logs, err := runner.RunScenario(context.Background(), cfg, s)
	if err != nil {
		t.Fatalf("could not run: %v\n%s", err, logs)
	}
	for i, exp := range expects {
		if exp == nil {
			continue
		}
		for _, d := range compare.Compare(pick(*exp, obs[i]), *exp) {
			t.Errorf("%s: %s: declared %s, observed %s", exp.Step, d.Path, d.Got, d.Want)
		}
	}
	got, err := runner.EncodeObservations(obs)
	if err != nil {
		t.Fatal(err)
	}
	return obs, got
}

// root is the source tree; goldenDir its golden files.
const (
	root      = "../.."
	goldenDir = root + "/golden"
)

// pick keeps the fields of got that exp declares.
func pick(exp, got scenario.Observation) scenario.Observation {
	out := scenario.Observation{Step: exp.Step, Status: got.Status}
	if exp.Body != nil {
		out.Body = got.Body
	}
	if exp.Store != nil {
		out.Store = got.Store
	}
	return out
}

func readGolden(t *testing.T, name, era string) []scenario.Observation {
	t.Helper()
	data, err := golden.Read(root, name, era)
	if err != nil {
		t.Fatal(err)
	}
	var obs []scenario.Observation
	if err := json.Unmarshal(data, &obs); err != nil {
		t.Fatal(err)
	}
	var out []scenario.Observation
	for _, o := range obs {
		if o.Replays == nil {
			out = append(out, o)
		}
	}
	return out
}

func testConfig(t *testing.T, target target.Target) runner.Config {
	t.Helper()
	muts, err := scenario.EmbeddedChanges()
	if err != nil {
		t.Fatal(err)
	}
	return runner.Config{Target: target, Harness: harnessCommand(t), Changes: muts}
}

// harnessCommand is this test binary: TestMain makes it serve stdio
// replays.
func harnessCommand(tb testing.TB) []string {
	tb.Helper()
	exe, err := os.Executable()
	if err != nil {
		tb.Fatal(err)
	}
	return []string{exe}
}
