package recorder_test

import (
	"bytes"
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/mcpparity/mcpparity/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var modes = []struct {
	name string
	json bool
}{{"sse", false}, {"json", true}}

// recordHTTP runs the scenario through a fresh proxy and upstream and
// returns the encoded fixture and the call results.
func recordHTTP(t *testing.T, jsonResponse bool, headers map[string]string, cfg recorder.Config, echo string) ([]byte, map[string]string) {
	ctx := testContext(t)
	p, endpoint := startProxy(t, startUpstream(t, jsonResponse, nil))
	cs, err := connectHTTP(t, ctx, endpoint, headers)
	if err != nil {
		t.Fatalf("connect through the proxy: %v", err)
	}
	_, results := scenario(t, ctx, cs, echo)
	if err := cs.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	if err := p.Probe(ctx); err != nil {
		t.Fatalf("probes: %v", err)
	}
	p.Close()
	if errs := p.Errors(); len(errs) > 0 {
		t.Fatalf("proxy errors: %v", errs)
	}
	return buildFixture(t, p.Recording(), cfg), results
}

func TestProxyCallsMatchDirect(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			ctx := testContext(t)
			upstream := startUpstream(t, mode.json, nil)
			direct, err := connectHTTP(t, ctx, upstream, nil)
			if err != nil {
				t.Fatal(err)
			}
			names, want := scenario(t, ctx, direct, "hello")
			direct.Close()
			if diff := cmp.Diff(sdkserver.ToolNames(), names); diff != "" {
				t.Errorf("tools (-want +got):\n%s", diff)
			}

			_, endpoint := startProxy(t, upstream)
			proxied, err := connectHTTP(t, ctx, endpoint, nil)
			if err != nil {
				t.Fatal(err)
			}
			names, got := scenario(t, ctx, proxied, "hello")
			proxied.Close()
			if len(names) != 11 {
				t.Errorf("%d tools through the proxy, want 11", len(names))
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("results through the proxy differ (-direct +proxied):\n%s", diff)
			}
			if !strings.Contains(got["ping_client"], `"ping ok"`) {
				t.Errorf("ping_client through the proxy: %s", got["ping_client"])
			}
		})
	}
}

func TestRecordingIsDeterministic(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			first, _ := recordHTTP(t, mode.json, nil, testConfig("sdk-"+mode.name), "hello")
			second, _ := recordHTTP(t, mode.json, nil, testConfig("sdk-"+mode.name), "hello")
			if !bytes.Equal(first, second) {
				t.Fatalf("two recordings differ:\n%s", cmp.Diff(string(first), string(second)))
			}
			validateSchema(t, first)
			f, err := fixtures.Decode("recording.json", first)
			if err != nil {
				t.Fatal(err)
			}
			checkHTTPFixture(t, f, mode.name)
		})
	}
}

// checkHTTPFixture checks the manifest and the conventions of a recording
// of the scenario.
func checkHTTPFixture(t *testing.T, f *fixtures.Fixture, mode string) {
	t.Helper()
	m := f.Manifest
	_, version := recorder.GoSDK()
	want := fixtures.Manifest{
		Name: "sdk-" + mode, Transport: fixtures.TransportHTTP, ResponseMode: mode,
		SDKModule: recorder.GoSDKModule, SDKVersion: version,
		Server: "mcpparity-sdk-server/1.0.0", ProtocolVersion: "2025-11-25",
		Tools: sdkserver.ToolNames(), ToolCount: 11,
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("manifest (-want +got):\n%s", diff)
	}
	methods := map[string]int{}
	var get *fixtures.Exchange
	for i, ex := range f.HTTP {
		var msg struct {
			Method string `json:"method"`
		}
		_ = json.Unmarshal(ex.Request.Body, &msg)
		if msg.Method != "" {
			methods[msg.Method]++
		}
		if ex.Request.Method == http.MethodGet && get == nil {
			get = &f.HTTP[i]
		}
		for k := range ex.Request.Headers {
			if k == "User-Agent" || k == "Content-Length" || k == "Accept-Encoding" {
				t.Errorf("seq %d: header %s should have been filtered", ex.Seq, k)
			}
		}
		if sid, ok := ex.Request.Headers["Mcp-Session-Id"]; ok && sid != fixtures.SessionPlaceholder(1) {
			t.Errorf("seq %d: session id %q, want the placeholder", ex.Seq, sid)
		}
	}
	if f.HTTP[0].Request.Body == nil || !strings.Contains(string(f.HTTP[0].Request.Body), "server/discover") {
		t.Errorf("first exchange is not server/discover: %s", f.HTTP[0].Request.Body)
	}
	if methods["initialize"] != 1 || methods["tools/call"] != 11 || methods["tools/list"] != 1 {
		t.Errorf("methods recorded: %v", methods)
	}
	if get == nil || len(get.Response.Events) == 0 || get.Response.Events[0].Comment != "ok" || get.Response.Events[0].After != get.Seq {
		t.Fatalf("standalone GET stream not recorded as expected: %+v", get)
	}
	last := f.HTTP[len(f.HTTP)-1]
	if last.Request.Method != http.MethodDelete || last.Response.Status != http.StatusNoContent {
		t.Errorf("last exchange: %s → %d, want DELETE → 204", last.Request.Method, last.Response.Status)
	}
	// The server's ping: on the call's stream in SSE mode, on the GET stream
	// in JSON mode; either way followed by the client's answer.
	var pings int
	for _, ex := range f.HTTP {
		for _, e := range ex.Response.Events {
			if strings.Contains(string(e.Data), `"method": "ping"`) || strings.Contains(string(e.Data), `"method":"ping"`) {
				pings++
				onGet := ex.Request.Method == http.MethodGet
				if onGet != (mode == "json") {
					t.Errorf("ping on seq %d (%s) in %s mode", ex.Seq, ex.Request.Method, mode)
				}
			}
		}
	}
	if pings != 1 {
		t.Errorf("%d server pings recorded, want 1", pings)
	}
}

