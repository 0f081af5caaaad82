package replay

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
)

// rebindingFixture holds two initialize requests with the same body: one
// from a client that reached the server by its own address (200), one that
// sent a foreign Host and Origin (403), recorded in that order.
func rebindingFixture() *fixtures.Fixture {
	body := json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`)
	return &fixtures.Fixture{Format: fixtures.FormatVersion,
		Manifest: fixtures.Manifest{Name: "rebinding", Transport: fixtures.TransportHTTP, Tools: []string{}},
		HTTP: []fixtures.Exchange{
			{Seq: 1, Request: fixtures.Request{Method: "POST", Path: "/mcp", Body: body},
				Response: fixtures.Response{Status: 200, ContentType: "application/json",
					Body: json.RawMessage(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"s","version":"1"}}}`)}},
			{Seq: 2, Request: fixtures.Request{Method: "POST", Path: "/mcp", Body: body,
				Headers: map[string]string{"Host": "evil.example.com", "Origin": "http://evil.example.com"}},
				Response: fixtures.Response{Status: 403, ContentType: "text/plain; charset=utf-8", Text: "Forbidden: invalid Host header \"evil.example.com\"\n"}},
		},
	}
}

// TestForeignHostMatchedByHeader: the replay tells the two initialize
// requests apart by Host and Origin, not by their order.
func TestForeignHostMatchedByHeader(t *testing.T) {
	h := serve(t, rebindingFixture(), Options{})
	post := func(host string) *http.Response {
		req, _ := http.NewRequestWithContext(testCtx(t), http.MethodPost, h.url,
			strings.NewReader(`{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if host != "" {
			req.Host = host
			req.Header.Set("Origin", "http://"+host)
		} else {
			req.Header.Set("Origin", "http://"+req.URL.Host)
		}
		resp, err := h.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	resp := post("evil.example.com")
	if body := readAll(t, resp); resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "evil.example.com") {
		t.Fatalf("foreign Host first: %d %q, want the recorded 403", resp.StatusCode, body)
	}
	resp = post("")
	if body := readAll(t, resp); resp.StatusCode != http.StatusOK || !strings.Contains(body, `"id":7`) {
		t.Fatalf("own Host: %d %q, want the recorded 200", resp.StatusCode, body)
	}
	_, port, _ := net.SplitHostPort(h.srv.Listener.Addr().String())
	resp = post("localhost:" + port)
	if readAll(t, resp); resp.StatusCode != http.StatusOK {
		t.Fatalf("localhost with the replay's port: %d, want 200 (it names the replay)", resp.StatusCode)
	}
	rep := h.r.Report()
	if len(rep.Unused) != 0 || !rep.Clean() {
		t.Fatalf("report:\n%s", rep.String())
	}
	// A foreign Host the recording does not hold is unmatched, and the
	// error says why.
	resp = post("other.example.com")
	if body := readAll(t, resp); !strings.Contains(body, "differing at its Host or Origin header") {
		t.Fatalf("unrecorded foreign Host: %d %s", resp.StatusCode, body)
	}
}
