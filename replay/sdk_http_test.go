package replay

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func (h *harness) connect(t *testing.T, opts *mcp.ClientSessionOptions) (*mcp.ClientSession, error) {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "probe-client", Version: "9.9.9"}, nil)
	return c.Connect(testCtx(t), &mcp.StreamableClientTransport{Endpoint: h.url, HTTPClient: h.client}, opts)
}

func text(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			b.WriteString(c.Text)
		case *mcp.ImageContent:
			b.WriteString("[image " + c.MIMEType + "]")
		}
	}
	return b.String()
}

// sdkSession runs the recorded conversation with a go-sdk client.
func sdkSession(t *testing.T, h *harness) {
	ctx := testCtx(t)
	cs, err := h.connect(t, nil)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 4 || tools.Tools[0].Name != "ping_client" {
		t.Fatalf("tools: %+v", tools.Tools)
	}
	want := map[string]string{
		"test_simple_text":    "This is a simple text response for testing.",
		"test_image_content":  "[image image/png]",
		"test_error_handling": "This tool intentionally returns an error for testing",
		"ping_client":         "ping err=<nil>",
	}
	for _, name := range []string{"test_simple_text", "test_image_content", "test_error_handling", "ping_client"} {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got := text(t, res); got != want[name] {
			t.Errorf("%s: got %q, want %q", name, got, want[name])
		}
		if res.IsError != (name == "test_error_handling") {
			t.Errorf("%s: isError %v", name, res.IsError)
		}
	}
	// Both pings (inside the call, then detached on the GET stream) answered.
	waitFor(t, "two ping answers", func() bool { return h.r.Report().Answers == 2 })
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	h.r.Close()
	rep := h.r.Report()
	if !rep.Clean() || len(rep.Unused) != 0 {
		t.Fatalf("report:\n%s", rep.String())
	}
	if rep.Sessions != 1 || rep.Calls != 4 || rep.Requests != 7 {
		t.Fatalf("report counts:\n%s", rep.String())
	}
}

func TestSDKClientSSE(t *testing.T)  { sdkSession(t, serve(t, load(t, "sse.json"), Options{})) }
func TestSDKClientJSON(t *testing.T) { sdkSession(t, serve(t, load(t, "json.json"), Options{})) }
