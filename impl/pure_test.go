package impl

// Pure functions, data style: config (C1, C2, C3), timeouts and their texts
// (P3, P4), names (P7), schemas (P8), flattening (P11), the cap (P12), the
// output texts (P13), the prompt line (P14), call labels (P15).

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestC1_EnabledDefaultsToTrue(t *testing.T) {
	tests := []struct {
		name string
		raw  string
		want MCPServerConfig
	}{
		{"C1 absent is true", `{"command":"x"}`, MCPServerConfig{Command: "x", Enabled: true}},
		{"C1 explicit false", `{"command":"x","enabled":false}`, MCPServerConfig{Command: "x"}},
		{"C1.2 null is false", `{"command":"x","enabled":null}`, MCPServerConfig{Command: "x"}},
		{"C1.2 Enabled is not the key", `{"command":"x","Enabled":false}`, MCPServerConfig{Command: "x", Enabled: true}},
		{"C1.2 Enabled true beside enabled false", `{"command":"x","Enabled":true,"enabled":false}`, MCPServerConfig{Command: "x"}},
		{"C8.3 field names in any case", `{"COMMAND":"x","Url":"u","DisabledTools":["t"]}`,
			MCPServerConfig{Command: "x", URL: "u", Enabled: true, DisabledTools: []string{"t"}}},
		{"C8.3 unknown fields ignored", `{"command":"x","type":"stdio"}`, MCPServerConfig{Command: "x", Enabled: true}},
		{"C8.3 the last duplicate wins", `{"command":"x","command":"y","enabled":true,"enabled":false}`, MCPServerConfig{Command: "y"}},
		{"C1 explicit true", `{"url":"u","enabled":true}`, MCPServerConfig{URL: "u", Enabled: true}},
		{"C1 empty object", `{}`, MCPServerConfig{Enabled: true}},
		{"all fields", `{"command":"c","args":["a"],"env":{"K":"V"},"url":"u","headers":{"H":"V"},"disabledTools":["t"]}`,
			MCPServerConfig{Command: "c", Args: []string{"a"}, Env: map[string]string{"K": "V"}, URL: "u",
				Headers: map[string]string{"H": "V"}, Enabled: true, DisabledTools: []string{"t"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got MCPServerConfig
			if err := json.Unmarshal([]byte(tt.raw), &got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got)\n%s", diff)
			}
		})
	}
	t.Run("C1.2 a disabled server written and read back stays disabled", func(t *testing.T) {
		raw, err := json.Marshal(map[string]MCPServerConfig{"a": {URL: "u"}})
		if err != nil {
			t.Fatal(err)
		}
		var got map[string]MCPServerConfig
		if err := json.Unmarshal(raw, &got); err != nil || got["a"].Enabled {
			t.Errorf("%s read back as %+v (%v), want disabled", raw, got["a"], err)
		}
	})
	t.Run("C1 inside the stored map", func(t *testing.T) {
		var got map[string]MCPServerConfig
		if err := json.Unmarshal([]byte(`{"a":{"command":"x"},"b":{"command":"y","enabled":false}}`), &got); err != nil {
			t.Fatal(err)
		}
		if !got["a"].Enabled || got["b"].Enabled {
			t.Errorf("enabled: a=%v (want true), b=%v (want false)", got["a"].Enabled, got["b"].Enabled)
		}
	})
}

