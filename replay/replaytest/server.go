package replaytest

import (
	"net/http/httptest"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/replay"
)

// Server is a replay of an HTTP recording on a loopback address.
type Server struct {
	// URL is the MCP endpoint: the recorded path on the server's address.
	URL string
	// Replay is the handler; its Report is what it observed so far.
	Replay *replay.Replay
	srv    *httptest.Server
}

// NewServer serves the HTTP recording fixture for t with the default
// options; the test fails at its end with the replay's findings.
func NewServer(t testing.TB, fixture string) *Server {
	t.Helper()
	return NewServerOptions(t, fixture, replay.Options{})
}

// NewServerOptions is NewServer with replay options (faults, required
// headers, ignore paths).
func NewServerOptions(t testing.TB, fixture string, opts replay.Options) *Server {
	t.Helper()
	fx := load(t, fixture, fixtures.TransportHTTP)
	rp, err := replay.New(fx, opts)
	if err != nil {
		t.Fatalf("replaytest: %v", err)
	}
	s := &Server{Replay: rp, srv: httptest.NewServer(rp)}
	s.URL = s.srv.URL + fx.Endpoint()
	t.Cleanup(func() {
		t.Helper()
		_ = rp.Close() // ends the GET streams, so that the server can close
		s.srv.Close()
		judge(t, rp.Report())
	})
	return s
}
