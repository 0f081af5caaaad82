package fuzz

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf16"

	"github.com/mcpparity/mcpparity/golden"
	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/scenario"
)

// Written are the files a finding was written to.
type Written struct {
	Scenario, Golden string
}

// Write writes a scenario and the reference's observations of it in era
// into a suite folder laid out as the repository: DIR/scenarios/NAME.json,
// DIR/golden/NAME.golden, and DIR/golden/NAME.<era>.golden for another
// era than the handshake one where they differ from shared, the
// reference's observations in the handshake era (the fixtures it names
// are the embedded recordings: none is written). The scenario written is
// read back as check reads scenarios, so that a file that would not load
// is never left as a finding.
func Write(dir string, sc *scenario.Scenario, era string, observed, shared []byte) (Written, error) {
	w := Written{
		Scenario: filepath.Join(dir, "scenarios", sc.Name+".json"),
		Golden:   golden.Path(dir, sc.Name, ""),
	}
	raw, err := encodeScenario(sc)
	if err != nil {
		return w, err
	}
	files := map[string][]byte{w.Scenario: raw, w.Golden: observed}
	if era != "" && era != impl.EraHandshake && !bytes.Equal(observed, shared) {
		files[w.Golden] = shared
		w.Golden = golden.Path(dir, sc.Name, era)
		files[w.Golden] = observed
	}
	for path, data := range files {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return w, err
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return w, err
		}
	}
	all, err := scenario.LoadScenarios(os.DirFS(dir), "scenarios")
	if err != nil {
		return w, fmt.Errorf("the scenario written does not load: %w", err)
	}
	for _, s := range all {
		if s.Name == sc.Name {
			return w, nil
		}
	}
	return w, fmt.Errorf("%s: not read as a scenario (its name must start with a digit)", w.Scenario)
}

// encodeScenario writes sc as the scenario files are written: indented
// JSON, characters as they are, except those one cannot see (white
// space but the space, invisible and control characters), escaped.
func encodeScenario(sc *scenario.Scenario) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sc); err != nil {
		return nil, err
	}
	// Outside its strings JSON is ASCII: every such character is in one.
	var out strings.Builder
	for _, r := range buf.String() {
		switch {
		case r < 0x7f || r >= 0x80 && unicode.IsGraphic(r) && !unicode.IsSpace(r):
			out.WriteRune(r)
		case r > 0xffff:
			a, b := utf16.EncodeRune(r)
			fmt.Fprintf(&out, `\u%04x\u%04x`, a, b)
		default:
			fmt.Fprintf(&out, `\u%04x`, r)
		}
	}
	return []byte(out.String()), nil
}

// JSON is the machine-readable form of a run (fuzz --json).
type JSON struct {
	Target    string       `json:"target"`
	Era       string       `json:"era,omitempty"` // every sequence's, when one was set
	Seed      uint64       `json:"seed"`
	Sequences int          `json:"sequences"`
	Steps     int          `json:"steps"`
	Elapsed   string       `json:"elapsed"`
	Finding   *jsonFinding `json:"finding,omitempty"`
}

// jsonFinding is a finding in JSON.
type jsonFinding struct {
	Seed          uint64         `json:"seed"`
	Era           string         `json:"era"`
	Sequence      int            `json:"sequence"`
	OriginalSteps int            `json:"originalSteps"`
	Steps         int            `json:"steps"`
	ShrinkRuns    int            `json:"shrinkRuns"`
	FoundAfter    string         `json:"foundAfter"`
	Scenario      string         `json:"scenario,omitempty"`
	Golden        string         `json:"golden,omitempty"`
	Diffs         []compare.Diff `json:"diffs"`
}

// JSONReport is rep in JSON; written is where its finding went (nil if
// none was written).
func JSONReport(target string, rep *Report, written *Written) JSON {
	out := JSON{Target: target, Seed: rep.Seed, Sequences: rep.Sequences, Steps: rep.Steps, Elapsed: rep.Elapsed.String()}
	if f := rep.Finding; f != nil {
		out.Finding = &jsonFinding{Seed: f.Seed, Era: f.Shrunk.Era, Sequence: f.Sequence, OriginalSteps: len(f.Original.Scenario.Steps),
			Steps: len(f.Shrunk.Scenario.Steps), ShrinkRuns: f.ShrinkRuns, FoundAfter: f.FoundAfter.String(), Diffs: f.Outcome.Result.Diffs}
		if written != nil {
			out.Finding.Scenario, out.Finding.Golden = written.Scenario, written.Golden
		}
	}
	return out
}