func TestC2_Transport(t *testing.T) {
	tests := []struct {
		name string
		cfg  MCPServerConfig
		want string
	}{
		{"command", MCPServerConfig{Command: "npx"}, "stdio"},
		{"command wins over url", MCPServerConfig{Command: "npx", URL: "http://x"}, "stdio"},
		{"url", MCPServerConfig{URL: "http://x"}, "http"},
		{"blank command, url", MCPServerConfig{Command: "  \t", URL: "http://x"}, "http"},
		{"blank both", MCPServerConfig{Command: " ", URL: "\n"}, ""},
		{"C2.1 Unicode blank command", MCPServerConfig{Command: "\u0085\u00a0", URL: "http://x"}, "http"},
		{"C2.1 a BOM is not blank", MCPServerConfig{Command: "\ufeff", URL: "http://x"}, "stdio"},
		{"C2.4 padded command", MCPServerConfig{Command: "  x"}, "stdio"},
		{"nothing", MCPServerConfig{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.cfg.Transport(); got != tt.want {
				t.Errorf("Transport() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestC3_Validate(t *testing.T) {
	const both = "un serveur MCP ne peut avoir à la fois 'command' (stdio) et 'url' (http)"
	const neither = "un serveur MCP doit avoir soit 'command' (stdio) soit 'url' (http)"
	tests := []struct {
		name string
		cfg  MCPServerConfig
		want string
	}{
		{"stdio", MCPServerConfig{Command: "npx"}, ""},
		{"http", MCPServerConfig{URL: "http://x"}, ""},
		{"both", MCPServerConfig{Command: "npx", URL: "http://x"}, both},
		{"neither", MCPServerConfig{}, neither},
		{"blanks are neither", MCPServerConfig{Command: "  ", URL: " "}, neither},
		{"blank command and url", MCPServerConfig{Command: " ", URL: "http://x"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := ""
			if err := tt.cfg.Validate(); err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("Validate() = %q, want %q", got, tt.want)
			}
		})
	}
}

const (
	npxMessage   = "délai dépassé — npx télécharge le paquet du serveur au premier lancement, ce qui peut être long ; clique « tester » pour réessayer (le paquet reste en cache), et vérifie que le conteneur atteint le registre (npm/PyPI)"
	uvxMessage   = "délai dépassé — uvx télécharge le paquet du serveur au premier lancement, ce qui peut être long ; clique « tester » pour réessayer (le paquet reste en cache), et vérifie que le conteneur atteint le registre (npm/PyPI)"
	otherMessage = "délai dépassé — le serveur n'a pas répondu au handshake en 20s"
)

func TestP3P4_TimeoutsAndMessages(t *testing.T) {
	tests := []struct {
		command string
		timeout time.Duration
		message string
	}{
		{"npx", 3 * time.Minute, npxMessage},
		{"NPX.cmd", 3 * time.Minute, npxMessage},
		{"/usr/bin/NPX.EXE", 3 * time.Minute, npxMessage},
		{"npx.cmd.exe", 3 * time.Minute, npxMessage},
		{"/usr/bin/uvx.exe", 3 * time.Minute, uvxMessage},
		{"uvx", 3 * time.Minute, uvxMessage},
		{"UVX", 3 * time.Minute, uvxMessage},
		{"./bin/npx", 3 * time.Minute, npxMessage},
		{"npx.exe.cmd", 20 * time.Second, otherMessage},
		{"uv", 20 * time.Second, otherMessage},
		{`C:\node\npx.cmd`, 20 * time.Second, otherMessage},
		{`node\npx`, 20 * time.Second, otherMessage},
		{" npx", 20 * time.Second, otherMessage},
		{"/opt/node/bin/npx ", 20 * time.Second, otherMessage},
		{"node", 20 * time.Second, otherMessage},
		{"/usr/bin/python3", 20 * time.Second, otherMessage},
		{"npx-wrapper", 20 * time.Second, otherMessage},
		{"/npx/server", 20 * time.Second, otherMessage},
		{"", 20 * time.Second, otherMessage},
	}
	for _, tt := range tests {
		t.Run("P3/"+tt.command, func(t *testing.T) {
			if got := ConnectTimeout(tt.command); got != tt.timeout {
				t.Errorf("ConnectTimeout(%q) = %v, want %v", tt.command, got, tt.timeout)
			}
		})
		t.Run("P4/"+tt.command, func(t *testing.T) {
			if got := TimeoutMessage(tt.command); got != tt.message {
				t.Errorf("TimeoutMessage(%q) =\n%q\nwant\n%q", tt.command, got, tt.message)
			}
		})
	}
	t.Run("P3 pool default is the rule", func(t *testing.T) {
		p := NewPool(nil, Options{})
		defer p.Close()
		for cmd, want := range map[string]time.Duration{"npx": 3 * time.Minute, "node": 20 * time.Second, "": 20 * time.Second} {
			if got := p.connectTimeout(cmd); got != want {
				t.Errorf("pool.connectTimeout(%q) = %v, want %v", cmd, got, want)
			}
		}
		if got := p.callTimeout(); got != 120*time.Second {
			t.Errorf("P10 pool.callTimeout() = %v, want 120s", got)
		}
	})
}

// TestT1_DeadlinesScaled: every deadline of the pool follows the time
// scale (P3's handshakes, P10's call attempts, P2's grace).
func TestT1_DeadlinesScaled(t *testing.T) {
	p := NewPool(nil, Options{TimeScale: 0.01})
	defer p.Close()
	for cmd, want := range map[string]time.Duration{"npx": 1800 * time.Millisecond, "node": 200 * time.Millisecond} {
		if got := p.connectTimeout(cmd); got != want {
			t.Errorf("P3 scaled connectTimeout(%q) = %v, want %v", cmd, got, want)
		}
	}
	if got := p.callTimeout(); got != 1200*time.Millisecond {
		t.Errorf("P10 scaled callTimeout() = %v, want 1.2s", got)
	}
	gt, ok := p.newTransport(MCPServerConfig{Command: "x"}).(*groupTransport)
	if !ok || gt.grace != 20*time.Millisecond {
		t.Errorf("P2 scaled grace: transport %T %+v, want a group transport with 20ms", gt, gt)
	}
	if got := TimeoutMessage("node"); got != otherMessage {
		t.Errorf("P4.2 the text keeps 20s: %q", got)
	}
}

func TestP7_Names(t *testing.T) {
	sanitize := []struct{ in, want string }{
		{"github", "github"},
		{"my server", "my_server"},
		{"a..b//c", "a_b_c"},
		{"__x__", "x"},
		{"  spaced  ", "spaced"},
		{"keep-dash_under", "keep-dash_under"},
		{"a__b", "a__b"},
		{"My Server!", "My_Server"},
		{"ops :: prod", "ops_prod"},
		{"édge", "dge"},
		{"a🙂b", "a_b"},
		{"🙂🙂", ""},
		{"a\u00a0b", "a_b"},
		{"é-ok", "-ok"},
		{"café.read", "caf_read"},
		{"Tool42", "Tool42"},
		{"!!!", ""},
		{"", ""},
	}
	for _, tt := range sanitize {
		t.Run("P7 sanitize/"+tt.in, func(t *testing.T) {
			if got := Sanitize(tt.in); got != tt.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	exposed := []struct{ server, tool, want string }{
		{"fs", "read_file", "mcp__fs__read_file"},
		{"my server", "read.file", "mcp__my_server__read_file"},
		{"x", "get-thing", "mcp__x__get-thing"},
		{"(s)", "[t]", "mcp__s__t"},
	}
	for _, tt := range exposed {
		t.Run("P7 exposed/"+tt.want, func(t *testing.T) {
			if got := ExposedName(tt.server, tt.tool); got != tt.want {
				t.Errorf("ExposedName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.want)
			}
		})
	}
	origin := []struct {
		name    string
		exposed string
		servers []string
		want    string
		ok      bool
	}{
		{"plain", "mcp__fs__read", []string{"a", "fs"}, "fs", true},
		{"sanitized server", "mcp__my_server__x", []string{"my server"}, "my server", true},
		{"first in order wins", "mcp__a_b__x", []string{"a b", "a_b"}, "a b", true},
		{"prefix needs __", "mcp__ab__x", []string{"a"}, "", false},
		{"no mcp prefix", "fs__read", []string{"fs"}, "", false},
		{"unknown server", "mcp__zz__read", []string{"fs"}, "", false},
		{"no servers", "mcp__fs__read", nil, "", false},
	}
	for _, tt := range origin {
		t.Run("P7 origin/"+tt.name, func(t *testing.T) {
			got, ok := OriginServer(tt.exposed, tt.servers)
			if got != tt.want || ok != tt.ok {
				t.Errorf("OriginServer(%q, %q) = %q, %v; want %q, %v", tt.exposed, tt.servers, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestP8_DescriptionAndSchema(t *testing.T) {
	descs := []struct{ server, desc, title, want string }{
		{"fs", "Reads a file.", "Read", "[MCP: fs] Reads a file."},
		{"fs", "", "Read", "[MCP: fs] Read"},
		{"my server", "", "", "[MCP: my server] "},
	}
	for _, tt := range descs {
		t.Run("P8 description/"+tt.want, func(t *testing.T) {
			if got := toolDescription(tt.server, tt.desc, tt.title); got != tt.want {
				t.Errorf("toolDescription = %q, want %q", got, tt.want)
			}
		})
	}
	schemas := []struct {
		name   string
		schema any
		want   string
	}{
		{"nil", nil, `{"type":"object","properties":{}}`},
		{"P8.4 an empty map is kept", map[string]any{}, `{}`},
		{"P8.4 an empty raw object is kept", json.RawMessage(`{}`), `{}`},
		{"null raw", json.RawMessage(`null`), `{"type":"object","properties":{}}`},
		{"P8.4 a list", []any{"not", "an", "object"}, `{"type":"object","properties":{}}`},
		{"P8.4 a string", "object", `{"type":"object","properties":{}}`},
		{"P8.4 a number", 3, `{"type":"object","properties":{}}`},
		{"type only is kept", map[string]any{"type": "object"}, `{"type":"object"}`},
		{"full", map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"type": "string"}}},
			`{"properties":{"q":{"type":"string"}},"type":"object"}`},
	}
	for _, tt := range schemas {
		t.Run("P8 schema/"+tt.name, func(t *testing.T) {
			if got := string(toolParameters(tt.schema)); got != tt.want {
				t.Errorf("toolParameters = %s, want %s", got, tt.want)
			}
		})
	}
}

func TestP11_Flatten(t *testing.T) {
	tests := []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"text", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}, "hello"},
		{"several texts joined by newline", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "a"}, &mcp.TextContent{Text: "b"}, &mcp.TextContent{Text: "c"}}}, "a\nb\nc"},
		{"image", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ImageContent{MIMEType: "image/png", Data: []byte{1, 2, 3}}}}, "[image image/png]"},
		{"audio", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte{1}}}}, "[audio audio/wav]"},
		{"resource link is JSON", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.ResourceLink{URI: "file:///tmp/a.txt", Name: "a.txt", MIMEType: "text/plain"}}},
			`{"type":"resource_link","mimeType":"text/plain","uri":"file:///tmp/a.txt","name":"a.txt"}`},
		{"embedded resource is JSON", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///b", MIMEType: "text/plain", Text: "inside"}}}},
			`{"type":"resource","resource":{"uri":"file:///b","mimeType":"text/plain","text":"inside"}}`},
		{"structured content only is indented JSON", &mcp.CallToolResult{
			StructuredContent: map[string]any{"b": 1, "a": []any{1, "x"}}},
			"{\n  \"a\": [\n    1,\n    \"x\"\n  ],\n  \"b\": 1\n}"},
		{"trimmed whitespace", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: " \n\t hi there \n "}}}, "hi there"},
		{"Unicode white space trimmed, a byte order mark is not", &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "\u0085\u00a0 hi \ufeff"}}}, "hi \ufeff"},
		{"empty", &mcp.CallToolResult{}, ""},
		// Beyond the nine.
		{"mixed kinds in order", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "see"}, &mcp.ImageContent{MIMEType: "image/jpeg"}, &mcp.AudioContent{MIMEType: "audio/ogg"}}},
			"see\n[image image/jpeg]\n[audio audio/ogg]"},
		{"text wins over structured content", &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: "t"}}, StructuredContent: map[string]any{"a": 1}}, "t"},
		{"blank text falls back to structured content", &mcp.CallToolResult{
			Content: []mcp.Content{&mcp.TextContent{Text: "  "}}, StructuredContent: map[string]any{"a": 1}}, "{\n  \"a\": 1\n}"},
		{"empty texts joined then trimmed", &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: ""}, &mcp.TextContent{Text: "x"}, &mcp.TextContent{Text: ""}}}, "x"},
	}
	for _, tt := range tests {
		t.Run("P11/"+tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Flatten(tt.res)); diff != "" {
				t.Errorf("Flatten (-want +got)\n%s", diff)
			}
		})
	}
}

