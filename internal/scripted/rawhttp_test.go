package scripted_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/scripted"
	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/mcpparity/mcpparity/replay"
)

// variant is one way of running the conversation, changing one thing.
type variant struct {
	name            string
	header          func(method string, h http.Header) // adjusts a request's headers
	id              func(n int) string                 // the JSON of the n-th request id (from 0); nil: n+1
	bareInitialized bool                               // notifications/initialized without params
	noGET           bool                               // no standalone GET stream
	extra           func(c *rawClient)                 // more requests after tools/list
	afterDelete     bool                               // a call after DELETE
	refused         []string                           // what the replay reports as refused
}

// set and del change one header of the requests of one method.
func set(method, name, value string) func(string, http.Header) {
	return func(m string, h http.Header) {
		if m == method {
			h.Set(name, value)
		}
	}
}

func del(method, name string) func(string, http.Header) {
	return func(m string, h http.Header) {
		if m == method || method == "" {
			h.Del(name)
		}
	}
}

// withSession sends the requests of f with another session id ("" for none).
func withSession(id string, f func(c *rawClient)) func(c *rawClient) {
	return func(c *rawClient) {
		own := c.sid
		c.sid = id
		f(c)
		c.sid = own
	}
}

func listTools(step string) func(c *rawClient) {
	return func(c *rawClient) { c.post(step, bodyWithID(c.nextID(), `"method":"tools/list"`)) }
}

