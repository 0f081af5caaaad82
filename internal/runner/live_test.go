package runner_test

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
)

// TestLiveKindsAreChecked: a live server names a known kind and takes no
// replay field.
func TestLiveKindsAreChecked(t *testing.T) {
	for body, want := range map[string]string{
		`{"servers":{"g":{"live":"gen-nope"}},"steps":[]}`:                            `live is "gen-nope", want one of sse, json, gen-sse, gen-json, gen-stdio`,
		`{"servers":{"g":{"live":"gen-sse","faults":["die:1"]}},"steps":[]}`:          "are for replays, not live servers",
		`{"servers":{"g":{"live":"gen-stdio","stdio":true}},"steps":[]}`:              "are for replays, not live servers",
		`{"servers":{"g":{"live":"gen-json","requireHeaders":{"A":"b"}}},"steps":[]}`: "are for replays, not live servers",
	} {
		fs := fstest.MapFS{"01-live.json": {Data: []byte(body)}}
		if _, err := scenario.LoadScenarios(fs, "."); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %v, want %q", body, err, want)
		}
	}
}

// TestLiveGenServers: the gen server, live over SSE, JSON and stdio, is
// connected by the reference and answers each call what its arguments
// describe.
func TestLiveGenServers(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	sc := &scenario.Scenario{
		Name:    "live-gen",
		Servers: map[string]scenario.ServerSpec{"s": {Live: "gen-sse"}, "j": {Live: "gen-json"}, "o": {Live: "gen-stdio"}},
		Seed:    json.RawMessage(`{"s":{"url":"{url:s}"},"j":{"url":"{url:j}"},"o":{"command":"{cmd:o}","args":["{args:o}"]}}`),
		Steps:   []scenario.Step{{Name: "status", Kind: scenario.KindRequest, Request: scenario.Request{Method: "GET", Path: "/api/mcp"}}},
	}
	args := `{"blocks":[{"type":"text","text":" x","unit":"🙂","repeat":2},{"type":"image","mimeType":"i/p"}],"isError":true}`
	for _, name := range []string{"s", "j", "o"} {
		sc.Steps = append(sc.Steps, scenario.Step{Name: "call " + name, Kind: scenario.KindRequest, Request: scenario.Request{Method: "POST",
			Path: "/internal/facade/v1/mcp/call", Body: json.RawMessage(`{"name":"mcp__` + name + `__gen","args":` + args + `}`)}})
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	obs, _, _, err := runner.RunScenario(ctx, runner.Config{Target: target.RefTarget{}, Harness: []string{exe}}, sc)
	if err != nil {
		t.Fatal(err)
	}
	status, _ := json.Marshal(obs[0].Body)
	if strings.Count(string(status), `"connected":true`) != 3 {
		t.Errorf("status: %s", status)
	}
	for _, o := range obs[1:] {
		body, _ := o.Body.(map[string]any)
		if want := "[l'outil a renvoyé une erreur]\nx🙂🙂\n[image i/p]"; body["output"] != want {
			t.Errorf("%s: output %q, want %q", o.Step, body["output"], want)
		}
	}
}
