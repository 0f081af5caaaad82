package impl

// Calls against real servers: the registry (P7.2, P7.3, C7.1, P9) and
// failed calls (P10): the read of the store, the retry, its bound, its
// texts and what stays in the pool after it.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestP7_3_CallNeverConnects: before any status, tools request or prewarm
// every name is unknown, and the call starts nothing.
func TestP7_3_CallNeverConnects(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{})
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}, "s": f.stdio(nil)})
	p := f.Pool()
	for _, name := range []string{"mcp__h__echo", "mcp__s__echo"} {
		if got := p.Call(ctx(t), name, map[string]any{"text": "x"}, 0).Output; got != textUnknown+name {
			t.Errorf("P7.3 call before any status: %q", got)
		}
	}
	if n, s := srv.inits(), f.startCount(); n != 0 || s != 0 {
		t.Errorf("P7.3: the calls opened %d sessions and started %d processes, want none", n, s)
	}
	// A prewarm connects: then the names are known.
	p.Prewarm()
	waitFor(t, "the prewarm's connections", func() bool { return p.connected("h") != nil && p.connected("s") != nil })
	if got := p.Call(ctx(t), "mcp__s__echo", map[string]any{"text": "x"}, 0).Output; got != "x" {
		t.Errorf("P7.2 call after the prewarm: %q", got)
	}
}

// TestC7_1_RegistryFollowsInvalidation: a server's tools leave the
// registry when it is invalidated and come back with its next connection;
// another server's stay.
func TestC7_1_RegistryFollowsInvalidation(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{})
	f.seed(map[string]MCPServerConfig{"a": {URL: srv.URL, Enabled: true}, "b": {URL: srv.URL, Enabled: true}})
	p := f.Pool()
	call := func(name string) string { return p.Call(ctx(t), name, map[string]any{"text": "x"}, 0).Output }
	f.status()
	steps := []struct {
		name   string
		do     func()
		a, b   string // outputs of a's and b's echo after the step
		starts int
	}{
		{"connected", func() {}, "x", "x", 2},
		{"C7.1 toggle off", func() { _ = p.Toggle("a", false) }, textUnknown + "mcp__a__echo", "x", 2},
		{"C7.1 toggle on: unknown until connected", func() { _ = p.Toggle("a", true) }, textUnknown + "mcp__a__echo", "x", 2},
		{"connected again", func() { f.status() }, "x", "x", 3},
		{"C7.1 tool hidden: invalidated too", func() { _ = p.SetTool("a", "echo", false) }, textUnknown + "mcp__a__echo", "x", 3},
		{"P9.2 connected again, the hidden tool callable", func() { f.status() }, "x", "x", 4},
		{"C7.1 test", func() { p.Test("a") }, textUnknown + "mcp__a__echo", "x", 4},
		{"C7.1 save", func() { f.status(); _ = p.Save(SaveRequest{Name: "a", URL: srv.URL}) }, textUnknown + "mcp__a__echo", "x", 5},
		{"C7.1 delete", func() { f.status(); _ = p.Delete("a") }, textUnknown + "mcp__a__echo", "x", 6},
	}
	for _, s := range steps {
		s.do()
		if a, b := call("mcp__a__echo"), call("mcp__b__echo"); a != s.a || b != s.b {
			t.Errorf("%s: a's echo %q, b's %q; want %q, %q", s.name, a, b, s.a, s.b)
		}
		if n := srv.inits(); n != s.starts {
			t.Errorf("%s: %d sessions, want %d", s.name, n, s.starts)
		}
	}
}

func TestP10_ReconnectOnceAfterServerDeath(t *testing.T) {
	f := newFixture(t)
	f.seed(map[string]MCPServerConfig{"s": f.stdio(map[string]string{envServerMarker: filepath.Join(f.dir, "died")})})
	f.status()
	res := f.Pool().Call(ctx(t), "mcp__s__die_once", map[string]any{"path": "/x"}, 0)
	if diff := cmp.Diff(CallResult{Output: "survived", Label: "/x"}, res); diff != "" {
		t.Errorf("P10.3 (-want +got)\n%s", diff)
	}
	if n := f.startCount(); n != 2 {
		t.Errorf("P10.3: %d server starts, want 2 (one reconnection)", n)
	}
	// P10.6: the retry's session is the one the next use finds.
	if got := f.Pool().Call(ctx(t), "mcp__s__echo", map[string]any{"text": "next"}, 0).Output; got != "next" {
		t.Errorf("P10.6 next call = %q", got)
	}
	f.status()
	if n := f.startCount(); n != 2 {
		t.Errorf("P10.6: %d server starts after the next call and status, want 2", n)
	}
}

