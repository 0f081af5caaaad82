package fuzz

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"sync"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/mcpparity/mcpparity/scenarios"
)

// kind is a server a sequence can configure: the scenario server behind
// it, its tools, and the calls it answers (nil: a gen server, whose calls
// are generated).
type kind struct {
	spec  scenario.ServerSpec
	stdio bool
	tools []string
	calls []recordedCall
	// faulty kinds may take faults on their calls (cut streams, expired
	// sessions).
	faulty bool
}

// recordedCall is a call of a call script (scenarios/calls*.json): a
// replay answers these arguments only.
type recordedCall struct {
	Tool string          `json:"tool"`
	Args json.RawMessage `json:"args"`
}

// kindNames are the kinds, in the order the header considers them; each
// is the scenario server's name too. The last four are servers of the
// 2026-07-28 revision (go-sdk, Python and TypeScript SDKs; tsr refuses
// the handshake era), which each era opens its own way.
var kindNames = []string{"gen-sse", "gen-json", "gen-stdio", "sdk-sse", "sdk-json", "sdk-stdio", "edge-sse",
	"go-http", "py-stdio", "ts-stdio", "tsr-http"}

var (
	kindsOnce sync.Once
	kindsMap  map[string]*kind
	kindsErr  error
)

// kinds returns the kinds by name, read once from the embedded fixtures
// and call scripts.
func kinds() (map[string]*kind, error) {
	kindsOnce.Do(func() { kindsMap, kindsErr = loadKinds() })
	return kindsMap, kindsErr
}

func loadKinds() (map[string]*kind, error) {
	sdkCalls, err := loadCalls("calls.json")
	if err != nil {
		return nil, err
	}
	edgeCalls, err := loadCalls("calls-edge.json")
	if err != nil {
		return nil, err
	}
	modernCalls, err := loadCalls("calls-modern.json")
	if err != nil {
		return nil, err
	}
	out := map[string]*kind{
		"gen-sse":   {spec: scenario.ServerSpec{Live: "gen-sse"}, tools: sdkserver.GenTools},
		"gen-json":  {spec: scenario.ServerSpec{Live: "gen-json"}, tools: sdkserver.GenTools},
		"gen-stdio": {spec: scenario.ServerSpec{Live: "gen-stdio"}, tools: sdkserver.GenTools, stdio: true},
		"sdk-sse":   {spec: scenario.ServerSpec{Replay: "sdk/sse.json"}, calls: sdkCalls, faulty: true},
		"sdk-json":  {spec: scenario.ServerSpec{Replay: "sdk/json.json"}, calls: sdkCalls, faulty: true},
		"sdk-stdio": {spec: scenario.ServerSpec{Replay: "sdk/stdio.json", Stdio: true}, calls: sdkCalls, stdio: true},
		"edge-sse":  {spec: scenario.ServerSpec{Replay: "edge/sse.json"}, calls: edgeCalls},
		"go-http":   {spec: scenario.ServerSpec{Replay: "modern/go-http.json"}, calls: modernCalls},
		"py-stdio":  {spec: scenario.ServerSpec{Replay: "modern/py-stdio.json", Stdio: true}, calls: modernCalls, stdio: true},
		"ts-stdio":  {spec: scenario.ServerSpec{Replay: "modern/ts-stdio.json", Stdio: true}, calls: modernCalls, stdio: true},
		"tsr-http":  {spec: scenario.ServerSpec{Replay: "modern/ts-reject-http.json"}, calls: modernCalls},
	}
	for name, k := range out {
		if k.spec.Replay == "" {
			continue
		}
		fx, err := fixtures.Embedded(k.spec.Replay)
		if err != nil {
			return nil, err
		}
		if k.tools = fx.Manifest.Tools; len(k.tools) == 0 {
			return nil, fmt.Errorf("kind %s: fixture %s lists no tools", name, k.spec.Replay)
		}
	}
	return out, nil
}

func loadCalls(file string) ([]recordedCall, error) {
	data, err := fs.ReadFile(scenarios.Files, file)
	if err != nil {
		return nil, err
	}
	var calls []recordedCall
	if err := json.Unmarshal(data, &calls); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return calls, nil
}

// toolFaults are the faults a faulty kind may take: a stream cut once or
// twice (on a call and on its retry), a session that expires under a call.
var toolFaults = [][]string{
	{"cut-stream:tools/call#1"},
	{"cut-stream:tools/call#2"},
	{"session-expired:1"},
	{"session-expired:2"},
	{"cut-stream:tools/call#1", "cut-stream:tools/call#2"},
	{"cut-stream:tools/call#1", "session-expired:3"},
}
