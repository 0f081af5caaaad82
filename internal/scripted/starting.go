package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/scenario"
)

// startingScenario is the scenario written for a new fixture of a
// suite: its server replayed from the fixture, then the status, the
// tools, each call of the script, and the replay's report.
func startingScenario(r SuiteRecording, fx *fixtures.Fixture) (*scenario.Scenario, error) {
	name := r.Name
	stdio := fx.Manifest.Transport == fixtures.TransportStdio
	sv := scenario.ServerSpec{Replay: r.Fixture(), Stdio: stdio}
	seed := map[string]any{"url": "{url:" + name + "}"}
	statusRules, replaysRules := []string{"P5.1", "P6.5"}, []string{"P1.1", "S1.1"}
	if stdio {
		seed = map[string]any{"command": "{cmd:" + name + "}", "args": []string{"{args:" + name + "}"}}
		statusRules, replaysRules = []string{"P5.1", "P6.1"}, []string{"P1.1", "P6.2", "S1.1"}
	}
	rawSeed, err := json.Marshal(map[string]any{name: seed})
	if err != nil {
		return nil, err
	}
	s := &scenario.Scenario{
		Description: fmt.Sprintf("%s, recorded over %s by mcpparity record, replayed: the status, its %d tool(s), then the %d call(s) of %s.",
			fx.Manifest.Server, fx.Manifest.Transport, fx.Manifest.ToolCount, len(r.Script.Calls), filepath.Base(scriptPath("", name))),
		Servers: map[string]scenario.ServerSpec{name: sv},
		Seed:    rawSeed,
		Steps: []scenario.Step{
			{Name: "status", Kind: scenario.KindRequest, Rules: statusRules, Request: scenario.Request{Method: "GET", Path: "/api/mcp"}},
			{Name: "tools", Kind: scenario.KindRequest, Rules: []string{"P8.2", "P8.3", "P8.4"},
				Request: scenario.Request{Method: "POST", Path: "/internal/facade/v1/mcp/tools", Body: json.RawMessage("{}")}},
		},
	}
	seen := map[string]int{}
	for _, c := range r.Script.Calls {
		body, err := json.Marshal(struct {
			Name string         `json:"name"`
			Args map[string]any `json:"args"`
		}{impl.ExposedName(name, c.Tool), orEmpty(c.Args)})
		if err != nil {
			return nil, err
		}
		step := "call " + c.Tool
		if seen[c.Tool]++; seen[c.Tool] > 1 {
			step += " (" + strconv.Itoa(seen[c.Tool]) + ")"
		}
		s.Steps = append(s.Steps, scenario.Step{Name: step, Kind: scenario.KindRequest, Rules: []string{"P11.1"},
			Request: scenario.Request{Method: "POST", Path: callPath, Body: body}})
	}
	s.Steps = append(s.Steps, scenario.Step{Name: "replays", Kind: scenario.KindReplays, Rules: replaysRules})
	return s, nil
}

// callPath is the contract's route of a call.
const callPath = "/internal/facade/v1/mcp/call"

func orEmpty(args map[string]any) map[string]any {
	if args == nil {
		return map[string]any{}
	}
	return args
}

// encodeStartingScenario is the starting scenario's file content.
func encodeStartingScenario(r SuiteRecording, fx *fixtures.Fixture) ([]byte, error) {
	s, err := startingScenario(r, fx)
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// startingFile is the starting scenario of a recording: the suite's
// scenario NN-NAME.json when there is one (exists), else where it goes,
// NN one more than the suite's highest number.
func startingFile(dir, name string) (path string, exists bool, err error) {
	scenarios := filepath.Join(dir, "scenarios")
	entries, err := os.ReadDir(scenarios)
	if err != nil && !os.IsNotExist(err) {
		return "", false, err
	}
	highest := 0
	for _, e := range entries {
		n, rest := leadingNumber(e.Name())
		if len(rest) < len(e.Name()) { // a scenario: its name starts with a digit
			if rest == "-"+name+".json" {
				return filepath.Join(scenarios, e.Name()), true, nil
			}
			highest = max(highest, n)
		}
	}
	return filepath.Join(scenarios, fmt.Sprintf("%02d-%s.json", highest+1, name)), false, nil
}

// leadingNumber splits "12-files.json" into 12 and "-files.json".
func leadingNumber(name string) (int, string) {
	i := 0
	for i < len(name) && name[i] >= '0' && name[i] <= '9' {
		i++
	}
	n, _ := strconv.Atoi(name[:i])
	return n, name[i:]
}
