package sdkserver

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"
)

// Main implements `mcpparity sdk-server`: the eleven-tool go-sdk
// server over Streamable HTTP (the bound address on the first line; any path
// serves, /mcp by convention) or over stdio.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sdk-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	jsonResponse := fs.Bool("json", false, "answer calls with application/json instead of SSE")
	stdio := fs.Bool("stdio", false, "serve one session on stdin/stdout instead of HTTP")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(stderr, "sdk-server: no positional argument is taken")
		return 2
	}
	if *stdio {
		if err := ServeStdio(ctx, stdin, stdout); err != nil && !errors.Is(err, context.Canceled) {
			fmt.Fprintf(stderr, "sdk-server: %v\n", err)
			return 1
		}
		return 0
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintf(stderr, "sdk-server: %v\n", err)
		return 2
	}
	fmt.Fprintln(stdout, ln.Addr().String())
	srv := &http.Server{Handler: Handler(*jsonResponse), ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-served:
		fmt.Fprintf(stderr, "sdk-server: %v\n", err)
		return 1
	}
	srv.Close() // open SSE streams would hold a graceful shutdown
	return 0
}
