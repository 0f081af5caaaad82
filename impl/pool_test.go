package impl

// The pool against real servers: in-process go-sdk servers over Streamable
// HTTP (SSE and JSON answers) and go-sdk stdio servers re-executed from this
// test binary. P1, P2, P4, P5, P6, P10, P16 (parallel connection).

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// modes are the two answer forms of a Streamable HTTP server.
var modes = []struct {
	name string
	json bool
}{{"SSE", false}, {"JSON", true}}

func TestP1_ConcurrentCallersShareOneAttempt(t *testing.T) {
	f := newFixture(t)
	release := filepath.Join(f.dir, "release")
	f.seed(map[string]MCPServerConfig{"s": f.stdio(map[string]string{envServerRelease: release})})
	p := f.Pool()
	c := ctx(t)

	const callers = 8
	outs := make(chan string, callers)
	for range callers {
		go func() { outs <- p.Call(c, "mcp__s__echo", map[string]any{"text": "hi"}, 0).Output }()
	}
	// Every caller is waiting on the attempt before the server may answer
	// its initialize: they cannot have been served one by one.
	waitGoroutines(t, "impl.(*Pool).session(", callers)
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for range callers {
		if got := recv(t, "a caller's output", outs); got != "hi" {
			t.Errorf("P1 concurrent call output = %q, want %q", got, "hi")
		}
	}
	if n := f.startCount(); n != 1 {
		t.Fatalf("P1: %d concurrent callers started %d processes, want 1", callers, n)
	}

	// P1: the session is kept from one turn to the next.
	if _, err := p.Status(c); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Tools(c); err != nil {
		t.Fatal(err)
	}
	if got := p.Call(c, "mcp__s__echo", map[string]any{"text": "again"}, 0).Output; got != "again" {
		t.Errorf("P1 later call = %q", got)
	}
	if n := f.startCount(); n != 1 {
		t.Errorf("P1: status, tools and a call in a row started %d processes, want 1", n)
	}
}

func TestP1_SessionKeptOverHTTP(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{})
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
	p := f.Pool()
	c := ctx(t)
	for i := range 3 {
		if _, err := p.Status(c); err != nil {
			t.Fatal(err)
		}
		if _, _, err := p.Tools(c); err != nil {
			t.Fatal(err)
		}
		if got := p.Call(c, "mcp__h__echo", map[string]any{"text": "x"}, 0).Output; got != "x" {
			t.Fatalf("turn %d: call = %q", i, got)
		}
	}
	if n := srv.inits(); n != 1 {
		t.Errorf("P1: three turns opened %d sessions, want 1", n)
	}
}

func TestP2_InvalidatedWhileConnecting(t *testing.T) {
	invalidations := []struct {
		name string
		do   func(p *Pool, cfg MCPServerConfig) error
	}{
		{"P2 Invalidate", func(p *Pool, _ MCPServerConfig) error { p.Invalidate("slow"); return nil }},
		{"P2 Test button", func(p *Pool, _ MCPServerConfig) error { return p.Test("slow") }},
		{"P2 C7 save", func(p *Pool, cfg MCPServerConfig) error {
			return p.Save(SaveRequest{Name: "slow", Command: cfg.Command, Env: cfg.Env})
		}},
	}
	for _, inv := range invalidations {
		t.Run(inv.name, func(t *testing.T) {
			// A long handshake deadline: only the invalidation may end the
			// attempt within the test's wait.
			f := newFixture(t, func(o *Options) { o.ConnectTimeout = func(string) time.Duration { return time.Minute } })
			cfg := f.stdio(map[string]string{envServerBlockInit: "1", envServerChildren: f.children})
			f.seed(map[string]MCPServerConfig{"slow": cfg})
			p := f.Pool()
			done := make(chan []ServerStatus, 1)
			// The caller would wait longer than the test does: only the
			// invalidation may end its wait in time.
			c, cancel := context.WithTimeout(context.Background(), time.Minute)
			t.Cleanup(cancel)
			go func() {
				st, _ := p.Status(c)
				done <- st
			}()
			waitFor(t, "the server and its grandchild to start", func() bool {
				return len(readPids(t, f.starts)) == 1 && len(readPids(t, f.children)) == 1
			})
			p.mu.Lock()
			e := p.sessions["slow"]
			p.mu.Unlock()
			if e == nil {
				t.Fatal("P1: no entry published while connecting")
			}
			if err := inv.do(p, cfg); err != nil {
				t.Fatal(err)
			}
			st := recv(t, "the status of the invalidated attempt", done)
			if len(st) != 1 || st[0].Connected || st[0].Error == "" || st[0].Error == otherMessage {
				t.Errorf("status = %+v, want not connected with the invalidation's error", st)
			}
			recv(t, "the invalidated attempt to settle", e.done)
			if e.session != nil || e.err == nil {
				t.Errorf("P2: invalidated attempt settled with session=%v err=%v", e.session, e.err)
			}
			p.mu.Lock()
			again := p.sessions["slow"]
			p.mu.Unlock()
			if again == e {
				t.Error("P2: the invalidated attempt was republished")
			}
			server, child := readPids(t, f.starts)[0], readPids(t, f.children)[0]
			waitFor(t, "P2: the stdio server to be gone", func() bool { return processGone(server, false) })
			waitFor(t, "P2: its grandchild (same process group) to be gone", func() bool { return processGone(child, true) })
		})
	}
}

