package sdkserver

import (
	"context"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modernName is the serverInfo name of the sessionless go-sdk server, the
// Go one of the three servers of the 2026-07-28 revision (the TypeScript
// and Python ones are in recorder/servers): the same three tools, each
// SDK's own way.
const modernName = "mcpparity-go-server"

// The three tools of the servers of the 2026-07-28 revision: a result, a
// tool error, a JSON-RPC error.
const (
	modernEcho     = "echo"
	modernFail     = "fail"
	modernRPCError = "rpc_error"
)

type echoArgs struct {
	Message string `json:"message"`
}

// newModern returns the server of the three tools. echo's arguments are
// validated by the SDK (bad ones are its own tool error).
func newModern() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: modernName, Version: version}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: modernEcho, Description: "Echoes its message."},
		func(_ context.Context, _ *mcp.CallToolRequest, a echoArgs) (*mcp.CallToolResult, any, error) {
			return result(&mcp.TextContent{Text: a.Message}), nil, nil
		})
	s.AddTool(&mcp.Tool{Name: modernFail, Description: "Always fails: returns a tool error (isError).", InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return toolError("the tool failed on purpose"), nil
		})
	s.AddTool(&mcp.Tool{Name: modernRPCError, Description: "Always fails: answers a JSON-RPC error.", InputSchema: noArgs},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "rpc_error failed on purpose"}
		})
	return s
}

// ModernHandler serves it over Streamable HTTP without sessions
// (StreamableHTTPOptions.Stateless): both eras on every request, SSE
// answers, GET and DELETE refused with 405.
func ModernHandler() http.Handler {
	s := newModern()
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true})
}
