package replay

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordedCalls lists the tools/call params of a recording, in order, the
// client name it used, and how many server requests (ping, roots/list) the
// recorded client answered.
// recordedCall is a tools/call of a recording, and whether the server
// answered it with a JSON-RPC error (the client then reconnected and
// retried, as the pool does).
type recordedCall struct {
	params mcp.CallToolParams
	failed bool
}

func recordedCalls(t *testing.T, fx *fixtures.Fixture) (client string, calls []recordedCall, serverRequests int) {
	t.Helper()
	type msg struct {
		raw        json.RawMessage
		fromClient bool
		failed     bool // the request's recorded answer is an error
	}
	var msgs []msg
	for _, ex := range fx.HTTP {
		failed := false
		for _, ev := range ex.Response.Events {
			var a struct {
				Error json.RawMessage `json:"error"`
			}
			_ = json.Unmarshal(ev.Data, &a)
			failed = failed || len(a.Error) > 0
		}
		msgs = append(msgs, msg{ex.Request.Body, true, failed})
		for _, ev := range ex.Response.Events {
			msgs = append(msgs, msg{ev.Data, false, false})
		}
	}
	for _, l := range fx.Stdio {
		msgs = append(msgs, msg{l.Message, l.Dir == fixtures.DirSend, false})
	}
	pending := map[string]bool{} // ids of server requests not answered yet
	for _, mm := range msgs {
		if len(mm.raw) == 0 || mm.raw[0] != '{' {
			continue // no message, or an event's empty data (a TypeScript SDK server's priming event)
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if err := json.Unmarshal(mm.raw, &m); err != nil {
			t.Fatal(err)
		}
		switch {
		case m.Method == "tools/call":
			var p mcp.CallToolParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				t.Fatal(err)
			}
			calls = append(calls, recordedCall{p, mm.failed})
		case m.Method == "initialize":
			var p struct {
				ClientInfo struct{ Name string } `json:"clientInfo"`
			}
			_ = json.Unmarshal(m.Params, &p)
			client = p.ClientInfo.Name
		case (m.Method == "ping" || m.Method == "roots/list") && m.ID != nil && !mm.fromClient:
			pending[string(m.ID)] = true
		case m.Method == "" && mm.fromClient && m.Result != nil && pending[string(m.ID)]:
			delete(pending, string(m.ID))
			serverRequests++
		}
	}
	if client == "" {
		client = "mcpparity-test"
	}
	return client, calls, serverRequests
}

// TestEmbeddedRecordings replays every committed recording to a go-sdk
// client making the recorded calls: all answered, nothing left unused.
func TestEmbeddedRecordings(t *testing.T) {
	names := fixtures.List()
	if len(names) == 0 {
		t.Skip("no embedded recordings yet")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			fx, err := LoadFixture(name)
			if err != nil {
				t.Fatal(err)
			}
			client, calls, serverRequests := recordedCalls(t, fx)
			c := mcp.NewClient(&mcp.Implementation{Name: client, Version: "0.0.1"}, nil)
			ctx := testCtx(t)
			var cs *mcp.ClientSession
			var h *harness
			report := filepath.Join(t.TempDir(), "report.json")
			if fx.Manifest.Transport == fixtures.TransportHTTP {
				h = serve(t, fx, Options{})
				cs, err = c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: h.client}, nil)
			} else {
				cmd := replayCmd(t, "--stdio", "--fixture", name, "--report", report)
				cs, err = c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != fx.Manifest.ToolCount {
				t.Fatalf("tools/list: %v (%d tools)", err, len(tools.Tools))
			}
			for i, rc := range calls {
				_, err := cs.CallTool(ctx, &rc.params)
				if (err != nil) != rc.failed {
					t.Fatalf("call %s: %v (recorded as failing: %v)", rc.params.Name, err, rc.failed)
				}
				if rc.failed && i+1 < len(calls) && calls[i+1].params.Name == rc.params.Name {
					// The recorded client reconnected before its retry.
					cs.Close()
					if cs, err = c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: h.client}, nil); err != nil {
						t.Fatal(err)
					}
					if _, err := cs.ListTools(ctx, nil); err != nil {
						t.Fatal(err)
					}
				}
			}
			var rep Report
			if h != nil {
				waitFor(t, "server requests answered", func() bool { return h.r.Report().Answers == serverRequests })
				cs.Close()
				h.r.Close()
				rep = h.r.Report()
			} else {
				cs.Close()
				rep = readReport(t, report)
			}
			if !rep.Clean() || len(rep.Unused) != 0 || rep.Calls != len(calls) || rep.Answers != serverRequests {
				t.Fatalf("report:\n%s", rep.String())
			}
		})
	}
}
