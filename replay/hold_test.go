package replay

import (
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A client that gave up on its handshake may send notifications/cancelled
// without a session (it never got one): counted, not reported.
func TestRawCancelledWithoutSession(t *testing.T) {
	h := serve(t, load(t, "sse.json"), Options{})
	readAll(t, h.rawPost(t, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"c","version":"1"}}}`))
	resp := h.rawPost(t, "", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"context deadline exceeded"}}`)
	if readAll(t, resp); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("cancellation without session: %d, want 202", resp.StatusCode)
	}
	rep := h.r.Report()
	if !rep.Clean() || rep.Cancelled != 1 {
		t.Fatalf("report:\n%s(cancelled %d)", rep.String(), rep.Cancelled)
	}
	// Nor one naming a request the server never got: a client whose
	// request was cut before it arrived (its deadline passed while it was
	// sent) cancels it all the same, as the go-sdk does.
	resp = h.rawPost(t, "", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":9}}`)
	if readAll(t, resp); !h.r.Report().Clean() {
		t.Fatalf("cancellation of a request never received:\n%s", h.r.Report().String())
	}
	// Any other notification without a session is still refused.
	resp = h.rawPost(t, "", `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if readAll(t, resp); resp.StatusCode != http.StatusBadRequest || h.r.Report().Clean() {
		t.Fatalf("initialized without session: %d, report clean %v", resp.StatusCode, h.r.Report().Clean())
	}
}

func TestStdioCancelledCounted(t *testing.T) {
	p := startStdio(t, Options{})
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"probe-client","version":"x"},"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}}}}`)
	p.recv(t)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`)
	rep := p.end(t)
	if !rep.Clean() || rep.Cancelled != 1 {
		t.Fatalf("report:\n%s(cancelled %d)", rep.String(), rep.Cancelled)
	}
}

// OnReceive is told of every message, before faults: a delayed request is
// seen while it is held.
func TestOnReceiveBeforeDelay(t *testing.T) {
	got := make(chan string, 10)
	f, _ := ParseFault("delay:1h:initialize")
	h := serve(t, load(t, "sse.json"), Options{Faults: []Fault{f}, OnReceive: func(m string) { got <- m }})
	ctx, cancel := context.WithCancel(testCtx(t))
	done := make(chan struct{})
	go func() {
		defer close(done)
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, h.url, strings.NewReader(rawInit))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := h.client.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	select {
	case m := <-got:
		if m != "initialize" {
			t.Fatalf("OnReceive got %q", m)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("OnReceive not called while the request is held")
	}
	cancel()
	<-done
}

// Two replays sharing a barrier answer their initialize only once both
// received theirs: one alone stays held.
func TestBarrierHoldsUntilAllArrive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "barrier")
	f, err := ParseFault("barrier:2:" + dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.String() != "barrier:2:"+dir {
		t.Fatalf("String() = %q", f.String())
	}
	a := serve(t, load(t, "sse.json"), Options{Faults: []Fault{f}})
	b := serve(t, load(t, "sse.json"), Options{Faults: []Fault{f}})
	first := make(chan int, 1)
	go func() {
		resp := a.rawPost(t, "", rawInit)
		readAll(t, resp)
		first <- resp.StatusCode
	}()
	waitFor(t, "the first arrival", func() bool {
		entries, _ := os.ReadDir(dir)
		return len(entries) == 1
	})
	select {
	case code := <-first:
		t.Fatalf("answered (%d) before the second replay got its initialize", code)
	case <-time.After(50 * time.Millisecond):
	}
	resp := b.rawPost(t, "", rawInit)
	if readAll(t, resp); resp.StatusCode != http.StatusOK {
		t.Fatalf("second initialize: %d", resp.StatusCode)
	}
	if code := <-first; code != http.StatusOK {
		t.Fatalf("first initialize: %d", code)
	}
}

// A lingering stdio replay stays alive past the end of its input and is
// deaf to SIGTERM; SIGKILL ends it.
func TestLingerOutlivesInput(t *testing.T) {
	if _, err := ParseFault("linger:1h"); err == nil {
		t.Fatal("a linger over the bound parses")
	}
	if _, err := New(load(t, "sse.json"), Options{Faults: []Fault{{Kind: FaultLinger, Delay: time.Second}}}); err == nil {
		t.Fatal("an HTTP replay takes a linger fault")
	}
	reports := t.TempDir()
	cmd := replayCmd(t, "--stdio", "--fixture", "testdata/stdio.json", "--fault", "linger:20s", "--report-dir", reports)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	// The pid file is written once the replay is deaf to SIGTERM; the report
	// once its input ended.
	report := filepath.Join(reports, strconv.Itoa(cmd.Process.Pid)+".json")
	waitFor(t, "the pid file", func() bool { _, err := os.Stat(strings.TrimSuffix(report, ".json") + ".pid"); return err == nil })
	stdin.Close()
	waitFor(t, "the report", func() bool { _, err := os.Stat(report); return err == nil })
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
		t.Fatal("a lingering replay ended at the end of its input or on SIGTERM")
	case <-time.After(200 * time.Millisecond):
	}
	_ = cmd.Process.Kill()
	<-exited
}

// A request held by a delay waits no longer than the input lasts.
func TestStdioHeldEndsWithInput(t *testing.T) {
	f, _ := ParseFault("delay:1h:initialize")
	p := startStdio(t, Options{Faults: []Fault{f}})
	p.send(t, rawInit)
	done := make(chan *Report, 1)
	go func() { done <- p.end(t) }()
	select {
	case rep := <-done:
		if rep.Sessions != 1 {
			t.Fatalf("report:\n%s", rep.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the replay waited for its delay after its input ended")
	}
}

// A slow-exit stdio replay writes its report only once its delay has
// passed after the end of its input; killed sooner, it leaves none.
func TestSlowExitReportsLate(t *testing.T) {
	if _, err := New(load(t, "sse.json"), Options{Faults: []Fault{{Kind: FaultSlowExit, Delay: time.Second}}}); err == nil {
		t.Fatal("an HTTP replay takes a slow-exit fault")
	}
	for _, kill := range []bool{false, true} {
		reports := t.TempDir()
		cmd := replayCmd(t, "--stdio", "--fixture", "testdata/stdio.json", "--fault", "slow-exit:20s", "--report-dir", reports)
		if !kill {
			cmd = replayCmd(t, "--stdio", "--fixture", "testdata/stdio.json", "--fault", "slow-exit:10ms", "--report-dir", reports)
		}
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		report := filepath.Join(reports, strconv.Itoa(cmd.Process.Pid)+".json")
		waitFor(t, "the pid file", func() bool { _, err := os.Stat(strings.TrimSuffix(report, ".json") + ".pid"); return err == nil })
		stdin.Close()
		if kill {
			_ = cmd.Process.Kill()
		}
		_ = cmd.Wait()
		if _, err := os.Stat(report); (err == nil) == kill {
			t.Fatalf("killed %v: report written: %v", kill, err == nil)
		}
	}
}
