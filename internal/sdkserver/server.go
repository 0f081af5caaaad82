// Package sdkserver is the real go-sdk MCP server that fixtures are recorded
// from: eleven tools with deterministic outputs that together cover every kind
// of tool result a client pool has to flatten.
package sdkserver

import (
	"context"
	"io"
	"net/http"
	"sort"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Name and version are the serverInfo announced in the initialize result.
const (
	Name    = "mcpparity-sdk-server"
	version = "1.0.0"
)

// New returns a server with the eleven tools.
func New() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: Name, Version: version}, nil)
	for _, t := range tools() {
		s.AddTool(t.def, t.handler)
	}
	return s
}

// ToolNames returns the tool names, sorted, as tools/list returns them.
func ToolNames() []string {
	var names []string
	for _, t := range tools() {
		names = append(names, t.def.Name)
	}
	sort.Strings(names)
	return names
}

// Handler serves the server over Streamable HTTP with stateful sessions.
// Answers to calls are SSE streams, or single JSON bodies when jsonResponse
// is set.
func Handler(jsonResponse bool) http.Handler {
	s := New()
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{JSONResponse: jsonResponse})
}

// ServeStdio serves one session over newline-delimited JSON on in and out,
// until in ends or ctx is cancelled.
func ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	return New().Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{out}})
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
