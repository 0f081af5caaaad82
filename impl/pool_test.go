package impl

// The pool against real servers: in-process go-sdk servers over Streamable
// HTTP (SSE and JSON answers) and go-sdk stdio servers re-executed from this
// test binary. P1, P2, P3/P4, P5, P6, P16.2 (parallel connection).

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
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

func TestP1_2_ConcurrentCallersShareOneAttempt(t *testing.T) {
	f := newFixture(t)
	release := filepath.Join(f.dir, "release")
	f.seed(map[string]MCPServerConfig{"s": f.stdio(map[string]string{envServerRelease: release})})
	p := f.Pool()
	c := ctx(t)

	const callers = 8
	connected := make(chan bool, callers)
	for i := range callers {
		go func() {
			if i%2 == 0 {
				st := p.Status(c)
				connected <- len(st) == 1 && st[0].Connected
				return
			}
			tools, _ := p.Tools(c)
			connected <- len(tools) > 0
		}()
	}
	// Every caller is waiting on the attempt before the server may answer
	// its initialize: they cannot have been served one by one.
	waitGoroutines(t, "impl.(*Pool).session(", callers)
	if err := os.WriteFile(release, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for range callers {
		if !recv(t, "a caller's answer", connected) {
			t.Error("P1.2: a caller did not get the shared session")
		}
	}
	if n := f.startCount(); n != 1 {
		t.Fatalf("P1.2: %d concurrent callers started %d processes, want 1", callers, n)
	}

	// P1.1: the session is kept from one request to the next.
	p.Status(c)
	p.Tools(c)
	if got := p.Call(c, "mcp__s__echo", map[string]any{"text": "again"}, 0).Output; got != "again" {
		t.Errorf("P1.1 later call = %q", got)
	}
	if n := f.startCount(); n != 1 {
		t.Errorf("P1.1: status, tools and a call in a row started %d processes, want 1", n)
	}
}

func TestP1_1_SessionKeptOverHTTP(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{})
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
	p := f.Pool()
	c := ctx(t)
	for i := range 3 {
		p.Status(c)
		p.Tools(c)
		if got := p.Call(c, "mcp__h__echo", map[string]any{"text": "x"}, 0).Output; got != "x" {
			t.Fatalf("turn %d: call = %q", i, got)
		}
	}
	if n := srv.inits(); n != 1 {
		t.Errorf("P1.1: three turns opened %d sessions, want 1", n)
	}
}

// TestP1_3_FailedAttemptKept: a failed connection is kept until the server
// is invalidated: every status shows the same error and makes no new
// attempt, the tools route neither, and its tools are unknown to calls.
func TestP1_3_FailedAttemptKept(t *testing.T) {
	var inits atomic.Int32
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{BeforeInitialize: func(context.Context) error {
		if inits.Add(1) == 1 {
			return errors.New("not yet")
		}
		return nil
	}})
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}, "gone": {Command: "mcpparity-missing-binary", Enabled: true}})
	p := f.Pool()
	first := p.Status(ctx(t))
	if len(first) != 2 || first[1].Connected || !strings.Contains(first[1].Error, "not yet") || first[0].Error != textMissing {
		t.Fatalf("first status: %+v, want two failed connections", first)
	}
	if diff := cmp.Diff(first, p.Status(ctx(t))); diff != "" {
		t.Errorf("P1.3 second status (-first +second)\n%s", diff)
	}
	if tools, _ := p.Tools(ctx(t)); len(tools) != 0 {
		t.Errorf("P1.3 tools after a failed connection: %v", tools)
	}
	if got := p.Call(ctx(t), "mcp__h__echo", map[string]any{"text": "x"}, 0).Output; got != textUnknown+"mcp__h__echo" {
		t.Errorf("P1.3 call of a failed server = %q", got)
	}
	if n := inits.Load(); n != 1 {
		t.Errorf("P1.3: %d handshakes, want 1 (the failure is kept)", n)
	}
	p.Test("h")
	if st := p.Status(ctx(t)); !st[1].Connected || st[1].Error != "" {
		t.Errorf("after the test: %+v, want connected", st[1])
	}
	if n := inits.Load(); n != 2 {
		t.Errorf("%d handshakes after the test, want 2", n)
	}
}

