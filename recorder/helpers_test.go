package recorder_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/mcpparity/mcpparity/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// testTimeout bounds every test's network waits.
const testTimeout = 60 * time.Second

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	t.Cleanup(cancel)
	return ctx
}

// startUpstream serves the SDK server over loopback HTTP.
func startUpstream(t *testing.T, jsonResponse bool, wrap func(http.Handler) http.Handler) string {
	h := sdkserver.Handler(jsonResponse)
	if wrap != nil {
		h = wrap(h)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL + "/mcp"
}

// startProxy serves a recording proxy in front of upstream and returns it
// with its endpoint.
func startProxy(t *testing.T, upstream string) (*recorder.Proxy, string) {
	p, err := recorder.NewProxy(upstream, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(p)
	t.Cleanup(func() {
		p.Close()
		srv.Close()
	})
	return p, srv.URL + "/mcp"
}

// headerTransport adds fixed headers to every request.
type headerTransport struct {
	base    http.RoundTripper
	headers map[string]string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	return h.base.RoundTrip(r)
}

func newClient() *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "mcpparity-test", Version: "0.0.1"}, nil)
}

// connectHTTP connects a go-sdk client over Streamable HTTP.
func connectHTTP(t *testing.T, ctx context.Context, endpoint string, headers map[string]string) (*mcp.ClientSession, error) {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	transport := &mcp.StreamableClientTransport{
		Endpoint:   endpoint,
		HTTPClient: &http.Client{Transport: headerTransport{tr, headers}},
		MaxRetries: -1,
	}
	return newClient().Connect(ctx, transport, nil)
}

// toolArgs are the arguments the scenario passes to each tool.
func toolArgs(echo string) map[string]any {
	return map[string]any{
		"echo":       map[string]any{"message": echo},
		"multi_text": map[string]any{"count": 2},
	}
}

// scenario lists the tools and calls each of them once, in order; it returns
// the tool names and every result as JSON.
func scenario(t *testing.T, ctx context.Context, cs *mcp.ClientSession, echo string) ([]string, map[string]string) {
	t.Helper()
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatalf("tools/list: %v", err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	args := toolArgs(echo)
	results := map[string]string{}
	for _, name := range names {
		a := args[name]
		if a == nil {
			a = map[string]any{}
		}
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: a})
		if err != nil {
			t.Fatalf("call %s: %v", name, err)
		}
		b, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		results[name] = string(b)
	}
	return names, results
}

func testConfig(name string) recorder.Config {
	module, version := recorder.GoSDK()
	return recorder.Config{Name: name, SDKModule: module, SDKVersion: version}
}

// validateSchema checks an encoded fixture against fixtures/schema.json.
func validateSchema(t *testing.T, data []byte) {
	t.Helper()
	schema, err := jsonschema.UnmarshalJSON(bytes.NewReader(fixtures.Schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("schema.json", schema); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("schema.json")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(doc); err != nil {
		t.Fatalf("fixture does not match the schema: %v", err)
	}
}

// sampleFixture is a small valid fixture for the writing tests.
func sampleFixture() *fixtures.Fixture {
	return &fixtures.Fixture{
		Format: fixtures.FormatVersion,
		Manifest: fixtures.Manifest{Name: "sample", Transport: fixtures.TransportStdio,
			SDKModule: recorder.GoSDKModule, SDKVersion: recorder.GoSDKFallbackVersion,
			Server: "s/1", ProtocolVersion: "2025-11-25", Tools: []string{}},
		Stdio: []fixtures.Line{{Dir: fixtures.DirSend, Message: json.RawMessage(`{"jsonrpc":"2.0","method":"x"}`)}},
	}
}

// buildFixture builds and encodes a recording, failing the test on error.
func buildFixture(t *testing.T, rec recorder.Recording, cfg recorder.Config) []byte {
	t.Helper()
	f, err := recorder.Build(rec, cfg)
	if err != nil {
		t.Fatal(err)
	}
	data, err := fixtures.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
