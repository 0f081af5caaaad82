package replay

import (
	"net/http"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
)

// TestOutsideRevision: a GET or a DELETE naming the 2026-07-28 revision
// is answered as recorded and reported unmatched, naming the request; the
// same requests of the handshake era are not reported.
func TestOutsideRevision(t *testing.T) {
	for _, c := range []struct {
		method, version string
		reported        bool
	}{
		{http.MethodGet, "2026-07-28", true},
		{http.MethodDelete, "2026-07-28", true},
		{http.MethodGet, "2025-11-25", false},
		{http.MethodDelete, "", false},
	} {
		h := serve(t, load(t, "sse.json"), Options{})
		req, _ := http.NewRequestWithContext(testCtx(t), c.method, h.url, nil)
		req.Header.Set("Accept", "text/event-stream")
		if c.version != "" {
			req.Header.Set("Mcp-Protocol-Version", c.version)
		}
		resp, err := h.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		want := c.method + " /mcp of the 2026-07-28 revision, which has no standalone stream and no session to end"
		got := h.r.Report().String()
		if strings.Contains(got, want) != c.reported {
			t.Errorf("%s with version %q: reported %v, want %v:\n%s", c.method, c.version, !c.reported, c.reported, got)
		}
	}
}

// TestRevisionMeta: a request of the revision matches on its whole _meta
// but for clientInfo's values; a request of the handshake era ignores its
// _meta (a progress token, say).
func TestRevisionMeta(t *testing.T) {
	m, err := newMatcher(DefaultIgnorePaths)
	if err != nil {
		t.Fatal(err)
	}
	key := func(meta string) string {
		k, _, err := m.key("tools/list", []byte(`{"_meta":`+meta+`}`))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	const caps = `"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}}`
	const version = `"io.modelcontextprotocol/protocolVersion":"2026-07-28"`
	ref := key(`{` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":"a","version":"1"},` + version + `}`)
	for _, c := range []struct {
		meta string
		same bool
	}{
		{`{` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":"b","version":"2.0"},` + version + `}`, true},
		{`{` + caps + `,` + version + `}`, false},
		{`{` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":"","version":"1"},` + version + `}`, false},
		{`{"io.modelcontextprotocol/clientCapabilities":{"roots":{}},"io.modelcontextprotocol/clientInfo":{"name":"a","version":"1"},` + version + `}`, false},
		{`{` + caps + `,"io.modelcontextprotocol/clientInfo":{"name":"a","version":"1"},"progressToken":1,` + version + `}`, false},
	} {
		if got := key(c.meta) == ref; got != c.same {
			t.Errorf("_meta %s: same key %v, want %v", c.meta, got, c.same)
		}
	}
	if key(`{"progressToken":1}`) != key(`{}`) {
		t.Error("a _meta of the handshake era is matched")
	}
}

// TestNotificationHeaders: over HTTP, a notification naming the revision
// needs its Mcp-Method (400 otherwise, as a go-sdk server answers), and
// the cancellation of a request of the revision names that request's
// version; both are reported. The same in the handshake era is not.
func TestNotificationHeaders(t *testing.T) {
	fx, err := LoadFixture("modern/go-http.json")
	if err != nil {
		t.Fatal(err)
	}
	const meta = `"_meta":{"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	for _, c := range []struct {
		name     string
		version  string // of the cancelled request; "" for none sent
		headers  map[string]string
		status   int
		reported string
	}{
		{"right headers", "2026-07-28", map[string]string{"Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "notifications/cancelled"}, http.StatusAccepted, ""},
		{"no headers", "2026-07-28", nil, http.StatusBadRequest, `MCP-Protocol-Version "", want "2026-07-28"`},
		{"no Mcp-Method", "2026-07-28", map[string]string{"Mcp-Protocol-Version": "2026-07-28"}, http.StatusBadRequest, `Mcp-Method "", want "notifications/cancelled"`},
		{"handshake era", "", nil, http.StatusAccepted, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := serve(t, fx, Options{})
			first := `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"t","version":"1"}}}`
			var headers map[string]string
			if c.version != "" {
				first = `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{` + meta + `}}`
				headers = map[string]string{"Mcp-Protocol-Version": c.version, "Mcp-Method": "tools/list"}
			}
			if resp, _ := h.post(t, headers, first); resp.StatusCode != http.StatusOK {
				t.Fatalf("the request cancelled: %s", resp.Status)
			}
			resp, _ := h.post(t, c.headers, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"x"}}`)
			if resp.StatusCode != c.status {
				t.Errorf("status %d, want %d", resp.StatusCode, c.status)
			}
			got := h.r.Report().String()
			if c.reported == "" && strings.Contains(got, "unmatched") || c.reported != "" && !strings.Contains(got, c.reported) {
				t.Errorf("report, want %q:\n%s", c.reported, got)
			}
		})
	}
}