// TestP2_HandshakeFinishingAfterInvalidation covers the other side of P2:
// an attempt whose handshake completes although its entry was removed (the
// cancellation came too late) is closed, not published.
func TestP2_HandshakeFinishingAfterInvalidation(t *testing.T) {
	f := newFixture(t)
	release := filepath.Join(f.dir, "release")
	cfg := f.stdio(map[string]string{envServerRelease: release, envServerChildren: f.children})
	p := f.Pool()

	// Publish an attempt whose cancellation is lost, as when invalidation
	// races the end of the handshake.
	e := &entry{cfg: cfg, done: make(chan struct{}), cancel: func() {}}
	p.mu.Lock()
	p.sessions["s"] = e
	p.bg.Add(1)
	p.mu.Unlock()
	go p.connect(context.Background(), "s", e)
	waitFor(t, "the server to start", func() bool { return len(readPids(t, f.children)) == 1 })

	p.Invalidate("s")
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	recv(t, "the attempt to settle", e.done)
	if !errors.Is(e.err, errInvalidated) || e.session != nil {
		t.Errorf("P2: attempt settled with session=%v err=%v, want no session and %v", e.session, e.err, errInvalidated)
	}
	if p.connected("s") != nil {
		t.Error("P2: invalidated session republished")
	}
	server, child := readPids(t, f.starts)[0], readPids(t, f.children)[0]
	waitFor(t, "P2: the stdio server to be gone", func() bool { return processGone(server, false) })
	waitFor(t, "P2: its grandchild to be gone", func() bool { return processGone(child, true) })
}

