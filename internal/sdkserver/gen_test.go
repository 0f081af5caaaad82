package sdkserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func connectGen(t *testing.T) *mcp.ClientSession {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := sdkserver.NewGen().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

// TestGenTools: the gen server lists its tools in its order, with its own
// schema, an empty one, a null one and one that is not an object.
func TestGenTools(t *testing.T) {
	cs := connectGen(t)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	schemas := map[string]string{}
	for _, tool := range list.Tools {
		got = append(got, tool.Name)
		raw, _ := json.Marshal(tool.InputSchema)
		schemas[tool.Name] = string(raw)
	}
	if strings.Join(got, "|") != strings.Join(sdkserver.GenTools, "|") {
		t.Errorf("tools %q, want %q", got, sdkserver.GenTools)
	}
	for name, want := range map[string]string{"Gen Two!": "{}", "_under_": "null", "éclair": `["not","an","object"]`} {
		if schemas[name] != want {
			t.Errorf("%s: schema %s, want %s", name, schemas[name], want)
		}
	}
	if !strings.Contains(schemas["gen"], `"blocks"`) {
		t.Errorf("gen: schema %s", schemas["gen"])
	}
}

// TestGenResults: each tool answers what its arguments describe, blocks
// of every type, a repeated unit, structured content as written, a tool
// error; a JSON-RPC error; bad arguments as a tool error.
func TestGenResults(t *testing.T) {
	cs := connectGen(t)
	call := func(args string) (*mcp.CallToolResult, string, error) {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "🙂", Arguments: json.RawMessage(args)})
		raw, _ := json.Marshal(res)
		return res, string(raw), err
	}
	for args, want := range map[string]string{
		`{"blocks":[{"type":"text","text":"a","unit":"🙂","repeat":3}]}`:                                `"content":[{"type":"text","text":"a🙂🙂🙂"}]`,
		`{"blocks":[{"type":"image","mimeType":"x/y"},{"type":"audio","mimeType":"a/b"}]}`:             `"mimeType":"x/y"`,
		`{"blocks":[{"type":"resource_link","uri":"u:1","name":"<n>","size":7,"meta":{"b":1,"a":2}}]}`: `"content":[{"type":"resource_link","uri":"u:1","name":"\u003cn\u003e","size":7,"_meta":{"a":2,"b":1}}]`,
		`{"blocks":[{"type":"resource","uri":"u:2","text":"t"}]}`:                                      `"resource":{"uri":"u:2","text":"t"}`,
		`{"structured":"{\"z\":1e21,\"a\":-0}","isError":true}`:                                        `"content":[],"structuredContent":{"a":-0,"z":1e+21},"isError":true`,
		`{"blocks":[{"type":"nope"}]}`:                                                                 `blocks[0]: unknown block type \"nope\"`,
		`{"blocks":[{"type":"text","unit":"x","repeat":200001}]}`:                                      `more than 200000 runes`,
		`{"structured":"[1]"}`: `structured: not a JSON object`,
	} {
		_, got, err := call(args)
		if err != nil || !strings.Contains(got, want) {
			t.Errorf("%s:\n got %s (%v)\nwant %s", args, got, err, want)
		}
	}
	if _, _, err := call(`{"rpcError":"disk full"}`); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("rpcError: %v", err)
	}
}
