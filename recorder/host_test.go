package recorder_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/recorder"
)

// TestProxyForwardsForeignHost: the upstream answers a client's foreign
// Host and Origin as it would directly (the go-sdk server's DNS-rebinding
// check: 403), the usual ones naming the proxy reach it as its own; the
// fixture keeps only the foreign ones.
func TestProxyForwardsForeignHost(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	wrap := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen = append(seen, r.Host+" "+r.Header.Get("Origin"))
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	}
	upstream := startUpstream(t, true, wrap)
	p, endpoint := startProxy(t, upstream)
	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	var sid string
	post := func(host string) int {
		req, _ := http.NewRequestWithContext(testContext(t), http.MethodPost, endpoint,
			strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if host == "" {
			host = req.URL.Host
		}
		req.Host = host
		req.Header.Set("Origin", "http://"+host)
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
			sid = id
		}
		return resp.StatusCode
	}
	if code := post("evil.example.com"); code != http.StatusForbidden {
		t.Errorf("foreign Host through the proxy: %d, want 403 (as directly)", code)
	}
	if code := post(""); code != http.StatusOK {
		t.Errorf("the proxy's own Host: %d, want 200", code)
	}
	// End the upstream's session.
	del, _ := http.NewRequestWithContext(testContext(t), http.MethodDelete, endpoint, nil)
	del.Header.Set("Mcp-Session-Id", sid)
	if resp, err := client.Do(del); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	p.Close()
	upHost := strings.TrimSuffix(strings.TrimPrefix(upstream, "http://"), "/mcp")
	mu.Lock()
	want := []string{"evil.example.com http://evil.example.com", upHost + " http://" + upHost, upHost + " "}
	if strings.Join(seen, "|") != strings.Join(want, "|") {
		t.Errorf("upstream saw Host and Origin %q, want %q", seen, want)
	}
	mu.Unlock()

	f, err := recorder.Build(p.Recording(), recorder.Config{Name: "rebinding"})
	if err != nil {
		t.Fatal(err)
	}
	if h := f.HTTP[0].Request.Headers; h["Host"] != "evil.example.com" || h["Origin"] != "http://evil.example.com" || f.HTTP[0].Response.Status != 403 {
		t.Errorf("foreign request recorded as %+v → %d", h, f.HTTP[0].Response.Status)
	}
	if h := f.HTTP[1].Request.Headers; h["Host"] != "" || h["Origin"] != "" {
		t.Errorf("own Host or Origin kept: %+v", h)
	}
	data, _ := fixtures.Encode(f)
	if strings.Contains(string(data), upHost) || strings.Contains(string(data), strings.TrimPrefix(endpoint, "http://")) {
		t.Errorf("an address reached the fixture:\n%s", data)
	}
}
