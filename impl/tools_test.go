package impl

// Tools announced and the prompt line (P8, P14), calls through the façade
// routes (P9, P11–P13, P15).

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// toolsFixture serves two servers: "a" with six of its tools hidden, "z"
// with all hidden, plus a disabled and a failing server.
func toolsFixture(t *testing.T) (*fixture, *mcpHTTP) {
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{})
	u := srv.URL
	f.seed(map[string]MCPServerConfig{
		"a":      {URL: u, Enabled: true, DisabledTools: []string{"fail", "rpcfail", "block", "ping", "block_once", "roots"}},
		"z":      {URL: u, Enabled: true, DisabledTools: httpTools},
		"off":    {URL: u},
		"broken": {Command: "mcpparity-missing-binary", Enabled: true},
	})
	return f, srv
}

// announced is the tools route's answer, parameters decoded.
type announced struct {
	OK    bool `json:"ok"`
	Tools []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Parameters  any    `json:"parameters"`
	} `json:"tools"`
	Prompt string `json:"prompt"`
}

func (f *fixture) tools() announced {
	f.t.Helper()
	code, raw := f.do("POST", FacadeToolsPath, `{}`)
	var got announced
	if err := json.Unmarshal([]byte(raw), &got); err != nil || code != 200 || !got.OK {
		f.t.Fatalf("tools route: %d %s: %v", code, raw, err)
	}
	return got
}

func TestP8P14_ToolsAnnounced(t *testing.T) {
	f, srv := toolsFixture(t)
	got := f.tools()
	var textSchema, emptyObject any
	_ = json.Unmarshal(schemaText, &textSchema)
	_ = json.Unmarshal(schemaEmpty, &emptyObject)
	want := []struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Parameters  any    `json:"parameters"`
	}{
		{"mcp__a__echo", "[MCP: a] " + echoDescription, textSchema},
		{"mcp__a__titled", "[MCP: a] " + titledTitle, emptyObject},
	}
	if diff := cmp.Diff(want, got.Tools); diff != "" {
		t.Errorf("P8 announced tools (-want +got)\n%s", diff)
	}
	// P14.1: every connected server with a tool, all its tools counted,
	// hidden ones included: z, whose tools are all hidden, too.
	n := len(httpTools)
	wantPrompt := fmt.Sprintf("\n\nMCP servers connected (their tools are prefixed mcp__<server>__<tool>): a (%d), z (%d).", n, n)
	if got.Prompt != wantPrompt {
		t.Errorf("P14 prompt = %q, want %q", got.Prompt, wantPrompt)
	}
	if n := srv.inits(); n != 2 {
		t.Errorf("P8.1: %d sessions, want 2 (a and z; off is disabled)", n)
	}
}

// TestP8_1_SortedByServer: servers in sorted name order (byte order), each
// one's tools in the server's order.
func TestP8_1_SortedByServer(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{})
	cfg := map[string]MCPServerConfig{}
	for _, n := range []string{"b", "B", "a", "_"} {
		cfg[n] = MCPServerConfig{URL: srv.URL, Enabled: true, DisabledTools: []string{"block", "block_once", "fail", "ping", "roots", "rpcfail"}}
	}
	f.seed(cfg)
	var names []string
	for _, tool := range f.tools().Tools {
		names = append(names, tool.Name)
	}
	want := []string{"mcp__B__echo", "mcp__B__titled", "mcp____echo", "mcp____titled", "mcp__a__echo", "mcp__a__titled", "mcp__b__echo", "mcp__b__titled"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("P8.2 order (-want +got)\n%s", diff)
	}
}

// TestP8_4_Schemas: the input schema as sent, {} included; null and what is
// not an object become the empty object schema.
func TestP8_4_Schemas(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(true, testServerOptions{Schemas: map[string]any{
		"echo": map[string]any{}, "titled": []any{"not", "an", "object"}, "ping": nil, "fail": "object",
	}})
	f.seed(map[string]MCPServerConfig{"s": {URL: srv.URL, Enabled: true}})
	got := map[string]string{}
	for _, tool := range f.tools().Tools {
		raw, _ := json.Marshal(tool.Parameters)
		got[tool.Name] = string(raw)
	}
	const def = `{"properties":{},"type":"object"}`
	for name, want := range map[string]string{"mcp__s__echo": `{}`, "mcp__s__titled": def, "mcp__s__ping": def, "mcp__s__fail": def,
		"mcp__s__block": `{"type":"object"}`} {
		if got[name] != want {
			t.Errorf("P8.4 %s parameters = %s, want %s", name, got[name], want)
		}
	}
}