func TestP12_Truncate(t *testing.T) {
	const limit = 12000
	ascii := func(n int) string { return strings.Repeat("a", n) }
	accents := func(n int) string { return strings.Repeat("é", n) }
	emoji := func(n int) string { return strings.Repeat("🙂", n) }
	tests := []struct {
		name   string
		in     string
		window int
		want   string
	}{
		{"under the cap", ascii(limit - 1), 0, ascii(limit - 1)},
		{"exactly at the cap", ascii(limit), 0, ascii(limit)},
		{"one over the cap", ascii(limit + 1), 0, ascii(limit) + "\n…[tronqué]"},
		{"accents exactly at the cap (runes, not bytes)", accents(limit), 0, accents(limit)},
		{"accents one over", accents(limit + 1), 0, accents(limit) + "\n…[tronqué]"},
		{"emoji exactly at the cap", emoji(limit), 0, emoji(limit)},
		{"emoji one over", emoji(limit + 1), 0, emoji(limit) + "\n…[tronqué]"},
		{"mixed runes one over", ascii(limit-1) + "é🙂", 0, ascii(limit-1) + "é\n…[tronqué]"},
		{"window below the floor uses 12000", ascii(limit + 1), 100, ascii(limit) + "\n…[tronqué]"},
		{"window below the floor, at 12000", accents(limit), 5000, accents(limit)},
		{"window above the floor, under it", ascii(15000), 20000, ascii(15000)},
		{"window above the floor, at it", emoji(20000), 20000, emoji(20000)},
		{"window above the floor, one over", emoji(20001), 20000, emoji(20000) + "\n…[tronqué]"},
		{"window 12001", ascii(12001), 12001, ascii(12001)},
		{"empty", "", 0, ""},
	}
	for _, tt := range tests {
		t.Run("P12/"+tt.name, func(t *testing.T) {
			res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: tt.in}}}
			got := CallOutput(res, tt.window)
			if tt.in == "" {
				got = Truncate(Flatten(res), OutputCap(tt.window))
			}
			if got != tt.want {
				t.Errorf("got %d runes ending %q, want %d runes ending %q",
					len([]rune(got)), tail(got), len([]rune(tt.want)), tail(tt.want))
			}
		})
	}
	caps := []struct{ window, want int }{{0, 12000}, {-5, 12000}, {11999, 12000}, {12000, 12000}, {12001, 12001}, {200000, 200000}}
	for _, tt := range caps {
		if got := OutputCap(tt.window); got != tt.want {
			t.Errorf("P12 OutputCap(%d) = %d, want %d", tt.window, got, tt.want)
		}
	}
}

