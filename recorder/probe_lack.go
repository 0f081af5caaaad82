package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"sort"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/fixtures/probekind"
)

// ProbeOptions choose the probes a recording gets.
type ProbeOptions struct {
	// NoToolCalls leaves out the probes that call one of the server's
	// tools (probekind.MissingArguments): the replay then says it
	// could not learn the answer.
	NoToolCalls bool
}

// handshakeVersions are the protocol versions of the handshake era: an
// initialize probe asks for each one the client did not.
var handshakeVersions = []string{"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"}

// lackProbe is a request the conversation may lack, sent after a
// handshake (session) or alone (an initialize of its own).
type lackProbe struct {
	kind    string
	body    []byte
	session bool // sent in an initialized session, not as its handshake
}

// lackProbes are the requests of the lack kinds (probekind.IsLack) for
// a client whose initialize was init, against a server whose tools were
// listed in answers: the requests of a session, then the initializes.
func lackProbes(init []byte, answers []json.RawMessage, opts ProbeOptions) []lackProbe {
	out := []lackProbe{
		{probekind.UnknownMethod, []byte(`{"jsonrpc":"2.0","id":2,"method":"mcpparity/unknown-method","params":{}}`), true},
		{probekind.UnknownTool, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"mcpparity-unknown-tool","arguments":{}}}`), true},
		{probekind.BadParams, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":["mcpparity"],"arguments":"x"}}`), true},
		{probekind.ListCursor, []byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{"cursor":"mcpparity-unknown-cursor"}}`), true},
	}
	if tool := toolWithRequired(answers); tool != "" && !opts.NoToolCalls {
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
			"params": map[string]any{"name": tool, "arguments": map[string]any{}}})
		out = append(out, lackProbe{probekind.MissingArguments, body, true})
	}
	asked := initParam(init, "protocolVersion")
	for _, v := range handshakeVersions {
		if `"`+v+`"` != string(asked) {
			out = append(out, lackProbe{probekind.InitVersion, withInitParam(init, "protocolVersion", `"`+v+`"`), false})
		}
	}
	other := `{}`
	if caps := initParam(init, "capabilities"); len(bytes.Trim(caps, "{} \t\r\n")) == 0 {
		other = `{"roots":{"listChanged":true}}`
	}
	return append(out, lackProbe{probekind.InitCapabilities, withInitParam(init, "capabilities", other), false})
}

// toolWithRequired is the first tool, by name, of the tools/list results
// among answers whose input schema requires a property ("" for none).
func toolWithRequired(answers []json.RawMessage) string {
	var names []string
	for name, required := range fixtures.ListedTools(answers) {
		if len(required) > 0 && name != "" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// initParam is one member of an initialize's params (nil when absent).
func initParam(init []byte, name string) json.RawMessage {
	var m struct {
		Params map[string]json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(init, &m)
	return m.Params[name]
}

// withInitParam is init with one member of its params set to value.
func withInitParam(init []byte, name, value string) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(init, &m) != nil {
		return init
	}
	var params map[string]json.RawMessage
	_ = json.Unmarshal(m["params"], &params)
	if params == nil {
		params = map[string]json.RawMessage{}
	}
	params[name] = json.RawMessage(value)
	m["params"], _ = json.Marshal(params)
	out, _ := json.Marshal(m)
	return out
}

// lackProbes sends the requests of the lack kinds: those of a session in
// a session of their own (ended after), each initialize alone (a session
// it opens is ended).
func (pr *prober) lackProbes(ctx context.Context) error {
	var answers []json.RawMessage
	for _, ex := range pr.p.Recording().Exchanges {
		answers = append(answers, ex.Response.Data()...)
	}
	probes := lackProbes(pr.init, answers, pr.p.probeOpts)
	s, err := pr.open(ctx)
	if err != nil {
		return err
	}
	for _, lp := range probes {
		switch {
		case lp.session && s != nil:
			if err := pr.probe(ctx, lp.kind, http.MethodPost, s.header(pr.header), lp.body); err != nil {
				return err
			}
		case !lp.session:
			if err := pr.probe(ctx, lp.kind, http.MethodPost, pr.header, lp.body); err != nil {
				return err
			}
			if sid := pr.out[len(pr.out)-1].Response.Headers["Mcp-Session-Id"]; sid != "" {
				pr.end(ctx, &probeSession{id: sid})
			}
		}
	}
	if s != nil {
		pr.end(ctx, s)
	}
	return nil
}

// stdioLackProbes sends the requests of the lack kinds to fresh processes,
// one each: after the client's handshake (init and its initialized), or
// an initialize alone.
func stdioLackProbes(ctx context.Context, command string, lines []fixtures.Line, opts ProbeOptions) ([]fixtures.Probe, error) {
	var init []byte
	var answers []json.RawMessage
	for _, l := range lines {
		if l.Dir == fixtures.DirRecv {
			answers = append(answers, l.Message)
		} else if init == nil && slices.ContainsFunc(parseMessages(l.Message, true), func(m message) bool { return m.method == "initialize" }) {
			init = l.Message
		}
	}
	if init == nil {
		return nil, nil
	}
	var out []fixtures.Probe
	for _, lp := range lackProbes(init, answers, opts) {
		send := [][]byte{lp.body}
		if lp.session {
			send = [][]byte{init, []byte(probeNotify), lp.body}
		}
		got, err := Requests(ctx, command, send...)
		if err != nil {
			return nil, err
		}
		out = append(out, fixtures.Probe{Kind: lp.kind, Lines: got})
	}
	return out, nil
}