func TestP4_HandshakeDeadline(t *testing.T) {
	launcherDir := t.TempDir()
	self, err := filepath.Abs(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	npx := filepath.Join(launcherDir, "npx")
	if err := os.Symlink(self, npx); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		command string
		want    string
	}{
		{"P4 other command", self, otherMessage},
		{"P4 npx on an explicit path", npx, npxMessage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var asked []string
			f := newFixture(t, func(o *Options) {
				o.ConnectTimeout = func(cmd string) time.Duration {
					mu.Lock()
					asked = append(asked, cmd)
					mu.Unlock()
					return 200 * time.Millisecond
				}
			})
			cfg := f.stdio(map[string]string{envServerBlockInit: "1"})
			cfg.Command = tt.command
			f.seed(map[string]MCPServerConfig{"never": cfg})
			st, err := f.Pool().Status(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			if st[0].Connected || st[0].Error != tt.want {
				t.Errorf("status error = %q, want %q", st[0].Error, tt.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if diff := cmp.Diff([]string{tt.command}, asked); diff != "" {
				t.Errorf("P3: handshake deadline asked for (-want +got)\n%s", diff)
			}
			if n := f.startCount(); n > 1 {
				t.Errorf("the server started %d times, want at most 1", n)
			}
		})
	}
}

func TestP5_HandshakeThenFirstPageOnly(t *testing.T) {
	all := []string{"block", "echo", "fail", "ping", "rpcfail", "titled"}
	for _, m := range modes {
		t.Run("P5 HTTP "+m.name, func(t *testing.T) {
			f := newFixture(t)
			srv := f.httpServer(m.json, testServerOptions{PageSize: 2})
			f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
			st, err := f.Pool().Status(ctx(t))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(all[:2], st[0].Tools); diff != "" {
				t.Errorf("P5 tools (first page of 2) (-want +got)\n%s", diff)
			}
			want := []string{"initialize", "notifications/initialized", "tools/list"}
			if diff := cmp.Diff(want, srv.rpcMethods()); diff != "" {
				t.Errorf("P5 handshake (-want +got)\n%s", diff)
			}
		})
	}
	t.Run("P5 stdio", func(t *testing.T) {
		f := newFixture(t)
		f.seed(map[string]MCPServerConfig{"s": f.stdio(map[string]string{envServerPageSize: "3"})})
		st, err := f.Pool().Status(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff([]string{"block", "die", "die_on_release"}, st[0].Tools); diff != "" {
			t.Errorf("P5 tools (first page of 3) (-want +got)\n%s", diff)
		}
	})
	t.Run("P5 one page holds all", func(t *testing.T) {
		f := newFixture(t)
		srv := f.httpServer(false, testServerOptions{})
		f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
		st, err := f.Pool().Status(ctx(t))
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(all, st[0].Tools); diff != "" {
			t.Errorf("tools (-want +got)\n%s", diff)
		}
	})
}

func TestP6_HeadersOnEveryRequest(t *testing.T) {
	headers := map[string]string{"Authorization": "Bearer s3cret", "X-Team": "blue"}
	for _, m := range modes {
		t.Run("P6 "+m.name, func(t *testing.T) {
			f := newFixture(t)
			srv := f.httpServer(m.json, testServerOptions{})
			f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Headers: headers, Enabled: true}})
			p := f.Pool()
			c := ctx(t)
			if got := p.Call(c, "mcp__h__ping", nil, 0).Output; got != "pong" {
				t.Errorf("P6 server ping: call output = %q, want pong", got)
			}
			if got := p.Call(c, "mcp__h__echo", map[string]any{"text": "é"}, 0).Output; got != "é" {
				t.Errorf("call output = %q", got)
			}
			waitFor(t, "the standalone GET stream", func() bool {
				return slices.ContainsFunc(srv.requests(), func(r seenRequest) bool { return r.Method == "GET" })
			})
			if err := p.Close(); err != nil { // sends the session's DELETE
				t.Fatal(err)
			}
			methods := map[string]bool{}
			var session string
			for i, r := range srv.requests() {
				methods[r.Method] = true
				for k, v := range headers {
					if got := r.Header.Get(k); got != v {
						t.Errorf("P6: request %d (%s %s) header %s = %q, want %q", i, r.Method, r.RPCMethod, k, got, v)
					}
				}
				if i > 0 { // every request after initialize carries the session
					id := r.Header.Get("Mcp-Session-Id")
					if id == "" || (session != "" && id != session) {
						t.Errorf("P6: request %d (%s %s) Mcp-Session-Id = %q, want %q", i, r.Method, r.RPCMethod, id, session)
					}
					session = id
				}
			}
			for _, want := range []string{"GET", "POST", "DELETE"} {
				if !methods[want] {
					t.Errorf("no %s request seen (methods %v)", want, methods)
				}
			}
		})
	}
}

