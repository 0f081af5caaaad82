package replay

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

const benchCall = `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"test_simple_text","arguments":{}}}`

func benchPost(b *testing.B, client *http.Client, url, session string) {
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(benchCall))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		b.Fatalf("status %d", resp.StatusCode)
	}
}

// BenchmarkCannedFloor is the floor: a bare loopback handler answering
// canned bytes.
func BenchmarkCannedFloor(b *testing.B) {
	canned := []byte(`{"jsonrpc":"2.0","id":4,"result":{"content":[{"type":"text","text":"This is a simple text response for testing."}]}}`)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(canned)
	}))
	defer srv.Close()
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	b.ReportAllocs()
	for b.Loop() {
		benchPost(b, client, srv.URL+"/mcp", "")
	}
}

// BenchmarkReplayRawCall posts one recorded tools/call to the replay (JSON
// fixture; past the first call the recorded answer repeats).
func BenchmarkReplayRawCall(b *testing.B) {
	for _, fx := range []string{"json.json", "sse.json"} {
		b.Run(strings.TrimSuffix(fx, ".json"), func(b *testing.B) {
			h := serve(b, load(b, fx), Options{})
			sid := h.rawConnect(b)
			b.ReportAllocs()
			for b.Loop() {
				benchPost(b, h.client, h.url, sid)
			}
		})
	}
}
