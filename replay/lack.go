package replay

import (
	"bytes"
	"encoding/json"
	"strings"
	"sync"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/fixtures/probekind"
)

// lacks is what a recording says of its server beyond its conversation:
// the versions its clients asked for, the tools it listed with their required arguments. An unrecorded request is
// put in a lack kind (probekind.IsLack) from them, and answered as the
// server answered that kind's probe.
type lacks struct {
	once     sync.Once
	msgs     []json.RawMessage   // read at the first unrecorded request
	versions map[string]bool     // asked in recorded initializes
	tools    map[string][]string // tool -> required arguments
}

// newLacks keeps the recorded messages (each client message and answer),
// read when an unrecorded request first needs them.
func newLacks(msgs []json.RawMessage) *lacks {
	return &lacks{msgs: msgs}
}

// load reads the recorded messages, once.
func (l *lacks) load() {
	l.once.Do(l.read)
}

func (l *lacks) read() {
	l.versions, l.tools = map[string]bool{}, fixtures.ListedTools(l.msgs)
	for _, raw := range l.msgs {
		var m struct {
			Method string `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if json.Unmarshal(raw, &m) == nil && m.Method == "initialize" && m.Params.ProtocolVersion != "" {
			l.versions[m.Params.ProtocolVersion] = true
		}
	}
	l.msgs = nil
}

// protocolMethods are the prefixes of the protocol's methods: a server
// may serve one it announced no capability for (go-sdk lists no prompts
// without the capability), so only a method outside them is unknown.
var protocolMethods = []string{"tools/", "resources/", "prompts/", "completion/", "logging/", "ping",
	"initialize", "server/", "notifications/", "sampling/", "elicitation/", "roots/", "tasks/"}

// kindOf is the lack kind of an unrecorded request, and for
// initialize-version the version asked; "" when the recording could not
// have learned its answer (a call of a listed tool with other arguments).
func (l *lacks) kindOf(method string, params json.RawMessage) (kind, version string) {
	l.load()
	switch method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(params, &p) == nil && p.ProtocolVersion != "" && !l.versions[p.ProtocolVersion] {
			return probekind.InitVersion, p.ProtocolVersion
		}
		return probekind.InitCapabilities, ""
	case "tools/call":
		return l.callKind(params), ""
	case "tools/list":
		var p struct {
			Cursor json.RawMessage `json:"cursor"`
		}
		if json.Unmarshal(params, &p) == nil && len(p.Cursor) > 0 && string(p.Cursor) != "null" {
			return probekind.ListCursor, ""
		}
		return "", ""
	}
	for _, prefix := range protocolMethods {
		if strings.HasPrefix(method, prefix) {
			return "", ""
		}
	}
	return probekind.UnknownMethod, ""
}

// callKind puts an unrecorded tools/call in its kind.
func (l *lacks) callKind(params json.RawMessage) string {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil || p == nil {
		return probekind.BadParams
	}
	var name string
	if json.Unmarshal(p["name"], &name) != nil {
		return probekind.BadParams
	}
	args := map[string]json.RawMessage{}
	if raw := bytes.TrimSpace(p["arguments"]); len(raw) > 0 && string(raw) != "null" && json.Unmarshal(raw, &args) != nil {
		return probekind.BadParams
	}
	required, listed := l.tools[name]
	if !listed {
		return probekind.UnknownTool
	}
	for _, r := range required {
		if _, ok := args[r]; !ok {
			return probekind.MissingArguments
		}
	}
	return ""
}

// probeKey is the key of a probe among a fixture's probes: its kind, and
// for initialize-version the version it asked for.
func probeKey(p fixtures.Probe) string {
	if p.Kind == probekind.InitVersion {
		return lackKey(p.Kind, p.AskedVersion())
	}
	return p.Kind
}

// lackKey is the key of a lack probe among a fixture's probes.
func lackKey(kind, version string) string {
	if kind == probekind.InitVersion {
		return kind + " " + version
	}
	return kind
}

// lackText ends the report's text of an unrecorded request: how it was
// answered, or what the recording could not tell.
func lackText(kind, answered string) string {
	switch {
	case answered != "":
		return "; answered as the live server answered " + answered
	case kind != "":
		return "; the fixture holds no answer of the live server to " + fixtures.Probe{Kind: kind}.ProbeRequest() + " (recorded without that probe)"
	}
	return ""
}