func TestP2_InvalidatedWhileConnecting(t *testing.T) {
	invalidations := []struct {
		name string
		do   func(p *Pool, cfg MCPServerConfig) error
	}{
		{"P2 Invalidate", func(p *Pool, _ MCPServerConfig) error { p.Invalidate("slow"); return nil }},
		{"P2 Test button", func(p *Pool, _ MCPServerConfig) error { p.Test("slow"); return nil }},
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
			go func() { done <- p.Status(c) }()
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
			if len(st) != 1 || st[0].Connected || st[0].Error != errInvalidated.Error() {
				t.Errorf("P2.1 status = %+v, want not connected with the attempt's end as its error", st)
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
			st := f.status()
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
	for _, m := range modes {
		t.Run("P5 HTTP "+m.name, func(t *testing.T) {
			f := newFixture(t)
			srv := f.httpServer(m.json, testServerOptions{PageSize: 2})
			f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
			st := f.status()
			if diff := cmp.Diff(httpTools[:2], st[0].Tools); diff != "" {
				t.Errorf("P5.2 tools (first page of 2) (-want +got)\n%s", diff)
			}
			want := []string{"initialize", "notifications/initialized", "tools/list"}
			if diff := cmp.Diff(want, srv.rpcMethods()); diff != "" {
				t.Errorf("P5.1 handshake (-want +got)\n%s", diff)
			}
			if got := f.Pool().Call(ctx(t), "mcp__h__fail", nil, 0).Output; got != textUnknown+"mcp__h__fail" {
				t.Errorf("P5.2 a tool of the second page is unknown: %q", got)
			}
		})
	}
	t.Run("P5 stdio", func(t *testing.T) {
		f := newFixture(t)
		f.seed(map[string]MCPServerConfig{"s": f.stdio(map[string]string{envServerPageSize: "3"})})
		if diff := cmp.Diff(stdioTools[:3], f.status()[0].Tools); diff != "" {
			t.Errorf("P5.2 tools (first page of 3) (-want +got)\n%s", diff)
		}
	})
	t.Run("P5 one page holds all", func(t *testing.T) {
		f := newFixture(t)
		srv := f.httpServer(false, testServerOptions{})
		f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
		if diff := cmp.Diff(httpTools, f.status()[0].Tools); diff != "" {
			t.Errorf("tools (-want +got)\n%s", diff)
		}
	})
}

// TestP5_1_InitializeParams: the protocol version, the capabilities and
// the client's name, as the server receives them.
func TestP5_1_InitializeParams(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{})
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
	f.status()
	var init struct {
		Params struct {
			ProtocolVersion string          `json:"protocolVersion"`
			Capabilities    json.RawMessage `json:"capabilities"`
			ClientInfo      struct {
				Name string `json:"name"`
			} `json:"clientInfo"`
		} `json:"params"`
	}
	reqs := srv.requests()
	if len(reqs) == 0 || reqs[0].RPCMethod != "initialize" || json.Unmarshal(reqs[0].Body, &init) != nil {
		t.Fatalf("first request: %+v", reqs)
	}
	got := init.Params
	if got.ProtocolVersion != "2025-11-25" || string(got.Capabilities) != `{"roots":{"listChanged":true}}` || got.ClientInfo.Name == "" {
		t.Errorf("P5.1 initialize params: version %q, capabilities %s, client %q", got.ProtocolVersion, got.Capabilities, got.ClientInfo.Name)
	}
}

// TestP5_3_RootsAnswered: a server's roots/list gets no roots, not an error.
func TestP5_3_RootsAnswered(t *testing.T) {
	for _, m := range modes {
		t.Run("P5.3 "+m.name, func(t *testing.T) {
			f := newFixture(t)
			srv := f.httpServer(m.json, testServerOptions{})
			f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
			f.status()
			if got := f.Pool().Call(ctx(t), "mcp__h__roots", nil, 0).Output; got != `{"roots":[]}` {
				t.Errorf("P5.3 the server's roots/list answered %q", got)
			}
		})
	}
}

func TestP6_HeadersOnEveryRequest(t *testing.T) {
	// Accept is one the SDK sets itself: the configured value replaces it.
	headers := map[string]string{"Authorization": "Bearer s3cret", "X-Team": "blue", "Accept": "application/json, text/event-stream"}
	for _, m := range modes {
		t.Run("P6.5 "+m.name, func(t *testing.T) {
			f := newFixture(t)
			srv := f.httpServer(m.json, testServerOptions{})
			f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Headers: headers, Enabled: true}})
			p := f.Pool()
			c := ctx(t)
			f.status()
			if got := p.Call(c, "mcp__h__ping", nil, 0).Output; got != "pong" {
				t.Errorf("P6.2 server ping: call output = %q, want pong", got)
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
			checkHeaders(t, srv.requests(), headers)
		})
	}
}

// checkHeaders checks that every request carried each configured header
// once, with its configured value, and the session id of initialize.
func checkHeaders(t *testing.T, reqs []seenRequest, headers map[string]string) {
	t.Helper()
	methods := map[string]bool{}
	var session string
	for i, r := range reqs {
		methods[r.Method] = true
		for k, v := range headers {
			if got := r.Header.Values(k); len(got) != 1 || got[0] != v {
				t.Errorf("P6.5: request %d (%s %s) header %s = %q, want %q", i, r.Method, r.RPCMethod, k, got, v)
			}
		}
		if i > 0 { // every request after initialize carries the session
			id := r.Header.Get("Mcp-Session-Id")
			if id == "" || (session != "" && id != session) {
				t.Errorf("P6.5: request %d (%s %s) Mcp-Session-Id = %q, want %q", i, r.Method, r.RPCMethod, id, session)
			}
			session = id
		}
	}
	for _, want := range []string{"GET", "POST", "DELETE"} {
		if !methods[want] {
			t.Errorf("P2.5 P6.5: no %s request seen (methods %v)", want, methods)
		}
	}
}