func TestP6_StdioEnvironment(t *testing.T) {
	t.Run("P6 service env plus configured env", func(t *testing.T) {
		f := newFixture(t, func(o *Options) {
			o.BaseEnv = []string{"MCPPARITY_BASE=service", "MCPPARITY_PROBE=base"}
		})
		f.seed(map[string]MCPServerConfig{"s": f.stdio(map[string]string{"MCPPARITY_PROBE": "configuré ✓"})})
		p := f.Pool()
		c := ctx(t)
		for name, want := range map[string]string{"MCPPARITY_BASE": "service", "MCPPARITY_PROBE": "configuré ✓"} {
			if got := p.Call(c, "mcp__s__env", map[string]any{"name": name}, 0).Output; got != want {
				t.Errorf("P6: %s in the server = %q, want %q", name, got, want)
			}
		}
	})
	t.Run("P6 default service env is the process env", func(t *testing.T) {
		t.Setenv("MCPPARITY_SERVICE_ONLY", "from the service")
		f := newFixture(t)
		f.seed(map[string]MCPServerConfig{"s": f.stdio(nil)})
		got := f.Pool().Call(ctx(t), "mcp__s__env", map[string]any{"name": "MCPPARITY_SERVICE_ONLY"}, 0).Output
		if got != "from the service" {
			t.Errorf("P6: service env in the server = %q", got)
		}
	})
}

func TestP6_ServerPingAnswered(t *testing.T) {
	check := func(t *testing.T, f *fixture, name string) {
		if got := f.Pool().Call(ctx(t), "mcp__"+name+"__ping", nil, 0).Output; got != "pong" {
			t.Errorf("P6: a call whose server pings first = %q, want pong", got)
		}
	}
	for _, m := range modes {
		t.Run("P6 HTTP "+m.name, func(t *testing.T) {
			f := newFixture(t)
			srv := f.httpServer(m.json, testServerOptions{})
			f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
			check(t, f, "h")
		})
	}
	t.Run("P6 stdio", func(t *testing.T) {
		f := newFixture(t)
		f.seed(map[string]MCPServerConfig{"s": f.stdio(nil)})
		check(t, f, "s")
	})
}

func TestP10_ReconnectOnceAfterServerDeath(t *testing.T) {
	f := newFixture(t)
	f.seed(map[string]MCPServerConfig{"s": f.stdio(map[string]string{envServerMarker: filepath.Join(f.dir, "died")})})
	res := f.Pool().Call(ctx(t), "mcp__s__die_once", map[string]any{"path": "/x"}, 0)
	if diff := cmp.Diff(CallResult{Output: "survived", Label: "/x"}, res); diff != "" {
		t.Errorf("P10 (-want +got)\n%s", diff)
	}
	if n := f.startCount(); n != 2 {
		t.Errorf("P10: %d server starts, want 2 (one reconnection)", n)
	}
}

func TestP10_AlwaysFailingRetriedExactlyOnce(t *testing.T) {
	t.Run("P10 stdio server dying at every call", func(t *testing.T) {
		f := newFixture(t)
		f.seed(map[string]MCPServerConfig{"s": f.stdio(nil)})
		got := f.Pool().Call(ctx(t), "mcp__s__die", nil, 0).Output
		if !strings.HasPrefix(got, "[erreur MCP] ") {
			t.Errorf("P10 output = %q, want the [erreur MCP] prefix", got)
		}
		if n := f.startCount(); n != 2 {
			t.Errorf("P10: %d server starts, want 2 (exactly one retry)", n)
		}
	})
	for _, m := range modes {
		t.Run("P10 JSON-RPC error over HTTP "+m.name, func(t *testing.T) {
			f := newFixture(t)
			srv := f.httpServer(m.json, testServerOptions{})
			f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
			got := f.Pool().Call(ctx(t), "mcp__h__rpcfail", nil, 0).Output
			const want = `[erreur MCP] calling "tools/call": rpcfail always fails`
			if got != want {
				t.Errorf("P10 output = %q, want %q", got, want)
			}
			calls := 0
			for _, m := range srv.rpcMethods() {
				if m == "tools/call" {
					calls++
				}
			}
			if n := srv.inits(); n != 2 || calls != 2 {
				t.Errorf("P10: %d sessions and %d calls, want 2 and 2 (exactly one retry)", n, calls)
			}
		})
	}
}

