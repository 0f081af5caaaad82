package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mcpparity/mcpparity/impl"
)

func init() {
	register("serve-ref", "serve the reference pool's HTTP contract", runServeRef)
}

func runServeRef(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := newFlags("serve-ref", "--state DIR [--addr 127.0.0.1:0] [--workspace DIR]", stdout, stderr, `
The first line printed is the bound address. `+impl.TimeScaleVar+` scales every deadline.`)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	state := fs.String("state", "", "state folder (bbolt store), required")
	workspace := fs.String("workspace", "", "workspace folder ({workspace} in the catalog)")
	if code, done := parseFlags(fs, args, stderr); done {
		return code
	}
	if *state == "" {
		fmt.Fprintln(stderr, "serve-ref: --state is required")
		return 2
	}
	opts := impl.Options{Workspace: *workspace}
	// The harness scales every deadline through this variable, so that its
	// timing scenarios run in milliseconds.
	scale, err := impl.ParseTimeScale(os.Getenv(impl.TimeScaleVar))
	if err != nil {
		fmt.Fprintf(stderr, "serve-ref: %v\n", err)
		return 2
	}
	opts.TimeScale = scale
	srv, err := impl.Start(*addr, *state, opts)
	if err != nil {
		fmt.Fprintf(stderr, "serve-ref: %v\n", err)
		return 2
	}
	fmt.Fprintln(stdout, srv.Addr())
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		fmt.Fprintf(stderr, "serve-ref: shutdown: %v\n", err)
		return 1
	}
	return 0
}