func tail(s string) string {
	r := []rune(s)
	return string(r[max(0, len(r)-14):])
}

func TestP13_OutputTexts(t *testing.T) {
	text := func(s string) []mcp.Content { return []mcp.Content{&mcp.TextContent{Text: s}} }
	tests := []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"P13 tool error prefix", &mcp.CallToolResult{IsError: true, Content: text("boom")}, "[l'outil a renvoyé une erreur]\nboom"},
		{"P13 tool error, structured", &mcp.CallToolResult{IsError: true, StructuredContent: map[string]any{"e": 1}},
			"[l'outil a renvoyé une erreur]\n{\n  \"e\": 1\n}"},
		{"P13 tool error, truncated then prefixed", &mcp.CallToolResult{IsError: true, Content: text(strings.Repeat("x", 12001))},
			"[l'outil a renvoyé une erreur]\n" + strings.Repeat("x", 12000) + "\n…[tronqué]"},
		{"P13 empty output", &mcp.CallToolResult{}, "[ok] (aucune sortie)"},
		{"P13 blank output is empty", &mcp.CallToolResult{Content: text(" \n ")}, "[ok] (aucune sortie)"},
		{"P13 empty content list", &mcp.CallToolResult{Content: []mcp.Content{}}, "[ok] (aucune sortie)"},
		{"plain output", &mcp.CallToolResult{Content: text("fine")}, "fine"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := CallOutput(tt.res, 0); got != tt.want {
				t.Errorf("CallOutput = %q, want %q", tail(got), tail(tt.want))
			}
		})
	}
}