func TestP10_AlwaysFailingRetriedExactlyOnce(t *testing.T) {
	t.Run("P10.3 stdio server dying at every call", func(t *testing.T) {
		f := newFixture(t)
		f.seed(map[string]MCPServerConfig{"s": f.stdio(nil)})
		f.status()
		got := f.Pool().Call(ctx(t), "mcp__s__die", nil, 0).Output
		if !isTransportFailure(got) {
			t.Errorf("P10.5 output = %q, want the [erreur MCP] prefix and the failed step", got)
		}
		if n := f.startCount(); n != 2 {
			t.Errorf("P10.3: %d server starts, want 2 (exactly one retry)", n)
		}
	})
	for _, m := range modes {
		t.Run("P10.3 JSON-RPC error over HTTP "+m.name, func(t *testing.T) {
			f := newFixture(t)
			srv := f.httpServer(m.json, testServerOptions{})
			f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
			f.status()
			got := f.Pool().Call(ctx(t), "mcp__h__rpcfail", nil, 0).Output
			const want = `[erreur MCP] calling "tools/call": rpcfail always fails`
			if got != want {
				t.Errorf("P10.5 output = %q, want %q", got, want)
			}
			if n, calls := srv.inits(), srv.count("tools/call"); n != 2 || calls != 2 {
				t.Errorf("P10.3: %d sessions and %d calls, want 2 and 2 (exactly one retry)", n, calls)
			}
			// P10.6: the retry's session stays: a status makes no new one.
			f.status()
			if n := srv.inits(); n != 2 {
				t.Errorf("P10.6: %d sessions after the status, want 2", n)
			}
		})
	}
}

// TestP10_3_ToolErrorNotRetried: a result with isError is an answer, not a
// failed attempt.
func TestP10_3_ToolErrorNotRetried(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{})
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
	f.status()
	if got := f.Pool().Call(ctx(t), "mcp__h__fail", nil, 0).Output; got != "[l'outil a renvoyé une erreur]\nboom" {
		t.Errorf("P13.1 output = %q", got)
	}
	if n, calls := srv.inits(), srv.count("tools/call"); n != 1 || calls != 1 {
		t.Errorf("P10.3: %d sessions and %d calls, want 1 and 1 (no retry)", n, calls)
	}
}

func TestP10_NoRetryOnceUnconfigured(t *testing.T) {
	changes := []struct {
		name string
		do   func(p *Pool) error
	}{
		{"P10.3 disabled during the call", func(p *Pool) error { return p.Toggle("s", false) }},
		{"P10.3 deleted during the call", func(p *Pool) error { return p.Delete("s") }},
	}
	for _, ch := range changes {
		t.Run(ch.name, func(t *testing.T) {
			f := newFixture(t)
			marker := filepath.Join(f.dir, "in-call")
			f.seed(map[string]MCPServerConfig{"s": f.stdio(map[string]string{envServerMarker: marker})})
			f.status()
			p := f.Pool()
			out := make(chan string, 1)
			c := ctx(t)
			go func() { out <- p.Call(c, "mcp__s__die_on_release", nil, 0).Output }()
			waitFor(t, "the call to reach the server", func() bool { _, err := os.Stat(marker); return err == nil })
			if err := ch.do(p); err != nil {
				t.Fatal(err)
			}
			// The server dies during the call, after the change.
			if err := os.WriteFile(marker+releaseSuffix, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			got := recv(t, "the call's output", out)
			if !isTransportFailure(got) || strings.Contains(got, "non connecté") {
				t.Errorf("P10.4 output = %q, want the first failure", got)
			}
			if n := f.startCount(); n != 1 {
				t.Errorf("P10.3: %d server starts, want 1 (no reconnection once unconfigured)", n)
			}
		})
	}
}

// TestP10_4_NothingInvalidatedWhenNotRetried: the store says the server
// is disabled (written behind the pool's back): the call's failure is
// final and the session is left as it is, so its tools still answer.
func TestP10_4_NothingInvalidatedWhenNotRetried(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{})
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
	f.status()
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL}})
	p := f.Pool()
	if got := p.Call(ctx(t), "mcp__h__rpcfail", nil, 0).Output; got != `[erreur MCP] calling "tools/call": rpcfail always fails` {
		t.Errorf("P10.4 output = %q", got)
	}
	if got := p.Call(ctx(t), "mcp__h__echo", map[string]any{"text": "still"}, 0).Output; got != "still" {
		t.Errorf("P10.4 the session was invalidated: the next call gives %q", got)
	}
	if n, calls := srv.inits(), srv.count("tools/call"); n != 1 || calls != 2 {
		t.Errorf("P10.4: %d sessions and %d calls, want 1 and 2", n, calls)
	}
	// P14.1: the prompt line reads the pool: the session is still there.
	if _, prompt := p.Tools(ctx(t)); !strings.Contains(prompt, fmt.Sprintf("h (%d)", len(httpTools))) {
		t.Errorf("P14.1 prompt line = %q, want h's session", prompt)
	}
}

