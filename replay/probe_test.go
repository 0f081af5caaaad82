package replay

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/fixtures/probekind"
)

func embeddedFixture(t *testing.T, name string) *fixtures.Fixture {
	t.Helper()
	fx, err := fixtures.Embedded(name)
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// poolInit is the initialize of the pool the embedded fixtures recorded.
const poolInit = `{"jsonrpc":"2.0","id":"i","method":"initialize","params":{"clientInfo":{"name":"mcpparity-ref","version":"1.0.0"},"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}}}}`

// post sends body with the headers given ("" drops one).
func (h *harness) post(t testing.TB, headers map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequestWithContext(testCtx(t), http.MethodPost, h.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp, readAll(t, resp)
}

// openSession opens a session as the pool did and returns its id.
func (h *harness) openSession(t testing.TB) string {
	t.Helper()
	resp, body := h.post(t, nil, poolInit)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" {
		t.Fatalf("initialize: %d %s", resp.StatusCode, body)
	}
	if resp, _ := h.post(t, map[string]string{"Mcp-Session-Id": sid}, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d", resp.StatusCode)
	}
	return sid
}

// Each server refuses its own things: a wildcard Accept passes go-sdk and
// not the TypeScript SDK; each replay answers as its server did.
func TestProbeAnswersOfEachServer(t *testing.T) {
	cases := []struct {
		fixture, accept string
		status          int
		contentType     string
		body            string
		refused         []string
	}{
		{"sdk/sse.json", "*/*", 200, "text/event-stream", `"serverInfo"`, nil},
		{"everything/http.json", "*/*", 406, "application/json",
			`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Not Acceptable: Client must accept both application/json and text/event-stream"},"id":null}`,
			[]string{"POST with a wildcard in Accept"}},
		{"sdk/json.json", "application/json", 400, "text/plain; charset=utf-8",
			"Accept must contain both 'application/json' and 'text/event-stream'\n", []string{"POST without text/event-stream in Accept"}},
		{"everything/http.json", "text/event-stream", 406, "application/json", "Not Acceptable", []string{"POST without application/json in Accept"}},
		{"sdk/sse.json", "", 400, "text/plain; charset=utf-8", "Accept must contain both",
			[]string{"POST without application/json and text/event-stream in Accept"}},
	}
	for _, c := range cases {
		t.Run(c.fixture+" "+c.accept, func(t *testing.T) {
			h := serve(t, embeddedFixture(t, c.fixture), Options{})
			resp, body := h.post(t, map[string]string{"Accept": c.accept}, poolInit)
			if resp.StatusCode != c.status || resp.Header.Get("Content-Type") != c.contentType || !strings.Contains(body, c.body) {
				t.Errorf("got %d %q %s, want %d %q %s", resp.StatusCode, resp.Header.Get("Content-Type"), body, c.status, c.contentType, c.body)
			}
			rep := h.r.Report()
			if d := cmp.Diff(c.refused, rep.Refused); d != "" {
				t.Errorf("refused (-want +got):\n%s", d)
			}
			if rep.Clean() != (c.refused == nil) || (c.refused != nil && !strings.Contains(rep.String(), "  refused: "+c.refused[0])) {
				t.Errorf("report:\n%s", rep)
			}
		})
	}
}

// A session the replay ended gets the server's unknown-session answer as
// any client would; a session id it never handed out is a refusal.
func TestUnknownAndEndedSessions(t *testing.T) {
	h := serve(t, embeddedFixture(t, "sdk/json.json"), Options{})
	sid := h.openSession(t)
	req, _ := http.NewRequestWithContext(testCtx(t), http.MethodDelete, h.url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err := h.client.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("DELETE: %v %v", resp, err)
	}
	list := `{"jsonrpc":"2.0","id":5,"method":"tools/list"}`
	for _, id := range []string{sid, "never-handed-out"} {
		resp, body := h.post(t, map[string]string{"Mcp-Session-Id": id}, list)
		if resp.StatusCode != http.StatusNotFound || body != "session not found\n" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("session %s: %d %q %v", id, resp.StatusCode, body, resp.Header)
		}
	}
	if d := cmp.Diff([]string{"request with an unknown Mcp-Session-Id"}, h.r.Report().Refused); d != "" {
		t.Errorf("refused (-want +got):\n%s", d)
	}
}

// A probe's answer carries the client's id in place of the probe's, and
// keeps a null id.
func TestProbeAnswerTakesTheClientID(t *testing.T) {
	cases := map[string]string{
		"sdk/json.json":        `{"jsonrpc":"2.0","id":"abc","error":{"code":0,"message":"method \"tools/list\" is invalid during session initialization"}}`,
		"everything/http.json": `{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Server not initialized"},"id":null}`,
	}
	for name, want := range cases {
		t.Run(name, func(t *testing.T) {
			h := serve(t, embeddedFixture(t, name), Options{})
			h.openSession(t)
			resp, body := h.post(t, map[string]string{"Mcp-Protocol-Version": "2025-11-25"}, `{"jsonrpc":"2.0","id":"abc","method":"tools/list"}`)
			if body != want {
				t.Errorf("%d %s\nwant %s", resp.StatusCode, body, want)
			}
		})
	}
}

func TestFaultKinds(t *testing.T) {
	post := []struct {
		contentType, accept, want string
	}{
		{"application/json", "application/json, text/event-stream", ""},
		{"application/json; charset=utf-8", "text/event-stream;q=0.9, APPLICATION/JSON", ""},
		{"", "application/json, text/event-stream", probekind.NoContentType},
		{"text/plain", "application/json, text/event-stream", probekind.NoContentType},
		{"application/json", "application/json", probekind.AcceptJSONOnly},
		{"application/json", "text/event-stream", probekind.AcceptSSEOnly},
		{"application/json", "", probekind.NoAccept},
		{"application/json", "text/html", probekind.NoAccept},
		{"application/json", "*/*", probekind.AcceptWildcard},
		{"application/json", "application/json, text/*", probekind.AcceptWildcard},
		{"application/json", "application/json, application/*", probekind.AcceptJSONOnly},
		{"application/json", "application/*", probekind.NoAccept},
		{"application/json", "text/event-stream, application/*;q=0.5", probekind.AcceptWildcard},
		{"Application/JSON ; charset=UTF-8", "application/json,text/event-stream", ""},
	}
	for _, c := range post {
		h := http.Header{}
		for k, v := range map[string]string{"Content-Type": c.contentType, "Accept": c.accept} {
			if v != "" {
				h.Set(k, v)
			}
		}
		if got := postFault(h); got != c.want {
			t.Errorf("POST %q %q: %q, want %q", c.contentType, c.accept, got, c.want)
		}
	}
	get := map[string]string{"text/event-stream": "", "": probekind.GETNoAccept, "application/json": probekind.GETNoAccept,
		"*/*": probekind.GETAcceptWildcard, "text/*": probekind.GETAcceptWildcard, "application/*": probekind.GETNoAccept}
	for accept, want := range get {
		h := http.Header{}
		if accept != "" {
			h.Set("Accept", accept)
		}
		if got := getFault(h); got != want {
			t.Errorf("GET %q: %q, want %q", accept, got, want)
		}
	}
}
