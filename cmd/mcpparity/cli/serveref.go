package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mcpparity/mcpparity/impl"
)

func init() {
	register("serve-ref", "serve the reference pool's HTTP contract", runServeRef)
}

func runServeRef(ctx context.Context, c *call) int {
	fs := c.flags("--state DIR [--addr 127.0.0.1:0] [--workspace DIR]", `
The first line printed is the bound address. `+impl.TimeScaleVar+` scales every deadline; `+impl.EraVar+` names the era.`)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	state := fs.String("state", "", "state folder (bbolt store), required")
	workspace := fs.String("workspace", "", "workspace folder ({workspace} in the catalog)")
	if code, done := c.parse(); done {
		return code
	}
	if *state == "" {
		return c.badUsage("--state is required")
	}
	// The harness scales every deadline (its timing scenarios run in
	// milliseconds) and names the era through the contract's variables.
	opts, err := impl.EnvOptions(os.Getenv)
	if err != nil {
		return c.fail(2, err)
	}
	opts.Workspace = *workspace
	srv, err := impl.Start(*addr, *state, opts)
	if err != nil {
		return c.fail(2, err)
	}
	fmt.Fprintln(c.stdout, srv.Addr())
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return c.failf(1, "shutdown: %v", err)
	}
	return 0
}
