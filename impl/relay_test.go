package impl

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestRelay_AgainstReference drives the three internal routes of a real
// reference server through the relay.
func TestRelay_AgainstReference(t *testing.T) {
	srv, err := Start("127.0.0.1:0", t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	// A server whose binary is missing: configured, never connected.
	if err := srv.Pool.Save(SaveRequest{Name: "gone", Command: "mcpparity-missing-server"}); err != nil {
		t.Fatal(err)
	}
	r := &Relay{BaseURL: srv.URL(), Timeout: waitTimeout}
	ctx := context.Background()

	tools, prompt, err := r.Tools(ctx)
	if err != nil || len(tools) != 0 || prompt != "" {
		t.Errorf("Tools = %v, %q, %v; want none, \"\", nil", tools, prompt, err)
	}
	res, err := r.Call(ctx, "mcp__gone__x", map[string]any{"path": "/a"}, 0)
	want := CallResult{Output: textUnknown + "mcp__gone__x", Label: "/a"}
	if err != nil || res != want {
		t.Errorf("Call = %+v, %v; want %+v", res, err, want)
	}
	if err := r.Prewarm(ctx); err != nil {
		t.Errorf("Prewarm: %v", err)
	}
}

// TestRelay_FacadeUnreachable: a closed port gives a stable error text and
// the model an "[erreur MCP]" output, at once.
func TestRelay_FacadeUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there any more
	r := &Relay{BaseURL: "http://" + addr, Timeout: waitTimeout}
	ctx := context.Background()

	res, err := r.Call(ctx, "mcp__a__b", nil, 0)
	var re *RelayError
	if !errors.As(err, &re) || re.Kind != "injoignable" {
		t.Fatalf("Call error = %v, want a RelayError of kind injoignable", err)
	}
	const text = "façade MCP injoignable (/internal/facade/v1/mcp/call)"
	if err.Error() != text || res.Output != "[erreur MCP] "+text {
		t.Errorf("error %q, output %q; want %q", err, res.Output, text)
	}
	if _, _, err := r.Tools(ctx); err == nil || err.Error() != "façade MCP injoignable (/internal/facade/v1/mcp/tools)" {
		t.Errorf("Tools error = %v", err)
	}
	if err := r.Prewarm(ctx); err == nil || err.Error() != "façade MCP injoignable (/internal/facade/v1/mcp/prewarm)" {
		t.Errorf("Prewarm error = %v", err)
	}
}

// TestRelay_FacadeHangs: a façade that accepts and never answers is cut at
// the relay's timeout with a stable text, never a hang.
func TestRelay_FacadeHangs(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepted := make(chan net.Conn, 4)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c // hold it open, say nothing
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-done
		close(accepted)
		for c := range accepted {
			c.Close()
		}
	})
	r := &Relay{BaseURL: "http://" + ln.Addr().String(), Timeout: 50 * time.Millisecond}
	_, err = r.Call(context.Background(), "mcp__a__b", nil, 0)
	if err == nil || err.Error() != "façade MCP délai dépassé (/internal/facade/v1/mcp/call)" {
		t.Errorf("error = %v", err)
	}
}

// TestRelay_FacadeAnswersGarbage: a 200 that is not JSON, and a refusal,
// give stable texts.
func TestRelay_FacadeAnswersGarbage(t *testing.T) {
	garbage := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte("<html>proxy error</html>"))
	}))
	t.Cleanup(garbage.Close)
	r := &Relay{BaseURL: garbage.URL, Timeout: waitTimeout}
	if _, _, err := r.Tools(context.Background()); err == nil || err.Error() != "façade MCP réponse invalide (/internal/facade/v1/mcp/tools)" {
		t.Errorf("garbage: error = %v", err)
	}

	srv, err := Start("127.0.0.1:0", t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(context.Background()) })
	// A GET-only route refuses the POST with 405 and an error body.
	r = &Relay{BaseURL: srv.URL() + "/api/mcp/catalog#", Timeout: waitTimeout}
	err = r.Prewarm(context.Background())
	if err == nil || !strings.HasPrefix(err.Error(), "façade MCP en erreur: méthode non autorisée: POST") {
		t.Errorf("refusal: error = %v", err)
	}
}