// TestP10_1_ReconnectionFails: the retry's reconnection fails, so the retry
// fails by P10.1; the failed reconnection stays in the pool (P10.6).
func TestP10_1_ReconnectionFails(t *testing.T) {
	var inits atomic.Int32
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{BeforeInitialize: func(context.Context) error {
		if inits.Add(1) > 1 {
			return errors.New("gone for good")
		}
		return nil
	}})
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
	f.status()
	p := f.Pool()
	if got := p.Call(ctx(t), "mcp__h__rpcfail", nil, 0).Output; got != "[erreur MCP] serveur h non connecté" {
		t.Errorf("P10.4 output = %q", got)
	}
	st := p.Status(ctx(t))
	if st[0].Connected || !strings.Contains(st[0].Error, "gone for good") {
		t.Errorf("P10.6 status after the failed reconnection: %+v", st[0])
	}
	if got := p.Call(ctx(t), "mcp__h__echo", map[string]any{"text": "x"}, 0).Output; got != textUnknown+"mcp__h__echo" {
		t.Errorf("P9.1 call after the failed reconnection: %q", got)
	}
	if n := inits.Load(); n != 2 {
		t.Errorf("P10.6: %d handshakes, want 2 (the failed reconnection is kept)", n)
	}
}

// TestP10_2_EachAttemptBounded: the first attempt is held past its bound
// and cancelled; the retry has a bound of its own and answers.
func TestP10_2_EachAttemptBounded(t *testing.T) {
	for _, m := range modes {
		t.Run("P10.2 "+m.name, func(t *testing.T) {
			// A bound the retry's quick answer cannot miss, even on a loaded
			// machine; the first attempt never answers.
			f := newFixture(t, func(o *Options) { o.CallTimeout = time.Second })
			srv := f.httpServer(m.json, testServerOptions{})
			f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
			f.status()
			if got := boundedCall(t, f.Pool(), "mcp__h__block_once"); got != "second" {
				t.Errorf("P10.2 output = %q, want the retry's answer", got)
			}
			if n, calls := srv.inits(), srv.count("tools/call"); n != 2 || calls != 2 {
				t.Errorf("P10.3: %d sessions and %d calls, want 2 and 2", n, calls)
			}
			// The first attempt's handler may still run: the SDK's
			// notifications/cancelled is sent in the background, and may
			// find the session already closed.
			srv.release()
		})
	}
}

// TestP10_2_BothAttemptsPastTheBound: a call whose attempts are both held
// past their bound fails with the timeout's text.
func TestP10_2_BothAttemptsPastTheBound(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.CallTimeout = 200 * time.Millisecond })
	srv := f.httpServer(false, testServerOptions{})
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
	f.status()
	got := boundedCall(t, f.Pool(), "mcp__h__block")
	srv.release()
	if want := "[erreur MCP] context deadline exceeded"; got != want {
		t.Errorf("P10.2 bounded call = %q, want %q", got, want)
	}
	if n, calls := srv.inits(), srv.count("tools/call"); n != 2 || calls != 2 {
		t.Errorf("P10.3: %d sessions and %d calls, want 2 and 2", n, calls)
	}
}

// boundedCall makes a call whose caller waits longer than the test does:
// only the pool's bound can end an attempt in time.
func boundedCall(t *testing.T, p *Pool, name string) string {
	t.Helper()
	c, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	out := make(chan string, 1)
	go func() { out <- p.Call(c, name, nil, 0).Output }()
	return recv(t, "the bounded call", out)
}

// isTransportFailure tells whether a call's output is a transport failure
// of tools/call (P10.5): the SDK words it "calling "tools/call": …", after
// "connection closed: " when the connection was closing.
func isTransportFailure(out string) bool {
	return strings.HasPrefix(out, "[erreur MCP] ") && strings.Contains(out, `calling "tools/call": `)
}
