package cli

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// tickServer is the argument that makes the test binary a server whose
// answers change from one recording to the next, as a real server with
// state on disk does: its tool tick counts its calls in a file that
// outlives the process.
const tickServer = "test-tick-server"

// runTickServer serves tick over stdio, or over Streamable HTTP at --http.
func runTickServer(args []string) int {
	fs := flag.NewFlagSet(tickServer, flag.ContinueOnError)
	file := fs.String("file", "", "the counter's file")
	addr := fs.String("http", "", "serve Streamable HTTP at this address (path /mcp)")
	if fs.Parse(args) != nil || *file == "" {
		return 2
	}
	server := mcp.NewServer(&mcp.Implementation{Name: "tick", Version: "1.0.0"}, nil)
	type out struct {
		Tick int    `json:"tick"`
		Unit string `json:"unit"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "tick", Description: "counts its calls"},
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, out, error) {
			data, _ := os.ReadFile(*file)
			n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
			n++
			if err := os.WriteFile(*file, []byte(strconv.Itoa(n)), 0o644); err != nil {
				return nil, out{}, err
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("tick %d", n)}}}, out{n, "call"}, nil
		})
	if *addr == "" {
		if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			return 1
		}
		return 0
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil)
	srv := &http.Server{Addr: *addr, Handler: h, ReadHeaderTimeout: 10 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		return 1
	}
	return 0
}