func TestP9P13P15_CallRoute(t *testing.T) {
	f, _ := toolsFixture(t)
	f.status()
	unknown := func(name string) string { return textUnknown + name }
	tests := []struct {
		name string
		body string
		want CallResponse
	}{
		{"echo with a label", `{"name":"mcp__a__echo","args":{"text":"bonjour","path":"/tmp/x"}}`,
			CallResponse{OK: true, Output: "bonjour", Label: "/tmp/x"}},
		{"P15 label from JSON", `{"name":"mcp__a__echo","args":{"text":"t"}}`,
			CallResponse{OK: true, Output: "t", Label: `{"text":"t"}`}},
		{"P13 empty output", `{"name":"mcp__a__echo","args":{"text":"  "}}`,
			CallResponse{OK: true, Output: "[ok] (aucune sortie)", Label: `{"text":"  "}`}},
		{"P9.2 a hidden tool is called", `{"name":"mcp__a__fail"}`, CallResponse{OK: true, Output: "[l'outil a renvoyé une erreur]\nboom"}},
		{"P9.2 a server whose tools are all hidden", `{"name":"mcp__z__echo","args":{"text":"z"}}`,
			CallResponse{OK: true, Output: "z", Label: `{"text":"z"}`}},
		{"P9 unknown tool", `{"name":"mcp__a__nope"}`, CallResponse{OK: true, Output: unknown("mcp__a__nope")}},
		{"P9 unknown server", `{"name":"mcp__zz__echo"}`, CallResponse{OK: true, Output: unknown("mcp__zz__echo")}},
		{"P9 disabled server", `{"name":"mcp__off__echo","args":{"query":"q"}}`, CallResponse{OK: true, Output: unknown("mcp__off__echo"), Label: "q"}},
		{"P9 failed server", `{"name":"mcp__broken__echo"}`, CallResponse{OK: true, Output: unknown("mcp__broken__echo")}},
		{"P9 no prefix", `{"name":"echo"}`, CallResponse{OK: true, Output: unknown("echo")}},
		{"P9 empty name", `{}`, CallResponse{OK: true, Output: unknown("")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, raw := f.do("POST", FacadeCallPath, tt.body)
			if code != 200 {
				t.Fatalf("call route: %d %s", code, raw)
			}
			if diff := cmp.Diff(tt.want, decodeAs(t, raw, CallResponse{})); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
}

func TestP11P12P13_CallOutputsEndToEnd(t *testing.T) {
	long := strings.Repeat("é", 12001)
	extra := map[string]*mcp.CallToolResult{
		"image":      {Content: []mcp.Content{&mcp.TextContent{Text: "voici"}, &mcp.ImageContent{MIMEType: "image/png", Data: []byte{1}}}},
		"audio":      {Content: []mcp.Content{&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte{1}}}},
		"link":       {Content: []mcp.Content{&mcp.ResourceLink{URI: "file:///a", Name: "a"}}},
		"structured": {Content: []mcp.Content{}, StructuredContent: map[string]any{"n": 1}},
		"long":       {Content: []mcp.Content{&mcp.TextContent{Text: long}}},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			f := newFixture(t)
			srv := f.httpServer(m.json, testServerOptions{Extra: extra})
			f.seed(map[string]MCPServerConfig{"s": {URL: srv.URL, Enabled: true}})
			f.status()
			tests := []struct {
				tool   string
				window int
				want   string
			}{
				{"image", 0, "voici\n[image image/png]"},
				{"audio", 0, "[audio audio/wav]"},
				{"link", 0, `{"type":"resource_link","uri":"file:///a","name":"a"}`},
				{"structured", 0, "{\n  \"n\": 1\n}"},
				{"fail", 0, "[l'outil a renvoyé une erreur]\nboom"},
				{"long", 0, string([]rune(long)[:12000]) + "\n…[tronqué]"},
				{"long", 12001, long},
			}
			for _, tt := range tests {
				body := fmt.Sprintf(`{"name":"mcp__s__%s","contextWindow":%d}`, tt.tool, tt.window)
				code, raw := f.do("POST", FacadeCallPath, body)
				if code != 200 {
					t.Fatalf("%s: %d %s", tt.tool, code, raw)
				}
				got := decodeAs(t, raw, CallResponse{}).(CallResponse)
				if got.Output != tt.want {
					t.Errorf("%s (window %d): output %q, want %q", tt.tool, tt.window, tail(got.Output), tail(tt.want))
				}
			}
		})
	}
}
