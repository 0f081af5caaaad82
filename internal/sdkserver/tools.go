package sdkserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// pingTimeout bounds the ping of ping_client.
var pingTimeout = 10 * time.Second

type tool struct {
	def     *mcp.Tool
	handler mcp.ToolHandler
}

var (
	noArgs      = json.RawMessage(`{"type":"object","properties":{}}`)
	bareObject  = json.RawMessage(`{"type":"object"}`)
	echoSchema  = json.RawMessage(`{"type":"object","properties":{"message":{"type":"string","description":"Text to send back."}},"required":["message"]}`)
	multiSchema = json.RawMessage(`{"type":"object","properties":{"count":{"type":"integer","minimum":1,"maximum":10,"description":"Number of text blocks (default 3)."}}}`)
	statsSchema = json.RawMessage(`{"type":"object","properties":{"tools":{"type":"integer"},"name":{"type":"string"},"ok":{"type":"boolean"}},"required":["tools","name","ok"]}`)
)

// tools defines the eleven tools. Every output is deterministic.
func tools() []tool {
	return []tool{
		{&mcp.Tool{Name: "audio", Description: "Returns a tiny WAV sound as audio content.", InputSchema: noArgs},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return result(&mcp.AudioContent{Data: tinyWAV(), MIMEType: "audio/wav"}), nil
			}},
		{&mcp.Tool{Name: "echo", Title: "Echo", Description: "Returns the message it is given, as text.", InputSchema: echoSchema},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var args struct {
					Message *string `json:"message"`
				}
				if err := decodeArgs(req, &args); err != nil {
					return toolError(err.Error()), nil
				}
				if args.Message == nil {
					return toolError("missing required argument: message"), nil
				}
				return result(&mcp.TextContent{Text: *args.Message}), nil
			}},
		{&mcp.Tool{Name: "embedded_resource", Description: "Returns an embedded text resource.", InputSchema: noArgs},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return result(&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
					URI: "mcpparity://fixtures/notes.txt", MIMEType: "text/plain", Text: "Notes embedded in the result.",
				}}), nil
			}},
		{&mcp.Tool{Name: "empty", Title: "Empty result", InputSchema: noArgs},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
			}},
		{&mcp.Tool{Name: "fail", Description: "Always fails: returns a tool error (isError) with a text.", InputSchema: noArgs},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return toolError("the tool failed on purpose"), nil
			}},
		{&mcp.Tool{Name: "image", Description: "Returns a 1×1 PNG image.", InputSchema: noArgs},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return result(&mcp.ImageContent{Data: tinyPNG, MIMEType: "image/png"}), nil
			}},
		{&mcp.Tool{Name: "long_text", Description: fmt.Sprintf("Returns %d runes of multi-byte text.", LongTextRunes), InputSchema: noArgs},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return result(&mcp.TextContent{Text: longText()}), nil
			}},
		{&mcp.Tool{Name: "multi_text", Description: "Returns several text blocks.", InputSchema: multiSchema},
			func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				args := struct {
					Count int `json:"count"`
				}{Count: 3}
				if err := decodeArgs(req, &args); err != nil {
					return toolError(err.Error()), nil
				}
				if args.Count < 1 || args.Count > 10 {
					return toolError(fmt.Sprintf("count must be between 1 and 10, got %d", args.Count)), nil
				}
				res := &mcp.CallToolResult{}
				for i := 1; i <= args.Count; i++ {
					res.Content = append(res.Content, &mcp.TextContent{Text: fmt.Sprintf("block %d of %d", i, args.Count)})
				}
				return res, nil
			}},
		{&mcp.Tool{Name: "ping_client", Description: "Pings the client before answering and reports the outcome.", InputSchema: noArgs},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				// Bounded: a client that never answers (gone, or with no
				// stream to carry the ping) must not hold the call, and the
				// server's Close with it, forever.
				ctx, cancel := context.WithTimeout(ctx, pingTimeout)
				defer cancel()
				if err := req.Session.Ping(ctx, nil); err != nil {
					return toolError("ping failed: " + err.Error()), nil
				}
				return result(&mcp.TextContent{Text: "ping ok"}), nil
			}},
		{&mcp.Tool{Name: "resource_link", Description: "Returns a link to a resource.", InputSchema: noArgs},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return result(&mcp.ResourceLink{
					URI: "mcpparity://fixtures/report.md", Name: "report.md", Title: "Report",
					Description: "A linked report.", MIMEType: "text/markdown",
				}), nil
			}},
		{&mcp.Tool{Name: "structured", Description: "Returns structured content only, with an empty content list.", InputSchema: bareObject, OutputSchema: statsSchema},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{
					Content:           []mcp.Content{},
					StructuredContent: map[string]any{"name": Name, "ok": true, "tools": 11},
				}, nil
			}},
	}
}

func result(c mcp.Content) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{c}}
}

func toolError(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

// decodeArgs reads the call's arguments into v; absent arguments leave v as is.
func decodeArgs(req *mcp.CallToolRequest, v any) error {
	raw := strings.TrimSpace(string(req.Params.Arguments))
	if raw == "" || raw == "null" {
		return nil
	}
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}