var httpVariants = []variant{
	{name: "as the SDK client"},
	{name: "string ids", id: func(n int) string { return fmt.Sprintf(`"req-%d"`, n) }},
	{name: "ids from 0", id: func(n int) string { return fmt.Sprint(n) }},
	{name: "initialized without params", bareInitialized: true},
	{name: "no protocol-version header", header: del("", "Mcp-Protocol-Version")},
	{name: "charset in Content-Type", header: set(http.MethodPost, "Content-Type", "application/json; charset=utf-8")},
	{name: "Accept */*", header: set(http.MethodPost, "Accept", "*/*")},
	{name: "an unknown session", extra: withSession("raw-unknown-session", listTools("tools/list, unknown session")),
		refused: []string{"request with an unknown Mcp-Session-Id"}},
	{name: "DELETE then a call", afterDelete: true},
	{name: "Accept application/json only", header: set(http.MethodPost, "Accept", "application/json"),
		refused: []string{"POST without text/event-stream in Accept"}},
	{name: "Accept text/event-stream only", header: set(http.MethodPost, "Accept", "text/event-stream"),
		refused: []string{"POST without application/json in Accept"}},
	{name: "no Accept", header: del(http.MethodPost, "Accept"),
		refused: []string{"POST without application/json and text/event-stream in Accept"}},
	{name: "no Content-Type", header: del(http.MethodPost, "Content-Type"),
		refused: []string{"POST without Content-Type application/json"}},
	{name: "GET without Accept", header: del(http.MethodGet, "Accept"),
		refused: []string{"GET without text/event-stream in Accept"}},
	{name: "no GET stream", noGET: true},
	{name: "a batch", extra: func(c *rawClient) {
		c.post("tools/list in a batch", "["+bodyWithID(c.nextID(), `"method":"tools/list"`)+"]")
	}, refused: []string{"POST of a JSON-RPC batch"}},
	{name: "a request without session", extra: withSession("", listTools("tools/list, no session")),
		refused: []string{"request without Mcp-Session-Id after initialize"}},
	{name: "a notification without session", extra: withSession("", func(c *rawClient) {
		c.post("notification, no session", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	})},
}

// initParams are the initialize params of the recorded client.
const initParams = `{"clientInfo":{"name":"mcpparity-ref","version":"1.0.0"},"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}}}`

// converse runs the recorded conversation: initialize, the GET stream,
// initialized, tools/list, every call, DELETE. A refused initialize ends
// it, as it ends a client.
func (c *rawClient) converse(calls []scripted.Call) {
	o, res := c.post("initialize", bodyWithID(c.nextID(), `"method":"initialize","params":`+initParams))
	if o.Status != http.StatusOK || res == nil || res["result"] == nil {
		return
	}
	c.sid = c.session
	c.version, _ = res["result"].(map[string]any)["protocolVersion"].(string)
	if !c.v.noGET {
		c.openGET()
	}
	initialized := `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`
	if c.v.bareInitialized {
		initialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	}
	c.post("initialized", initialized)
	listTools("tools/list")(c)
	if c.v.extra != nil {
		c.v.extra(c)
	}
	for _, call := range calls {
		c.post("call "+call.Tool, callBody(c.nextID(), call))
	}
	c.deleteSession()
	if c.v.afterDelete {
		c.post("call after DELETE", callBody(c.nextID(), calls[0]))
	}
	c.closeGET()
}

func callBody(id string, call scripted.Call) string {
	params, _ := json.Marshal(map[string]any{"name": call.Tool, "arguments": call.Args})
	return bodyWithID(id, `"method":"tools/call","params":`+string(params))
}

func recordedCalls(t testing.TB) []scripted.Call {
	calls, err := scripted.Script(scripted.SDKSets[0])
	if err != nil {
		t.Fatal(err)
	}
	return calls
}

// runLive runs a variant against the live go-sdk server.
func runLive(t *testing.T, mode string, v variant, calls []scripted.Call) []outcome {
	srv := httptest.NewServer(sdkserver.Handler(mode == "json"))
	defer func() { srv.CloseClientConnections(); srv.Close() }()
	c := newRawClient(t, srv.URL+"/mcp", v)
	c.converse(calls)
	return c.outcomes()
}

// runReplay runs a variant against a replay of fx.
func runReplay(t *testing.T, fx *fixtures.Fixture, v variant, calls []scripted.Call) ([]outcome, replay.Report) {
	rp, err := replay.New(fx, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rp)
	defer func() { rp.Close(); srv.CloseClientConnections(); srv.Close() }()
	c := newRawClient(t, srv.URL+"/mcp", v)
	c.converse(calls)
	out := c.outcomes()
	rp.Close()
	return out, rp.Report()
}

func embedded(t testing.TB, name string) *fixtures.Fixture {
	fx, err := fixtures.Embedded(name)
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// TestRawClientHTTP: a client without SDK runs the conversation in each
// variant against the live server and against the replay of its recording;
// both answer each request alike (status, content type, framing, headers,
// events, JSON-RPC result or error), and the replay reports what the
// server refused.
func TestRawClientHTTP(t *testing.T) {
	calls := recordedCalls(t)
	for _, mode := range []string{"sse", "json"} {
		fx := embedded(t, "sdk/"+mode+".json")
		for _, v := range httpVariants {
			t.Run(mode+"/"+v.name, func(t *testing.T) {
				live := runLive(t, mode, v, calls)
				got, rep := runReplay(t, fx, v, calls)
				if d := cmp.Diff(live, got); d != "" {
					t.Errorf("the replay answers otherwise than the live server (-live +replay):\n%s", d)
				}
				if d := cmp.Diff(v.refused, rep.Refused); d != "" {
					t.Errorf("refusals reported (-want +got):\n%s", d)
				}
				if len(rep.Unmatched)+len(rep.HeaderMismatches)+len(rep.MissingAnswers) > 0 {
					t.Errorf("replay report:\n%s", rep.String())
				}
			})
		}
	}
}

// TestRawClientWithoutProbes: the same comparison finds every refusal
// missing from a replay whose recording has no probes (the replays as
// they were).
func TestRawClientWithoutProbes(t *testing.T) {
	calls := recordedCalls(t)
	for _, mode := range []string{"sse", "json"} {
		fx := *embedded(t, "sdk/"+mode+".json")
		fx.Probes = nil
		for _, v := range httpVariants {
			if len(v.refused) == 0 || v.name == "an unknown session" {
				continue // a replay without probes answers an unknown session as go-sdk does
			}
			t.Run(mode+"/"+v.name, func(t *testing.T) {
				live := runLive(t, mode, v, calls)
				got, _ := runReplay(t, &fx, v, calls)
				if cmp.Equal(live, got) {
					t.Error("a replay without probes answers as the live server: the comparison cannot see a refusal")
				}
			})
		}
	}
}
