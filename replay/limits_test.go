package replay

import (
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestStdioLineLimit: a line over the limit (8 MiB by default) is dropped
// as it is read, the client is told why, and the replay goes on.
func TestStdioLineLimit(t *testing.T) {
	p := startStdio(t, Options{})
	go func() {
		chunk := strings.Repeat("a", 64<<10)
		for i := 0; i < (8<<20)/len(chunk)+1; i++ {
			if _, err := io.WriteString(p.w, chunk); err != nil {
				return
			}
		}
		io.WriteString(p.w, "\n")
	}()
	got := p.recv(t)
	if !strings.Contains(got, `"id":null`) || !strings.Contains(got, "over the limit of 8388608 bytes") || !strings.Contains(got, "--max-line") {
		t.Fatalf("answer to a long line: %.300s", got)
	}
	p.send(t, `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`)
	if got := p.recv(t); !strings.Contains(got, "Echo: hello") {
		t.Fatalf("the replay does not go on after a long line: %.300s", got)
	}
	rep := p.end(t)
	if len(rep.Unmatched) != 1 || !strings.Contains(rep.Unmatched[0].Message, "over the limit") {
		t.Fatalf("report:\n%s", rep.String())
	}
}

// TestHTTPSessionsBounded: past 1000 live sessions (the default) the least
// recently used is evicted: its client gets 404, as from a restarted
// server, and the report counts it.
func TestHTTPSessionsBounded(t *testing.T) {
	h := serve(t, withoutDiscover(load(t, "json.json")), Options{})
	var ids []string
	for i := 0; i < 1002; i++ {
		resp := h.rawPost(t, "", rawInit)
		readAll(t, resp)
		ids = append(ids, resp.Header.Get("Mcp-Session-Id"))
		if i == 2 {
			// The first session is used once the third exists: the
			// second and the third are then the least recently used.
			resp := h.rawPost(t, ids[0], `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			readAll(t, resp)
		}
	}
	status := func(sid string) int {
		resp := h.rawPost(t, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		readAll(t, resp)
		return resp.StatusCode
	}
	for i, want := range map[int]int{0: http.StatusAccepted, 1: http.StatusNotFound, 2: http.StatusNotFound, 3: http.StatusAccepted, 1001: http.StatusAccepted} {
		if got := status(ids[i]); got != want {
			t.Errorf("session %d: %d, want %d", i+1, got, want)
		}
	}
	if rep := h.r.Report(); rep.Evicted != 2 {
		t.Errorf("report counts %d evicted sessions, want 2:\n%s", rep.Evicted, rep.String())
	}
	h.r.smu.Lock()
	n := len(h.r.sessions)
	h.r.smu.Unlock()
	if n != 1000 {
		t.Errorf("%d live sessions, want 1000", n)
	}
}
