// Command server is mcpparity-mcpgo-server: a small MCP server on
// github.com/mark3labs/mcp-go (v1.2.1), for mcpparity's recorder corpus.
//
// Three tools, in this order: echo, fail (a tool error, isError) and
// rpc_error (a JSON-RPC error response).
//
// Usage (from this folder, after `go build -o bin/server .`):
//
//	bin/server --stdio                  # newline-delimited JSON-RPC on stdin/stdout
//	bin/server --http 127.0.0.1:PORT    # Streamable HTTP at http://127.0.0.1:PORT/mcp
//
// Only MCP messages go to stdout; everything else goes to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

const (
	serverName    = "mcpparity-mcpgo-server"
	serverVersion = "1.0.0"
	endpointPath  = "/mcp"
)

// newServer builds the MCP server with its three tools. mcp-go lists tools
// sorted by name, which here is also the order they are added in.
func newServer() *server.MCPServer {
	s := server.NewMCPServer(serverName, serverVersion,
		server.WithToolCapabilities(false),
	)
	s.AddTool(
		mcp.NewTool("echo",
			mcp.WithDescription("Echoes its message."),
			mcp.WithString("message", mcp.Required()),
		),
		echo,
	)
	s.AddTool(
		mcp.NewTool("fail",
			mcp.WithDescription("Always fails: returns a tool error (isError)."),
		),
		fail,
	)
	s.AddTool(
		mcp.NewTool("rpc_error",
			mcp.WithDescription("Always fails: answers a JSON-RPC error."),
		),
		rpcError,
	)
	return s
}

func echo(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	message, err := req.RequireString("message")
	if err != nil {
		// A missing or non-string message is a tool error, as the SDK's own
		// input validation would make it.
		return mcp.NewToolResultError(err.Error()), nil
	}
	return mcp.NewToolResultText(message), nil
}

func fail(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return mcp.NewToolResultError("the tool failed on purpose"), nil
}

// rpcError returns a Go error. mcp-go v1.2.1 answers a tool handler's error
// with a JSON-RPC error whose message is the error's text; the code is always
// -32603 (internal error): the SDK offers a tool handler no way to choose
// another one (only mcp.URLElicitationRequiredError maps to its own code,
// -32042). See README.md.
func rpcError(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return nil, errors.New("rpc_error failed on purpose")
}

func main() {
	stdio := flag.Bool("stdio", false, "serve MCP over stdin/stdout")
	httpAddr := flag.String("http", "", "serve Streamable HTTP at http://`HOST:PORT`"+endpointPath)
	flag.Parse()
	if *stdio == (*httpAddr != "") || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "usage: server --stdio | --http HOST:PORT")
		os.Exit(2)
	}

	logger := log.New(os.Stderr, serverName+": ", 0)
	s := newServer()
	if *stdio {
		stdioServer := server.NewStdioServer(s)
		stdioServer.SetErrorLogger(logger)
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
		defer stop()
		// Listen returns nil when stdin ends, and the context's error on a signal.
		if err := stdioServer.Listen(ctx, os.Stdin, os.Stdout); err != nil && !errors.Is(err, context.Canceled) {
			logger.Fatal(err)
		}
		return
	}

	if err := serveHTTP(s, *httpAddr, logger); err != nil {
		logger.Fatal(err)
	}
}

// serveHTTP serves the SDK's Streamable HTTP transport (its defaults: a
// session id is issued at initialize, POST answers are application/json, a
// GET opens the standalone SSE stream) at addr, path /mcp only, until
// SIGTERM or SIGINT.
func serveHTTP(s *server.MCPServer, addr string, logger *log.Logger) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	streamable := server.NewStreamableHTTPServer(s)
	mux := http.NewServeMux()
	mux.Handle(endpointPath, streamable)
	httpServer := &http.Server{Handler: mux, ErrorLog: logger, ReadHeaderTimeout: 10 * time.Second}
	logger.Printf("listening on http://%s%s", ln.Addr(), endpointPath)

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- httpServer.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	streamable.CloseSessions(shutdownCtx)
	if err := httpServer.Shutdown(shutdownCtx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return nil
}
