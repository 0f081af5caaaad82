package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/recorder"
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
	// SecretsReplaced counts the values of the fixture replaced as secrets.
	SecretsReplaced int
}

// Into records r into its suite folder: the fixture (replaced only once
// the recording succeeded), the call script, and the starting scenario.
// That scenario is written when there is none, and rewritten while it is
// as record wrote it (from the stored fixture, for the calls it makes);
// an edited one is kept.
func Into(ctx context.Context, r SuiteRecording, harness []string) (*Recorded, error) {
	return into(r, func(path string) (*fixtures.Fixture, error) { return recordTo(ctx, r, path, harness) })
}

// Place is Into for a fixture recorded elsewhere (data), e.g. a copy of an
// embedded fixture made with the same calls.
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
	if err := ValidateName(r.Name); err != nil {
		return nil, err
	}
	out := &Recorded{Fixture: filepath.Join(r.Dir, "fixtures", filepath.FromSlash(r.Fixture())), Script: scriptPath(r.Dir, r.Name), Calls: len(r.Script.Calls)}
	path, exists, err := startingFile(r.Dir, r.Name)
	if err != nil {
		return nil, err
	}
	out.Scenario = path
	var current []byte
	written := false // the scenario is as record wrote it
	if exists {
		if current, err = os.ReadFile(path); err != nil {
			return nil, err
		}
		written = asWritten(r, current)
	}
	fx, err := write(out.Fixture)
	if err != nil {
		return nil, err
	}
	out.Manifest = fx.Manifest
	out.SecretsReplaced = recorder.SecretsReplaced(fx)
	if err := writeScript(r.Dir, r.Name, &r.Script); err != nil {
		return nil, err
	}
	fresh, err := encodeStartingScenario(r, fx)
	if err != nil {
		return nil, err
	}
	switch {
	case exists && bytes.Equal(current, fresh):
		out.ScenarioState = "unchanged"
	case exists && !written:
		out.ScenarioState = "kept"
	default:
		out.ScenarioState = "wrote"
		err = writeFile(path, fresh)
	}
	return out, err
}

// asWritten reports whether current is a starting scenario as record
// writes it for r's server, from the suite's stored fixture and some
// calls: those its call steps make.
func asWritten(r SuiteRecording, current []byte) bool {
	var s scenario.Scenario
	if err := json.Unmarshal(current, &s); err != nil {
		return false
	}
	sv, ok := s.Servers[r.Name]
	if !ok {
		return false
	}
	fx, _, err := fixtures.Find(sv.Replay, filepath.Join(r.Dir, "fixtures"))
	if err != nil {
		return false
	}
	old := SuiteRecording{Dir: r.Dir, Name: r.Name, Script: SuiteScript{Calls: callsOf(s.Steps)}}
	if fx.Manifest.Transport == fixtures.TransportHTTP {
		old.Script.Upstream = "http" // only its kind matters: the fixture's name
	}
	data, err := encodeStartingScenario(old, fx)
	return err == nil && bytes.Equal(data, current)
}

// callsOf reads back the calls of a starting scenario's steps: the tool
// from the step's name ("call echo", "call echo (2)"), its arguments from
// the body.
func callsOf(steps []scenario.Step) []Call {
	var calls []Call
	for _, st := range steps {
		tool, ok := strings.CutPrefix(st.Name, "call ")
		if !ok || st.Path != callPath {
			continue
		}
		if i := strings.LastIndex(tool, " ("); i > 0 && strings.HasSuffix(tool, ")") {
			tool = tool[:i]
		}
		var body struct {
			Args map[string]any `json:"args"`
		}
		_ = json.Unmarshal(st.Body, &body)
		calls = append(calls, Call{Tool: tool, Args: body.Args})
	}
	return calls
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
	if err := recordSuite(ctx, r, fresh, harness); err != nil {
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
// scenarios/calls-NAME.json whose NAME is a fixture name.
func SuiteNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(dir, "scenarios"))
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Name(), "calls-")
		if name, ok2 := strings.CutSuffix(name, ".json"); ok && ok2 && ValidateName(name) == nil {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names, nil
}
