package replay

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// recordedCall is a tools/call of a recording, and whether the server
// answered it with a JSON-RPC error (the pool then reconnected and
// retried).
type recordedCall struct {
	params mcp.CallToolParams
	failed bool
}

// conversation is what one recorded client did: the reference pool (the
// handshake era), or the client of the 2026-07-28 revision, from its
// first server/discover on.
type conversation struct {
	client         string
	calls          []recordedCall
	serverRequests int  // server requests (ping, roots/list) it answered
	refused        bool // its initialize was refused
}

// recordedMessage is a message of a recording, with whether it came from
// the client and whether the answer to it was an error.
type recordedMessage struct {
	raw        json.RawMessage
	fromClient bool
	failed     bool
}

// messages lists a recording's messages in order. A request's failure is
// an HTTP status of 400 or more or a JSON-RPC error answer (stdio: the
// answer with its id in its process).
func messages(fx *fixtures.Fixture) []recordedMessage {
	var out []recordedMessage
	for _, ex := range fx.HTTP {
		failed := ex.Response.Status >= 400 || ex.Response.Refused()
		out = append(out, recordedMessage{ex.Request.Body, true, failed})
		for _, ev := range ex.Response.Events {
			out = append(out, recordedMessage{ev.Data, false, false})
		}
	}
	answer := map[string]int{} // process/id -> index of the request
	for _, l := range fx.Stdio {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  json.RawMessage `json:"error"`
		}
		_ = json.Unmarshal(l.Message, &m)
		key := string(rune('0'+l.ProcessOf())) + string(m.ID)
		if l.Dir == fixtures.DirSend && m.Method != "" {
			answer[key] = len(out)
		}
		if i, ok := answer[key]; ok && l.Dir == fixtures.DirRecv && m.Method == "" && len(m.Error) > 0 {
			out[i].failed = true
		}
		out = append(out, recordedMessage{l.Message, l.Dir == fixtures.DirSend, false})
	}
	return out
}

// conversations splits a recording into the pool's conversation and that
// of the client of the 2026-07-28 revision.
func conversations(t *testing.T, fx *fixtures.Fixture) (pool, modern conversation) {
	t.Helper()
	c := &pool
	pending := map[string]bool{} // ids of server requests not answered yet
	for _, mm := range messages(fx) {
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
		if m.Method == "server/discover" && mm.fromClient && c == &pool {
			c = &modern
		}
		switch {
		case m.Method == "tools/call":
			var p mcp.CallToolParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				t.Fatal(err)
			}
			p.Meta = nil
			c.calls = append(c.calls, recordedCall{p, mm.failed})
		case m.Method == "initialize":
			var p struct {
				ClientInfo struct{ Name string } `json:"clientInfo"`
			}
			_ = json.Unmarshal(m.Params, &p)
			c.client = p.ClientInfo.Name
			c.refused = c.refused || mm.failed && c == &pool
		case (m.Method == "ping" || m.Method == "roots/list") && m.ID != nil && !mm.fromClient:
			pending[string(m.ID)] = true
		case m.Method == "" && mm.fromClient && m.Result != nil && pending[string(m.ID)]:
			delete(pending, string(m.ID))
			c.serverRequests++
		}
	}
	return pool, modern
}

// TestEmbeddedRecordings replays every committed recording to the
// clients it holds: a go-sdk client pinned to the handshake era, as the
// reference pool, and a go-sdk client with its default negotiation (the
// 2026-07-28 revision), each making its recorded calls: all answered as
// recorded, nothing left unused.
func TestEmbeddedRecordings(t *testing.T) {
	names := fixtures.List()
	if len(names) == 0 {
		t.Skip("no embedded fixtures yet")
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			fx, err := LoadFixture(name)
			if err != nil {
				t.Fatal(err)
			}
			pool, modern := conversations(t, fx)
			eras := []struct {
				c    conversation
				opts *mcp.ClientSessionOptions
			}{{pool, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}}, {modern, nil}}
			if fx.Manifest.Transport == fixtures.TransportHTTP {
				h := serve(t, fx, Options{})
				answers := 0
				for _, era := range eras {
					answers += era.c.serverRequests
					playConversation(t, era.c, era.opts, func() mcp.Transport {
						return &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: h.client}
					})
				}
				waitFor(t, "server requests answered", func() bool { return h.r.Report().Answers == answers })
				h.r.Close()
				checkReport(t, h.r.Report(), len(pool.calls)+len(modern.calls), answers)
				return
			}
			for i, era := range eras {
				if era.c.client == "" && len(era.c.calls) == 0 {
					continue // a recording of format 1 holds one client
				}
				report := filepath.Join(t.TempDir(), "report.json")
				playConversation(t, era.c, era.opts, func() mcp.Transport {
					return &mcp.CommandTransport{Command: replayCmd(t, "--stdio", "--fixture", name, "--report", report)}
				})
				calls := len(era.c.calls)
				if i == 0 && era.c.refused {
					calls = 0
				}
				checkReport(t, readReport(t, report), calls, era.c.serverRequests)
			}
		})
	}
}

// playConversation connects a client through each new transport and
// makes the conversation's calls; when the pool reconnected before
// retrying a failed call, so does it over HTTP (over stdio, the retry
// goes on the same process: a new one would be served as the first).
func playConversation(t *testing.T, c conversation, opts *mcp.ClientSessionOptions, transport func() mcp.Transport) {
	t.Helper()
	name := c.client
	if name == "" {
		name = "replay-test" // a client of the revision names itself too
	}
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "0.0.1"}, nil)
	ctx := testCtx(t)
	t1 := transport()
	_, stdio := t1.(*mcp.CommandTransport)
	cs, err := client.Connect(ctx, t1, opts)
	if c.refused {
		if err == nil {
			cs.Close()
			t.Fatal("connected where the recorded handshake was refused")
		}
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	defer func() { cs.Close() }()
	listTools(t, ctx, cs)
	for i, rc := range c.calls {
		_, err := cs.CallTool(ctx, &rc.params)
		if (err != nil) != rc.failed {
			t.Fatalf("call %s: %v (recorded as failing: %v)", rc.params.Name, err, rc.failed)
		}
		if rc.failed && !stdio && i+1 < len(c.calls) && c.calls[i+1].params.Name == rc.params.Name {
			cs.Close()
			if cs, err = client.Connect(ctx, transport(), opts); err != nil {
				t.Fatal(err)
			}
			listTools(t, ctx, cs)
		}
	}
}

func listTools(t *testing.T, ctx context.Context, cs *mcp.ClientSession) {
	t.Helper()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatalf("tools/list: %v", err)
	}
}

// checkReport: no problem, nothing unused, the calls and answers counted.
func checkReport(t *testing.T, rep Report, calls, answers int) {
	t.Helper()
	if !rep.Clean() || len(rep.Unused) != 0 || rep.Calls != calls || rep.Answers != answers {
		t.Fatalf("report (want %d calls, %d answers):\n%s", calls, answers, strings.TrimSpace(rep.String()))
	}
}
