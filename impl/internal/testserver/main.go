package testserver

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Main runs the helper process selected by EnvKind and returns its exit
// code. Call it from TestMain before anything else when EnvKind is set.
func Main() int {
	switch kind := os.Getenv(EnvKind); kind {
	case "sleep":
		// The grandchild of group-kill tests: it holds no pipe of its parent
		// (stdio is /dev/null) and waits to be killed.
		time.Sleep(time.Hour)
		return 0
	case "mcp":
		if err := runStdio(); err != nil {
			fmt.Fprintln(os.Stderr, "testserver:", err)
			return 1
		}
		return 0
	default:
		fmt.Fprintf(os.Stderr, "testserver: unknown kind %q\n", kind)
		return 2
	}
}

func runStdio() error {
	if p := os.Getenv(EnvStarts); p != "" {
		if err := AppendPid(p, os.Getpid()); err != nil {
			return err
		}
	}
	if p := os.Getenv(EnvChildren); p != "" {
		// Same process group as this server (the pool starts it as a group
		// leader): only a group kill ends it.
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), EnvKind+"=sleep", "GORACE=atexit_sleep_ms=0")
		if err := child.Start(); err != nil {
			return err
		}
		if err := AppendPid(p, child.Process.Pid); err != nil {
			return err
		}
	}
	o := Options{Stdio: true, Marker: os.Getenv(EnvMarker)}
	if n, err := strconv.Atoi(os.Getenv(EnvPageSize)); err == nil {
		o.PageSize = n
	}
	block := os.Getenv(EnvBlockInit) == "1"
	release := os.Getenv(EnvRelease)
	if block || release != "" {
		o.BeforeInitialize = func(ctx context.Context) error {
			if release != "" {
				return WaitFile(ctx, release)
			}
			<-ctx.Done() // the request ends when stdin closes
			return ctx.Err()
		}
	}
	// Run ends when stdin closes (the client's end of the session); how it
	// ended is no concern of the tests.
	_ = New(o).Run(context.Background(), &mcp.StdioTransport{})
	if os.Getenv(EnvLinger) == "1" {
		time.Sleep(time.Hour)
	}
	return nil
}