// TestDiscoverAnswers: each answer of a discover fault, built on the
// recorded result (its serverInfo kept).
func TestDiscoverAnswers(t *testing.T) {
	d := newDiscovery()
	d.add(fixtures.Response{Body: []byte(`{"jsonrpc":"2.0","id":1,"result":{"supportedVersions":["2026-07-28","2025-11-25"],"_meta":{"s":1}}}`)})
	for answer, want := range map[string]string{
		DiscoverNoVersions:           `{"id":7,"jsonrpc":"2.0","result":{"_meta":{"s":1}}}`,
		DiscoverOlder:                `{"id":7,"jsonrpc":"2.0","result":{"_meta":{"s":1},"supportedVersions":["2025-11-25","2025-06-18"]}}`,
		DiscoverReordered:            `{"id":7,"jsonrpc":"2.0","result":{"_meta":{"s":1},"supportedVersions":["2025-06-18","2025-11-25","2026-07-28"]}}`,
		DiscoverMalformed:            `{"id":7,"jsonrpc":"2.0","result":{"_meta":{"s":1},"supportedVersions":[20260728,"2026-07-28"]}}`,
		DiscoverUnsupported:          `{"error":{"code":-32022,"data":{"requested":"2026-07-28","supported":["2026-07-28"]},"message":"Unsupported protocol version"},"id":7,"jsonrpc":"2.0"}`,
		DiscoverUnsupportedOld:       `{"error":{"code":-32022,"data":{"requested":"2026-07-28","supported":["2025-11-25","2025-06-18"]},"message":"Unsupported protocol version"},"id":7,"jsonrpc":"2.0"}`,
		DiscoverUnsupportedMixed:     `{"error":{"code":-32022,"data":{"requested":"2026-07-28","supported":["2025-11-25","2026-07-28"]},"message":"Unsupported protocol version"},"id":7,"jsonrpc":"2.0"}`,
		DiscoverUnsupportedNewer:     `{"error":{"code":-32022,"data":{"requested":"2026-07-28","supported":["2027-01-01"]},"message":"Unsupported protocol version"},"id":7,"jsonrpc":"2.0"}`,
		DiscoverOtherError:           `{"error":{"code":-32602,"data":{"requested":"2026-07-28","supported":["2026-07-28"]},"message":"Unsupported protocol version"},"id":7,"jsonrpc":"2.0"}`,
		DiscoverUnsupportedMalformed: `{"error":{"code":-32022,"data":{"requested":"2026-07-28","supported":[20260728,"2026-07-28"]},"message":"Unsupported protocol version"},"id":7,"jsonrpc":"2.0"}`,
		DiscoverUnsupported400:       `{"error":{"code":-32022,"data":{"requested":"2026-07-28","supported":["2026-07-28"]},"message":"Unsupported protocol version"},"id":7,"jsonrpc":"2.0"}`,
	} {
		if got := string(d.answer(answer, []byte("7"))); got != want {
			t.Errorf("%s:\n got %s\nwant %s", answer, got, want)
		}
	}
	if len(DiscoverAnswers) != 11 {
		t.Errorf("%d answers, the test knows 11", len(DiscoverAnswers))
	}
}

// TestCancelParams: a cancellation names its request, with a reason at
// most; a _meta (what a client of the revision adds to its requests) is
// reported.
func TestCancelParams(t *testing.T) {
	for params, want := range map[string]string{
		`{"requestId":3,"reason":"x"}`: "",
		`{"requestId":"a"}`:            "",
		`{"reason":"x"}`:               "no requestId",
		`[1]`:                          "params are not an object",
		`{"requestId":3,"reason":"x","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`: "params other than requestId and reason: _meta",
	} {
		if got := cancelParams([]byte(params)); got != want {
			t.Errorf("%s: %q, want %q", params, got, want)
		}
	}
}
