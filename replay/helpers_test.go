package replay

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
)

// replayCmd runs this test binary as `mcpparity replay args…` (see
// TestMain).
func replayCmd(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exec.Command(exe, append([]string{"replay"}, args...)...)
}

func load(t testing.TB, name string) *fixtures.Fixture {
	t.Helper()
	fx, err := LoadFixture("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// withoutDiscover drops the recorded server/discover exchange (seq 1).
func withoutDiscover(fx *fixtures.Fixture) *fixtures.Fixture {
	out := *fx
	out.HTTP = nil
	for _, ex := range fx.HTTP[1:] {
		ex.Seq--
		var evs []fixtures.Event
		for _, ev := range ex.Response.Events {
			ev.After--
			evs = append(evs, ev)
		}
		ex.Response.Events = evs
		out.HTTP = append(out.HTTP, ex)
	}
	return &out
}

type harness struct {
	r      *Replay
	srv    *httptest.Server
	url    string
	client *http.Client
}

// serve starts a replay on a loopback server; cleanup closes both.
func serve(t testing.TB, fx *fixtures.Fixture, opts Options) *harness {
	t.Helper()
	r, err := New(fx, opts)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(r)
	tr := &http.Transport{}
	h := &harness{r: r, srv: srv, url: srv.URL + "/mcp", client: &http.Client{Transport: tr}}
	t.Cleanup(func() {
		r.Close()
		srv.Close()
		tr.CloseIdleConnections()
	})
	return h
}

// waitFor polls cond until it holds; it fails the test after a generous
// bound (a hang guard, not a timing assertion).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}