func TestP10_NoRetryOnceUnconfigured(t *testing.T) {
	mutations := []struct {
		name string
		do   func(p *Pool) error
	}{
		{"P10 disabled during the call", func(p *Pool) error { return p.Toggle("s", false) }},
		{"P10 deleted during the call", func(p *Pool) error { return p.Delete("s") }},
	}
	for _, mu := range mutations {
		t.Run(mu.name, func(t *testing.T) {
			f := newFixture(t)
			marker := filepath.Join(f.dir, "in-call")
			f.seed(map[string]MCPServerConfig{"s": f.stdio(map[string]string{envServerMarker: marker})})
			p := f.Pool()
			out := make(chan string, 1)
			c := ctx(t)
			go func() { out <- p.Call(c, "mcp__s__die_on_release", nil, 0).Output }()
			waitFor(t, "the call to reach the server", func() bool { _, err := os.Stat(marker); return err == nil })
			if err := mu.do(p); err != nil {
				t.Fatal(err)
			}
			// The server dies during the call, after the mutation.
			if err := os.WriteFile(marker+releaseSuffix, nil, 0o600); err != nil {
				t.Fatal(err)
			}
			got := recv(t, "the call's output", out)
			if !strings.HasPrefix(got, "[erreur MCP] ") {
				t.Errorf("output = %q, want the [erreur MCP] prefix", got)
			}
			if n := f.startCount(); n != 1 {
				t.Errorf("P10: %d server starts, want 1 (no reconnection once unconfigured)", n)
			}
		})
	}
}

func TestP10_CallBounded(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.CallTimeout = 300 * time.Millisecond })
	srv := f.httpServer(false, testServerOptions{})
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
	out := make(chan string, 1)
	// No deadline of the caller's: only the pool's bound can end the call.
	c, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { out <- f.Pool().Call(c, "mcp__h__block", nil, 0).Output }()
	got := recv(t, "the bounded call", out)
	if want := "[erreur MCP] context deadline exceeded"; got != want {
		t.Errorf("P10 bounded call = %q, want %q", got, want)
	}
}

func TestP16_EnsureAllInParallel(t *testing.T) {
	var mu sync.Mutex
	var events []string
	f := newFixture(t, func(o *Options) {
		o.OnEvent = func(e string) {
			mu.Lock()
			events = append(events, e)
			mu.Unlock()
		}
	})
	// Each server holds its initialize until all three have arrived: a
	// serial pool would never get there (each then fails at the deadline).
	var arrived atomic.Int32
	all := make(chan struct{})
	barrier := func(ctx context.Context) error {
		if arrived.Add(1) == 3 {
			close(all)
		}
		select {
		case <-all:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Second):
			return errors.New("the three connections were not in flight together")
		}
	}
	cfg := map[string]MCPServerConfig{}
	for _, name := range []string{"a", "b", "c"} {
		srv := f.httpServer(false, testServerOptions{BeforeInitialize: barrier})
		cfg[name] = MCPServerConfig{URL: srv.URL, Enabled: true}
	}
	f.seed(cfg)
	st, err := f.Pool().Status(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range st {
		if !s.Connected {
			t.Errorf("%s not connected: %s", s.Name, s.Error)
		}
	}
	// "connect-done" is told once the attempt has settled, possibly just
	// after Status returned.
	waitFor(t, "six connection events", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(events) >= 6
	})
	mu.Lock()
	defer mu.Unlock()
	if len(events) != 6 {
		t.Fatalf("events = %q, want 3 starts then 3 dones", events)
	}
	starts, dones := slices.Clone(events[:3]), slices.Clone(events[3:])
	slices.Sort(starts)
	slices.Sort(dones)
	want := []string{"connect-start a", "connect-start b", "connect-start c", "connect-done a", "connect-done b", "connect-done c"}
	if diff := cmp.Diff(want, append(starts, dones...)); diff != "" {
		t.Errorf("P16: every start must come before any done (events %q)\n%s", events, diff)
	}
}
