package replay

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordedCalls lists the tools/call params of a recording, in order, and
// the client name it used.
func recordedCalls(t *testing.T, fx *fixtures.Fixture) (client string, calls []mcp.CallToolParams, serverRequests int) {
	t.Helper()
	var msgs []json.RawMessage
	for _, ex := range fx.HTTP {
		msgs = append(msgs, ex.Request.Body)
		for _, ev := range ex.Response.Events {
			msgs = append(msgs, ev.Data)
		}
	}
	for _, l := range fx.Stdio {
		msgs = append(msgs, l.Message)
	}
	for _, raw := range msgs {
		if len(raw) == 0 {
			continue
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatal(err)
		}
		switch m.Method {
		case "tools/call":
			var p mcp.CallToolParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				t.Fatal(err)
			}
			calls = append(calls, p)
		case "initialize":
			var p struct {
				ClientInfo struct{ Name string } `json:"clientInfo"`
			}
			_ = json.Unmarshal(m.Params, &p)
			client = p.ClientInfo.Name
		case "ping", "roots/list":
			if m.ID != nil {
				serverRequests++
			}
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
				exe, _ := os.Executable()
				cmd := exec.Command(exe)
				cmd.Env = append(os.Environ(), envStdioFixture+"="+name, envStdioReport+"="+report)
				cs, err = c.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
			}
			if err != nil {
				t.Fatal(err)
			}
			tools, err := cs.ListTools(ctx, nil)
			if err != nil || len(tools.Tools) != fx.Manifest.ToolCount {
				t.Fatalf("tools/list: %v (%d tools)", err, len(tools.Tools))
			}
			for _, p := range calls {
				if _, err := cs.CallTool(ctx, &p); err != nil {
					t.Fatalf("call %s: %v", p.Name, err)
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
