package sdkserver

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// edgeName is the serverInfo name of the edge server.
const edgeName = "mcpparity-edge-server"

// edgePageSize is the edge server's tools/list page size: the last tool
// is on the second page, which a pool never asks for (P5).
const edgePageSize = 10

// Edge tools whose input schema the server sends empty, null or not an
// object, as some servers do (a go-sdk server refuses to register them so:
// a receiving middleware rewrites them on the wire).
const (
	edgeEmptySchema = "b-empty-schema"
	edgeNullSchema  = "c-null-schema"
	edgeListSchema  = "c2-list-schema"
)

// edgeTools are the tools of the edge server: names with runs of unsafe
// characters, a JSON-RPC error instead of a result, empty, null and
// non-object input schemas, a title without description, text with white space around it
// (Unicode white space: NEL is, BOM is not), a tool error without content,
// structured content and a resource link whose JSON needs sorting and
// escaping, and a tool on the second page.
func edgeTools() []tool {
	text := func(s ...string) mcp.ToolHandler {
		return func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res := &mcp.CallToolResult{Content: []mcp.Content{}}
			for _, t := range s {
				res.Content = append(res.Content, &mcp.TextContent{Text: t})
			}
			return res, nil
		}
	}
	return []tool{
		{&mcp.Tool{Name: "a..météo  now!!", Description: "A name with runs of unsafe characters.", InputSchema: noArgs}, text("météo ok")},
		{&mcp.Tool{Name: "a0-rpc-error", Description: "Answers with a JSON-RPC error instead of a result.", InputSchema: noArgs},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the tool broke: disk full"}
			}},
		{&mcp.Tool{Name: edgeEmptySchema, Title: "Empty schema", InputSchema: noArgs}, text("empty schema ok")},
		{&mcp.Tool{Name: edgeNullSchema, Description: "Its input schema is null.", InputSchema: noArgs}, text("null schema ok")},
		{&mcp.Tool{Name: edgeListSchema, Description: "Its input schema is a list, not an object.", InputSchema: noArgs}, text("list schema ok")},
		{&mcp.Tool{Name: "d-padded", Description: "Text blocks with white space around them.", InputSchema: noArgs}, text("\u0085\n  padded ", " output \t\n")},
		{&mcp.Tool{Name: "d2-bom", Description: "Text ending in a byte order mark, which is not white space.", InputSchema: noArgs}, text(" bom \ufeff")},
		{&mcp.Tool{Name: "e-error-empty", Description: "A tool error without any content.", InputSchema: noArgs},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{}}, nil
			}},
		{&mcp.Tool{Name: "e2-structured", Description: "Structured content whose keys are not sorted, with characters JSON escapes.", InputSchema: noArgs},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{},
					StructuredContent: json.RawMessage(`{"zeta":1,"alpha":"<b> & </b>","list":[{"y":2.5,"x":1e21}]}`)}, nil
			}},
		{&mcp.Tool{Name: "e3-link", Description: "A resource link whose fields need escaping.", InputSchema: noArgs},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return result(&mcp.ResourceLink{URI: "mcpparity://fixtures/a&b.html", Name: "<a&b>", MIMEType: "text/html"}), nil
			}},
		{&mcp.Tool{Name: "f-second-page", Description: "Only on the second page of tools/list.", InputSchema: noArgs}, text("second page")},
	}
}

// newEdge returns the edge server.
func newEdge() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: edgeName, Version: version}, &mcp.ServerOptions{PageSize: edgePageSize})
	for _, t := range edgeTools() {
		s.AddTool(t.def, t.handler)
	}
	s.AddReceivingMiddleware(rewriteSchemas(map[string]any{
		edgeEmptySchema: map[string]any{},
		edgeNullSchema:  nil,
		edgeListSchema:  []any{"not", "an", "object"},
	}))
	return s
}

// EdgeHandler serves the edge server over Streamable HTTP (SSE answers).
func EdgeHandler() http.Handler {
	s := newEdge()
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
}