func TestP14_PromptLine(t *testing.T) {
	const head = "\n\nMCP servers connected (their tools are prefixed mcp__<server>__<tool>): "
	tests := []struct {
		name   string
		counts map[string]int
		want   string
	}{
		{"none", nil, ""},
		{"only empty servers", map[string]int{"a": 0}, ""},
		{"sorted, empty skipped", map[string]int{"b": 11, "a": 2, "c": 0}, head + "a (2), b (11)."},
		{"one", map[string]int{"fs": 1}, head + "fs (1)."},
		{"byte order", map[string]int{"b": 1, "B": 1, "a": 1}, head + "B (1), a (1), b (1)."},
		{"P14.2 formatted strings sorted: a space name after", map[string]int{"a b": 1, "a": 2}, head + "a (2), a b (1)."},
		{"P14.2 formatted strings sorted: a tab before the space", map[string]int{"a\t": 1, "a": 2}, head + "a\t (1), a (2)."},
		{"P14.2 beyond the BMP after U+FFFF", map[string]int{"\U0001F642": 1, "\uffff": 1}, head + "\uffff (1), \U0001F642 (1)."},
	}
	for _, tt := range tests {
		t.Run("P14/"+tt.name, func(t *testing.T) {
			if got := PromptLine(tt.counts); got != tt.want {
				t.Errorf("PromptLine = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestP15_CallLabel(t *testing.T) {
	long := map[string]any{"text": strings.Repeat("é", 200)}
	longJSON := `{"text":"` + strings.Repeat("é", 200) + `"}`
	exact := map[string]any{"t": strings.Repeat("x", 120-len(`{"t":""}`))}
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no args", nil, ""},
		{"empty args", map[string]any{}, ""},
		{"path first", map[string]any{"path": "p", "file": "f", "query": "q", "command": "c", "url": "u", "name": "n"}, "p"},
		{"file second", map[string]any{"file": "f", "query": "q", "command": "c", "url": "u", "name": "n"}, "f"},
		{"query third", map[string]any{"query": "q", "command": "c", "url": "u", "name": "n"}, "q"},
		{"command fourth", map[string]any{"command": "c", "url": "u", "name": "n"}, "c"},
		{"url fifth", map[string]any{"url": "u", "name": "n"}, "u"},
		{"name last", map[string]any{"name": "n", "other": "o"}, "n"},
		{"non-string skipped", map[string]any{"path": 3, "file": []any{"x"}, "query": "q"}, "q"},
		{"empty string skipped", map[string]any{"path": "", "file": "f"}, "f"},
		{"P15.1 white space is taken as sent", map[string]any{"path": "  ", "url": "u"}, "  "},
		{"P15.1 Unicode white space is taken", map[string]any{"path": "\u0085\u00a0", "url": "u"}, "\u0085\u00a0"},
		{"P15.1 a later key when earlier ones are empty", map[string]any{"path": "", "file": "", "query": "", "command": "", "url": "", "name": "n"}, "n"},
		{"no key: JSON", map[string]any{"b": 1, "a": "x"}, `{"a":"x","b":1}`},
		{"only non-strings: JSON", map[string]any{"path": 3}, `{"path":3}`},
		{"JSON exactly 120 runes", exact, `{"t":"` + strings.Repeat("x", 112) + `"}`},
		{"JSON cut at 120 runes", long, string([]rune(longJSON)[:120]) + "…"},
		{"JSON under 120 runes, over 120 bytes", map[string]any{"t": strings.Repeat("é", 100)}, `{"t":"` + strings.Repeat("é", 100) + `"}`},
		{"J1.2 markup and separators escaped", map[string]any{"t": "<a>&\u2028"}, `{"t":"\u003ca\u003e\u0026\u2028"}`},
		{"all keys empty: JSON", map[string]any{"path": ""}, `{"path":""}`},
	}
	for _, tt := range tests {
		t.Run("P15/"+tt.name, func(t *testing.T) {
			if got := CallLabel(tt.args); got != tt.want {
				t.Errorf("CallLabel = %q, want %q", got, tt.want)
			}
		})
	}
}
