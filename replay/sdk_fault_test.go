package replay

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestSDKDiscoverUnrecordedFallsBack(t *testing.T) {
	h := serve(t, withoutDiscover(load(t, "sse.json")), Options{})
	cs, err := h.connect(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ListTools(testCtx(t), nil); err != nil {
		t.Fatal(err)
	}
	cs.Close()
	rep := h.r.Report()
	if rep.Sessions != 1 || len(rep.Unmatched) != 0 {
		t.Fatalf("report:\n%s", rep.String())
	}
}

func TestSDKSkipDiscoverReportsUnused(t *testing.T) {
	h := serve(t, load(t, "json.json"), Options{})
	cs, err := h.connect(t, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	cs.Close()
	h.r.Close()
	rep := h.r.Report()
	labels := map[string]bool{}
	for _, u := range rep.Unused {
		labels[u.Label] = true
	}
	for _, want := range []string{"server/discover (2026-07-28)", "tools/list", `tools/call "ping_client"`, "client answer (id 1)"} {
		if !labels[want] {
			t.Errorf("unused lacks %s:\n%s", want, rep.String())
		}
	}
	if !rep.Clean() {
		t.Errorf("unused interactions are not problems:\n%s", rep.String())
	}
}

func TestSDKSessionExpired(t *testing.T) {
	f, err := ParseFault("session-expired:2")
	if err != nil {
		t.Fatal(err)
	}
	h := serve(t, load(t, "sse.json"), Options{Faults: []Fault{f}})
	ctx := testCtx(t)
	cs, err := h.connect(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text", Arguments: map[string]any{}}); err != nil {
		t.Fatal(err)
	}
	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_image_content", Arguments: map[string]any{}})
	if !errors.Is(err, mcp.ErrSessionMissing) {
		t.Fatalf("second call: %v, want ErrSessionMissing", err)
	}
	cs.Close()
	// What the pool does: a new session, the call retried.
	cs2, err := h.connect(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := cs2.CallTool(ctx, &mcp.CallToolParams{Name: "test_image_content", Arguments: map[string]any{}})
	if err != nil || text(t, res) != "[image image/png]" {
		t.Fatalf("retried call: %v %v", res, err)
	}
	cs2.Close()
	rep := h.r.Report()
	if rep.Sessions != 2 || len(rep.Faults) != 1 || !strings.HasPrefix(rep.Faults[0], "session-expired:2 at tools/call") {
		t.Fatalf("report:\n%s", rep.String())
	}
}

func TestSDKCutStream(t *testing.T) {
	for _, fx := range []string{"sse.json", "json.json"} {
		t.Run(fx, func(t *testing.T) {
			f, _ := ParseFault("cut-stream:tools/call")
			h := serve(t, load(t, fx), Options{Faults: []Fault{f}})
			ctx := testCtx(t)
			cs, err := h.connect(t, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer cs.Close()
			if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text", Arguments: map[string]any{}}); err == nil {
				t.Fatal("cut call succeeded")
			}
			if len(h.r.Report().Faults) != 1 {
				t.Fatalf("report:\n%s", h.r.Report().String())
			}
		})
	}
}

func TestSDKDie(t *testing.T) {
	f, _ := ParseFault("die:1")
	h := serve(t, load(t, "sse.json"), Options{Faults: []Fault{f}})
	ctx := testCtx(t)
	cs, err := h.connect(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text", Arguments: map[string]any{}}); err == nil {
		t.Fatal("call on a dead server succeeded")
	}
	// Dead for everyone after that.
	if _, err := h.connect(t, nil); err == nil {
		t.Fatal("connect to a dead server succeeded")
	}
}

func TestSDKDelay(t *testing.T) {
	f, err := ParseFault("delay:1h:tools/call")
	if err != nil {
		t.Fatal(err)
	}
	h := serve(t, load(t, "sse.json"), Options{Faults: []Fault{f}})
	cs, err := h.connect(t, nil) // initialize is not delayed
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ctx, cancel := context.WithCancel(testCtx(t))
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "test_simple_text", Arguments: map[string]any{}})
		done <- err
	}()
	waitFor(t, "the call to reach the replay", func() bool { return h.r.Report().Calls == 1 })
	select {
	case err := <-done:
		t.Fatalf("delayed call answered: %v", err)
	default:
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("delayed call: %v", err)
	}
}

func TestSDKDelayShort(t *testing.T) {
	f, _ := ParseFault("delay:1ms")
	h := serve(t, load(t, "json.json"), Options{Faults: []Fault{f}})
	cs, err := h.connect(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(testCtx(t), &mcp.CallToolParams{Name: "test_simple_text", Arguments: map[string]any{}})
	if err != nil || res.IsError {
		t.Fatal(res, err)
	}
}

type headerRT struct {
	base http.RoundTripper
	h    map[string]string
}

func (rt headerRT) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, v := range rt.h {
		req.Header.Set(k, v)
	}
	return rt.base.RoundTrip(req)
}

func TestSDKRequiredHeaders(t *testing.T) {
	opts := Options{RequireHeaders: map[string]string{"Authorization": "Bearer s3cret", "X-Team": "core"}}
	t.Run("present", func(t *testing.T) {
		h := serve(t, load(t, "sse.json"), opts)
		h.client.Transport = headerRT{h.client.Transport, opts.RequireHeaders}
		cs, err := h.connect(t, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cs.ListTools(testCtx(t), nil); err != nil {
			t.Fatal(err)
		}
		cs.Close()
		if rep := h.r.Report(); len(rep.HeaderMismatches) != 0 {
			t.Fatalf("report:\n%s", rep.String())
		}
	})
	t.Run("wrong", func(t *testing.T) {
		h := serve(t, load(t, "sse.json"), opts)
		h.client.Transport = headerRT{h.client.Transport, map[string]string{"Authorization": "Bearer other"}}
		if _, err := h.connect(t, nil); err == nil {
			t.Fatal("connect without the required headers succeeded")
		}
		rep := h.r.Report()
		if rep.Clean() || len(rep.HeaderMismatches) == 0 {
			t.Fatalf("report:\n%s", rep.String())
		}
		s := rep.String()
		if strings.Contains(s, "s3cret") || strings.Contains(s, "other") {
			t.Fatalf("report leaks header values:\n%s", s)
		}
		if !strings.Contains(s, "header Authorization different value") || !strings.Contains(s, "header X-Team missing") {
			t.Fatalf("report:\n%s", s)
		}
	})
}
