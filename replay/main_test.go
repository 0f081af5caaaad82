package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
	"go.uber.org/goleak"
)

// The test binary doubles as a stdio replay server (for mcp.CommandTransport)
// when these variables are set.
const (
	envStdioFixture = "REPLAY_TEST_STDIO_FIXTURE"
	envStdioFaults  = "REPLAY_TEST_STDIO_FAULTS"
	envStdioReport  = "REPLAY_TEST_STDIO_REPORT"
	// envMain runs Main with the arguments after "--".
	envMain = "REPLAY_TEST_MAIN"
)

// envParent makes the test binary a parent that starts a replay (its
// arguments, "--" first) and then waits to be killed.
const envParent = "REPLAY_TEST_PARENT"

func TestMain(m *testing.M) {
	if path := os.Getenv(envStdioFixture); path != "" {
		os.Exit(stdioChild(path))
	}
	if os.Getenv(envMain) != "" {
		for i, a := range os.Args {
			if a == "--" {
				os.Exit(Main(context.Background(), os.Args[i+1:], os.Stdin, os.Stdout, os.Stderr))
			}
		}
		os.Exit(2)
	}
	if os.Getenv(envParent) != "" {
		os.Exit(parentOfReplay(os.Args[1:]))
	}
	goleak.VerifyTestMain(m)
}

// stdioChild serves a fixture on stdin/stdout and writes its report as JSON.
func stdioChild(path string) int {
	fx, err := LoadFixture(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	var opts Options
	for _, s := range strings.Fields(os.Getenv(envStdioFaults)) {
		f, err := ParseFault(s)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		opts.Faults = append(opts.Faults, f)
	}
	rep, err := ServeStdio(context.Background(), fx, os.Stdin, os.Stdout, opts)
	if out := os.Getenv(envStdioReport); out != "" && rep != nil {
		b, _ := json.Marshal(rep)
		_ = os.WriteFile(out, b, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
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
