package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/mcpparity/mcpparity/internal/sdkserver"
)

func init() {
	register("sdk-server", "run the real go-sdk server with the eleven tools, or the gen server (HTTP or --stdio)", runSDKServer)
}

// runSDKServer serves the eleven-tool go-sdk server, or with --gen the gen
// server, over Streamable HTTP (the bound address on the first line; any
// path serves, /mcp by convention) or over stdio.
func runSDKServer(ctx context.Context, c *call) int {
	fs := c.flags("[--addr 127.0.0.1:0] [--json] [--stdio] [--gen] [--while-locked F]", `
Over HTTP the first line printed is the bound address; the server ends on
SIGINT or SIGTERM. exit codes: 0 ended, 1 a serving error, 2 bad flags or
an address that cannot be listened on`)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	jsonResponse := fs.Bool("json", false, "answer calls with application/json instead of SSE")
	stdio := fs.Bool("stdio", false, "serve one session on stdin/stdout instead of HTTP")
	gen := fs.Bool("gen", false, "serve the gen server: tools whose results their arguments describe")
	whileLocked := fs.String("while-locked", "", "end as soon as no other process holds a lock on this file (the harness that started the run is gone)")
	if code, done := c.parse(); done {
		return code
	}
	if *whileLocked != "" {
		var stop context.CancelFunc
		ctx, stop = sdkserver.WhileLocked(ctx, *whileLocked)
		defer stop()
	}
	if *stdio {
		serve := sdkserver.ServeStdio
		if *gen {
			serve = sdkserver.ServeGenStdio
		}
		if err := serve(ctx, c.stdin, c.stdout); err != nil && !errors.Is(err, context.Canceled) {
			return c.fail(1, err)
		}
		return 0
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return c.fail(2, err)
	}
	fmt.Fprintln(c.stdout, ln.Addr().String())
	handler := sdkserver.Handler(*jsonResponse)
	if *gen {
		handler = sdkserver.GenHandler(*jsonResponse)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-served:
		return c.fail(1, err)
	}
	srv.Close() // open SSE streams would hold a graceful shutdown
	return 0
}
