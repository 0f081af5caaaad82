package replay

import (
	"net/http"
	"strings"
	"testing"
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
