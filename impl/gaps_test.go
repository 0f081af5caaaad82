package impl

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// C4: only the name is trimmed; the command is stored as sent.
func TestC4_CommandStoredAsSent(t *testing.T) {
	f := newFixture(t)
	if err := f.Pool().Save(SaveRequest{Name: " padded ", Command: "  some-server  "}); err != nil {
		t.Fatal(err)
	}
	cfg, err := f.Pool().Store().Load()
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg["padded"].Command; got != "  some-server  " {
		t.Errorf("stored command %q, want it as sent", got)
	}
}

// P1: a failed attempt is not cached: the next use connects again.
func TestP1_FailedAttemptNotCached(t *testing.T) {
	var inits atomic.Int32
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{BeforeInitialize: func(context.Context) error {
		if inits.Add(1) == 1 {
			return errors.New("not yet")
		}
		return nil
	}})
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
	st, err := f.Pool().Status(ctx(t))
	if err != nil || st[0].Connected {
		t.Fatalf("first status: %+v %v, want a failed connection", st, err)
	}
	st, err = f.Pool().Status(ctx(t))
	if err != nil || !st[0].Connected {
		t.Fatalf("second status: %+v %v, want connected (the failure was not cached)", st, err)
	}
}

// P10: a failed retry leaves its session in place: the next use does not
// reconnect.
func TestP10_FailedRetryKeepsItsSession(t *testing.T) {
	var inits atomic.Int32
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{BeforeInitialize: func(context.Context) error {
		inits.Add(1)
		return nil
	}})
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
	out := f.Pool().Call(ctx(t), "mcp__h__rpcfail", nil, 0).Output
	if !strings.HasPrefix(out, CallErrorPrefix) || inits.Load() != 2 {
		t.Fatalf("call: %q after %d handshakes, want a failure after 2 (the call, the retry)", out, inits.Load())
	}
	if _, err := f.Pool().Status(ctx(t)); err != nil {
		t.Fatal(err)
	}
	if n := inits.Load(); n != 2 {
		t.Errorf("%d handshakes after the status, want 2: the retry's session is kept", n)
	}
}

// P2: the grace a closed stdio server gets follows the time scale: a
// server deaf to its stdin's end is ended once the scaled grace (20 ms)
// has passed, long before the unscaled 2 s.
func TestP2_GraceScaled(t *testing.T) {
	f := newFixture(t, func(o *Options) { o.TimeScale = 0.01 })
	f.seed(map[string]MCPServerConfig{"l": f.stdio(map[string]string{envServerLinger: "1"})})
	st, err := f.Pool().Status(ctx(t))
	if err != nil || !st[0].Connected {
		t.Fatalf("status: %+v %v", st, err)
	}
	pid := readPids(t, f.starts)[0]
	f.Pool().Invalidate("l")
	// A bound between the scaled grace and the unscaled one.
	deadline := time.Now().Add(1500 * time.Millisecond)
	for !processGone(pid, false) {
		if time.Now().After(deadline) {
			t.Fatalf("server %d still running 1.5 s after its session closed (the grace is not scaled)", pid)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Close ends the contract and every server process at once.
func TestServe_Close(t *testing.T) {
	f := newFixture(t)
	f.seed(map[string]MCPServerConfig{"local": f.stdio(nil)})
	s, err := Start("127.0.0.1:0", f.stateDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st, err := s.Pool.Status(ctx(t)); err != nil || !st[0].Connected {
		t.Fatalf("status: %+v %v", st, err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if pid := readPids(t, f.starts)[0]; !processGone(pid, false) {
		t.Errorf("stdio server %d still running after Close", pid)
	}
	if _, err := net.Dial("tcp", s.Addr()); err == nil {
		t.Error("the contract still accepts connections after Close")
	}
}