func TestSecretsNeverReachTheFixture(t *testing.T) {
	const (
		auth   = "canary-auth-7f3a9e"
		header = "canary-header-91c2d4"
		env    = "canary-env-55d0b1"
	)
	var mu sync.Mutex
	seen := map[string]string{}
	wrap := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			mu.Lock()
			seen["Authorization"] = r.Header.Get("Authorization")
			seen["X-Api-Key"] = r.Header.Get("X-Api-Key")
			mu.Unlock()
			h.ServeHTTP(w, r)
		})
	}
	ctx := testContext(t)
	p, endpoint := startProxy(t, startUpstream(t, false, wrap))
	cs, err := connectHTTP(t, ctx, endpoint, map[string]string{"Authorization": "Bearer " + auth, "X-Api-Key": header})
	if err != nil {
		t.Fatal(err)
	}
	_, results := scenario(t, ctx, cs, "token "+env+" and "+header)
	cs.Close()
	p.Close()

	// The live traffic carries the real values.
	if !strings.Contains(results["echo"], env) {
		t.Errorf("echo result lost the live value: %s", results["echo"])
	}
	mu.Lock()
	if seen["Authorization"] != "Bearer "+auth || seen["X-Api-Key"] != header {
		t.Errorf("upstream saw %v", seen)
	}
	mu.Unlock()

	cfg := testConfig("secrets")
	cfg.Headers = []string{"x-api-key"}
	cfg.Secrets = []string{env}
	f, err := recorder.Build(p.Recording(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	data, err := fixtures.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, canary := range []string{auth, header, env} {
		if bytes.Contains(data, []byte(canary)) {
			t.Errorf("canary %q reached the fixture", canary)
		}
	}
	init := f.HTTP[1].Request.Headers
	if init["Authorization"] != fixtures.SecretPlaceholder || init["X-Api-Key"] != fixtures.SecretPlaceholder {
		t.Errorf("secret headers not kept as placeholders: %v", init)
	}
	if !bytes.Contains(data, []byte("token {secret} and {secret}")) {
		t.Errorf("echo message not rewritten with placeholders")
	}
	validateSchema(t, data)
}

func TestUnreachableUpstream(t *testing.T) {
	ctx := testContext(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	p, endpoint := startProxy(t, dead)
	if cs, err := connectHTTP(t, ctx, endpoint, nil); err == nil {
		cs.Close()
		t.Fatal("connect through a proxy to a dead upstream succeeded")
	}
	errs := p.Errors()
	if len(errs) == 0 {
		t.Fatal("no proxy error for a dead upstream")
	}
	msg := errs[0].Error()
	if !strings.Contains(msg, "unreachable") || !strings.Contains(msg, ln.Addr().String()) {
		t.Errorf("error not clear: %s", msg)
	}
}

func TestUpstreamDiesMidCall(t *testing.T) {
	ctx := testContext(t)
	// The upstream dies while answering the long_text call: headers sent,
	// then the connection is dropped.
	wrap := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			var body bytes.Buffer
			body.ReadFrom(r.Body)
			if strings.Contains(body.String(), `"long_text"`) {
				w.Header().Set("Content-Type", "text/event-stream")
				w.WriteHeader(http.StatusOK)
				w.Write([]byte("event: message\n"))
				http.NewResponseController(w).Flush()
				panic(http.ErrAbortHandler)
			}
			r.Body = nopBody{bytes.NewReader(body.Bytes())}
			h.ServeHTTP(w, r)
		})
	}
	p, endpoint := startProxy(t, startUpstream(t, false, wrap))
	cs, err := connectHTTP(t, ctx, endpoint, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "long_text"}); err == nil {
		t.Fatal("call on a dying upstream succeeded")
	}
	var cut error
	for _, err := range p.Errors() {
		if strings.Contains(err.Error(), "upstream stream cut") {
			cut = err
		}
	}
	if cut == nil {
		t.Fatalf("no clear error for the cut stream: %v", p.Errors())
	}
	var found bool
	for _, ex := range p.Recording().Exchanges {
		if ex.Response.Cut && strings.Contains(string(ex.Request.Body), "long_text") {
			found = true
		}
	}
	if !found {
		t.Error("the cut answer is not marked Cut")
	}
}

type nopBody struct{ *bytes.Reader }

func (nopBody) Close() error { return nil }
