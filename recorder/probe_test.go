package recorder_test

import (
	"bytes"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/fixtures/probekind"
	"github.com/mcpparity/mcpparity/recorder"
)

// wantProbe is what the go-sdk v1.8.0 server answers a probe.
type wantProbe struct {
	status  int
	refused bool
	text    string // a piece of the answer
}

var sdkProbes = map[string]wantProbe{
	probekind.NoContentType:     {415, true, "Content-Type must be 'application/json'"},
	probekind.AcceptJSONOnly:    {400, true, "Accept must contain both"},
	probekind.AcceptSSEOnly:     {400, true, "Accept must contain both"},
	probekind.NoAccept:          {400, true, "Accept must contain both"},
	probekind.AcceptWildcard:    {200, false, `"protocolVersion"`},
	probekind.GETNoAccept:       {400, true, "Accept must contain 'text/event-stream' for GET requests"},
	probekind.GETAcceptWildcard: {200, false, ""},
	probekind.UnknownSession:    {404, true, "session not found"},
	probekind.Batch:             {400, true, "JSON-RPC batching is not supported"},
	probekind.NoSession:         {200, true, `is invalid during session initialization`},
	probekind.NoSessionNotif:    {202, false, ""},
}

func TestProbesOfTheSDKServer(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			data, _ := recordHTTP(t, mode.json, map[string]string{"Authorization": "Bearer canary-probe-4d1e7a"}, testConfig("p"), "hello")
			if bytes.Contains(data, []byte("canary-probe-4d1e7a")) {
				t.Fatal("the credentials reached the fixture through a probe")
			}
			validateSchema(t, data)
			f, err := fixtures.Decode("p", data)
			if err != nil {
				t.Fatal(err)
			}
			got := map[string]fixtures.Probe{}
			for _, p := range f.Probes {
				got[p.Kind] = p
				if p.Request.Headers["Authorization"] != fixtures.SecretPlaceholder {
					t.Errorf("%s: the probe went without the client's credentials: %v", p.Kind, p.Request.Headers)
				}
			}
			for kind, want := range sdkProbes {
				p, ok := got[kind]
				if !ok {
					t.Errorf("no %s probe", kind)
					continue
				}
				answer := p.Response.Text + string(p.Response.Body)
				for _, ev := range p.Response.Events {
					answer += string(ev.Data)
				}
				if p.Response.Status != want.status || p.Response.Refused() != want.refused || !strings.Contains(answer, want.text) {
					t.Errorf("%s: %d refused=%v %q, want %d refused=%v containing %q",
						kind, p.Response.Status, p.Response.Refused(), answer, want.status, want.refused, want.text)
				}
			}
			checkNoStreamProbe(t, mode.json, got[probekind.NoStandaloneStream])
		})
	}
}

// checkNoStreamProbe: in JSON mode the ping of ping_client travels on the
// standalone stream, so ping_client is probed without one and fails at
// once; in SSE mode it travels on the call's own stream.
func checkNoStreamProbe(t *testing.T, jsonMode bool, p fixtures.Probe) {
	t.Helper()
	if !jsonMode {
		if p.Kind != "" {
			t.Errorf("SSE mode: unexpected probe %s", p.ProbeRequest())
		}
		return
	}
	if name := p.ProbeRequest(); name != `tools/call "ping_client" without a standalone GET stream` {
		t.Fatalf("JSON mode: no-standalone-stream probe %q", name)
	}
	if !strings.Contains(string(p.Response.Body), "stream not connected or already closed") || p.Response.Refused() {
		t.Errorf("ping_client without a GET stream: %d %s", p.Response.Status, p.Response.Body)
	}
}

// The probes reach the upstream, each in the order of probekind.All
// once recorded, and their sessions end with a DELETE.
func TestProbeSessionsEnd(t *testing.T) {
	var mu sync.Mutex
	opened, deleted := map[string]bool{}, map[string]bool{}
	wrap := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodDelete {
				mu.Lock()
				deleted[r.Header.Get("Mcp-Session-Id")] = true
				mu.Unlock()
			}
			h.ServeHTTP(sessionSpy{w, func(id string) { mu.Lock(); opened[id] = true; mu.Unlock() }}, r)
		})
	}
	ctx := testContext(t)
	p, endpoint := startProxy(t, startUpstream(t, true, wrap))
	cs, err := connectHTTP(t, ctx, endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	scenario(t, ctx, cs, "x")
	cs.Close()
	if err := p.Probe(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// The client's session, the two probe sessions, the one the accepted
	// wildcard initialize opened, the lack probes' session and the four
	// of their initializes (three other versions, other capabilities).
	if len(opened) != 9 {
		t.Errorf("%d sessions opened, want 9", len(opened))
	}
	for id := range opened {
		if !deleted[id] {
			t.Errorf("session %s not deleted", id)
		}
	}
	f, err := recorder.Build(p.Recording(), testConfig("p"))
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(f.Probes); i++ {
		if rank(f.Probes[i].Kind) < rank(f.Probes[i-1].Kind) {
			t.Errorf("probes out of order: %s after %s", f.Probes[i].Kind, f.Probes[i-1].Kind)
		}
	}
}

func rank(kind string) int {
	for i, k := range probekind.All {
		if k.ID == kind {
			return i
		}
	}
	return -1
}

// sessionSpy tells of the session ids a server hands out.
type sessionSpy struct {
	http.ResponseWriter
	opened func(string)
}

func (s sessionSpy) WriteHeader(code int) {
	if id := s.Header().Get("Mcp-Session-Id"); id != "" {
		s.opened(id)
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s sessionSpy) Write(b []byte) (int, error) {
	if id := s.Header().Get("Mcp-Session-Id"); id != "" {
		s.opened(id)
	}
	return s.ResponseWriter.Write(b)
}

func (s sessionSpy) Flush() {
	if f, ok := s.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func TestProbeWithoutInitialize(t *testing.T) {
	p, _ := startProxy(t, startUpstream(t, false, nil))
	if err := p.Probe(testContext(t)); err != nil || len(p.Recording().Probes) != 0 {
		t.Fatalf("a recording without initialize: %v, %d probes", err, len(p.Recording().Probes))
	}
}

func TestProbeUpstreamGone(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var upstream *http.Server
	var once sync.Once
	stop := func() { once.Do(func() { upstream.Close() }) }
	upstream = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Mcp-Session-Id", "s1")
		_, _ = w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"x"}}}`))
	})}
	go upstream.Serve(ln)
	t.Cleanup(stop)
	p, endpoint := startProxy(t, "http://"+ln.Addr().String()+"/mcp")
	req, _ := http.NewRequestWithContext(testContext(t), http.MethodPost, endpoint,
		strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	stop()
	err = p.Probe(testContext(t))
	if err == nil || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("probing a server gone: %v", err)
	}
	if len(p.Recording().Probes) != 0 {
		t.Error("probes kept after a failure")
	}
}