func TestP6_StdioEnvironment(t *testing.T) {
	t.Run("P6.1 service env plus configured env", func(t *testing.T) {
		f := newFixture(t, func(o *Options) {
			o.BaseEnv = []string{"MCPPARITY_BASE=service", "MCPPARITY_PROBE=base"}
		})
		f.seed(map[string]MCPServerConfig{"s": f.stdio(map[string]string{"MCPPARITY_PROBE": "configuré ✓"})})
		f.status()
		p := f.Pool()
		c := ctx(t)
		for name, want := range map[string]string{"MCPPARITY_BASE": "service", "MCPPARITY_PROBE": "configuré ✓"} {
			if got := p.Call(c, "mcp__s__env", map[string]any{"name": name}, 0).Output; got != want {
				t.Errorf("P6.1: %s in the server = %q, want %q", name, got, want)
			}
		}
	})
	t.Run("P6.1 default service env is the process env", func(t *testing.T) {
		t.Setenv("MCPPARITY_SERVICE_ONLY", "from the service")
		f := newFixture(t)
		f.seed(map[string]MCPServerConfig{"s": f.stdio(nil)})
		f.status()
		got := f.Pool().Call(ctx(t), "mcp__s__env", map[string]any{"name": "MCPPARITY_SERVICE_ONLY"}, 0).Output
		if got != "from the service" {
			t.Errorf("P6.1: service env in the server = %q", got)
		}
	})
}

func TestP6_ServerPingAnswered(t *testing.T) {
	check := func(t *testing.T, f *fixture, name string) {
		f.status()
		if got := f.Pool().Call(ctx(t), "mcp__"+name+"__ping", nil, 0).Output; got != "pong" {
			t.Errorf("P6.2: a call whose server pings first = %q, want pong", got)
		}
	}
	for _, m := range modes {
		t.Run("P6.2 HTTP "+m.name, func(t *testing.T) {
			f := newFixture(t)
			srv := f.httpServer(m.json, testServerOptions{})
			f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
			check(t, f, "h")
		})
	}
	t.Run("P6.2 stdio", func(t *testing.T) {
		f := newFixture(t)
		f.seed(map[string]MCPServerConfig{"s": f.stdio(nil)})
		check(t, f, "s")
	})
}

// TestP6_4_OwnProcessGroup: a stdio server leads a process group of its
// own, which its grandchild shares, and closing the session ends both.
func TestP6_4_OwnProcessGroup(t *testing.T) {
	f := newFixture(t)
	f.seed(map[string]MCPServerConfig{"s": f.stdio(map[string]string{envServerChildren: f.children})})
	if st := f.status(); !st[0].Connected {
		t.Fatalf("status: %+v", st)
	}
	server, child := readPids(t, f.starts)[0], readPids(t, f.children)[0]
	if g := processGroup(t, server); g != server {
		t.Errorf("P6.4: the server %d is in process group %d, want its own", server, g)
	}
	if g := processGroup(t, child); g != server {
		t.Errorf("P6.4: its grandchild %d is in process group %d, want %d", child, g, server)
	}
	f.Pool().Invalidate("s")
	waitFor(t, "P2.2: the stdio server to be gone", func() bool { return processGone(server, false) })
	waitFor(t, "P2.2: its grandchild to be gone", func() bool { return processGone(child, true) })
}

// processGroup reads the process group of pid from /proc.
func processGroup(t *testing.T, pid int) int {
	t.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Fatal(err)
	}
	s := string(raw)
	// "pid (comm) state ppid pgrp ...": the fields after the last ')'.
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 3 {
		t.Fatalf("/proc/%d/stat: %q", pid, s)
	}
	g, err := strconv.Atoi(fields[2])
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestP2_2_DeafServerEndedAfterTheGrace: a connected server that outlives
// the end of its stdin is ended with its group once the grace has passed.
func TestP2_2_DeafServerEndedAfterTheGrace(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.TimeScale = 0.01 })
	f.seed(map[string]MCPServerConfig{"l": f.stdio(map[string]string{envServerLinger: "1", envServerChildren: f.children})})
	if st := f.status(); !st[0].Connected {
		t.Fatalf("status: %+v", st)
	}
	server, child := readPids(t, f.starts)[0], readPids(t, f.children)[0]
	f.Pool().Invalidate("l")
	waitFor(t, "P2.2: the deaf server to be ended", func() bool { return processGone(server, false) })
	waitFor(t, "P2.2: its grandchild to be ended", func() bool { return processGone(child, true) })
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
	st := f.status()
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
