package record

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpparity/mcpparity/fixtures"
)

// Recorded is what Into wrote.
type Recorded struct {
	Fixture  string // the fixture file
	Script   string // the call script
	Scenario string // the starting scenario's file
	// ScenarioState is "wrote" (new, or rewritten: it was as record had
	// written it), "unchanged", or "kept" (edited since: left alone).
	ScenarioState string
	Manifest      fixtures.Manifest
	Calls         int
}

// Into records r into its suite folder: the fixture (replaced only once
// the recording succeeded), the call script, and the starting scenario.
// That scenario is written when there is none, and rewritten when it is
// still what record wrote from the previous fixture and script; an edited
// one is kept.
func Into(ctx context.Context, r SuiteRecording, harness []string) (*Recorded, error) {
	return into(r, func(path string) (*fixtures.Fixture, error) { return recordTo(ctx, r, path, harness) })
}

// Place is Into for a fixture recorded elsewhere (data), e.g. a copy of an
// embedded recording made with the same calls.
func Place(r SuiteRecording, data []byte) (*Recorded, error) {
	return into(r, func(path string) (*fixtures.Fixture, error) {
		fx, err := fixtures.Decode(path, data)
		if err != nil {
			return nil, err
		}
		return fx, writeFile(path, data)
	})
}

// into is Into with write writing the fixture into its path.
func into(r SuiteRecording, write func(path string) (*fixtures.Fixture, error)) (*Recorded, error) {
	if err := CheckName(r.Name); err != nil {
		return nil, err
	}
	out := &Recorded{Fixture: filepath.Join(r.Dir, "fixtures", filepath.FromSlash(r.Fixture())), Script: ScriptPath(r.Dir, r.Name), Calls: len(r.Script.Calls)}
	path, exists, err := startingFile(r.Dir, r.Name)
	if err != nil {
		return nil, err
	}
	out.Scenario = path
	var current, previous []byte
	if exists {
		if current, err = os.ReadFile(path); err != nil {
			return nil, err
		}
		previous = previousScenario(r)
	}
	fx, err := write(out.Fixture)
	if err != nil {
		return nil, err
	}
	out.Manifest = fx.Manifest
	if err := WriteScript(r.Dir, r.Name, &r.Script); err != nil {
		return nil, err
	}
	fresh, err := EncodeStartingScenario(r, fx)
	if err != nil {
		return nil, err
	}
	switch {
	case exists && bytes.Equal(current, fresh):
		out.ScenarioState = "unchanged"
	case exists && !bytes.Equal(current, previous):
		out.ScenarioState = "kept"
	default:
		out.ScenarioState = "wrote"
		err = writeFile(path, fresh)
	}
	return out, err
}

// previousScenario is the starting scenario record would have written
// from the suite's fixture and call script before this recording (nil
// when either is missing).
func previousScenario(r SuiteRecording) []byte {
	script, err := ReadScript(r.Dir, r.Name)
	if err != nil {
		return nil
	}
	old := SuiteRecording{Dir: r.Dir, Name: r.Name, Script: *script}
	fx, _, err := fixtures.Find(old.Fixture(), filepath.Join(r.Dir, "fixtures"))
	if err != nil {
		return nil
	}
	data, err := EncodeStartingScenario(old, fx)
	if err != nil {
		return nil
	}
	return data
}

// recordTo records r into a temporary folder, then moves the fixture to
// path.
func recordTo(ctx context.Context, r SuiteRecording, path string, harness []string) (*fixtures.Fixture, error) {
	tmp, err := os.MkdirTemp("", "mcpparity-record-suite-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	fresh := filepath.Join(tmp, filepath.Base(path))
	if err := RecordSuite(ctx, r, fresh, harness); err != nil {
		return nil, err
	}
	data, err := os.ReadFile(fresh)
	if err != nil {
		return nil, err
	}
	fx, err := fixtures.Decode(path, data)
	if err != nil {
		return nil, err
	}
	return fx, writeFile(path, data)
}

// SuiteNames lists the recordings of a suite folder: NAME of each
// scenarios/calls-NAME.json whose NAME is a recording name.
func SuiteNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "scenarios"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Name(), "calls-")
		if name, ok2 := strings.CutSuffix(name, ".json"); ok && ok2 && CheckName(name) == nil {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}

// Drift is a recording of a suite that differs from a fresh one.
type Drift struct {
	Fixture string // the stored fixture
	Diff    string // as Compare gives it
}

// CheckSuite records each named recording of a suite from its call script
// into a temporary folder and compares it with the stored fixture.
func CheckSuite(ctx context.Context, dir string, names []string, secrets []string, harness []string) ([]Drift, error) {
	tmp, err := os.MkdirTemp("", "mcpparity-record-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var drifts []Drift
	for _, name := range names {
		script, err := ReadScript(dir, name)
		if err != nil {
			return drifts, err
		}
		r := SuiteRecording{Dir: dir, Name: name, Script: *script, Secrets: secrets}
		stored := filepath.Join(dir, "fixtures", filepath.FromSlash(r.Fixture()))
		a, err := os.ReadFile(stored)
		if errors.Is(err, fs.ErrNotExist) {
			return drifts, errors.New("--check: no stored fixture " + stored + " (record it first)")
		} else if err != nil {
			return drifts, err
		}
		fresh := filepath.Join(tmp, name+".json")
		if err := RecordSuite(ctx, r, fresh, harness); err != nil {
			return drifts, err
		}
		b, err := os.ReadFile(fresh)
		if err != nil {
			return drifts, err
		}
		if d := Compare(a, b); d != "" {
			drifts = append(drifts, Drift{Fixture: stored, Diff: d})
		}
	}
	return drifts, nil
}
