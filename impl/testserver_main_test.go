package impl

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// helperLife is how long a helper waits to be killed: longer than any
// wait of a test (waitTimeout).
const helperLife = 2 * time.Minute

// testServerMain runs the helper process selected by envServerKind and
// returns its exit code: TestMain calls it first when envServerKind is set.
func testServerMain() int {
	switch kind := os.Getenv(envServerKind); kind {
	case "sleep":
		// The grandchild of group-kill tests: it holds no pipe of its parent
		// (stdio is /dev/null) and waits to be killed, or for helperLife
		// (far past any test's wait, so that a missed kill fails the test
		// without leaving the process behind for long).
		time.Sleep(helperLife)
		return 0
	case "mcp":
		if err := runTestServerStdio(); err != nil {
			fmt.Fprintln(os.Stderr, "testserver:", err)
			return 1
		}
		return 0
	default:
		fmt.Fprintf(os.Stderr, "testserver: unknown kind %q\n", kind)
		return 2
	}
}

func runTestServerStdio() error {
	if p := os.Getenv(envServerStarts); p != "" {
		if err := appendPid(p, os.Getpid()); err != nil {
			return err
		}
	}
	if p := os.Getenv(envServerChildren); p != "" {
		// Same process group as this server (the pool starts it as a group
		// leader): only a group kill ends it.
		child := exec.Command(os.Args[0])
		child.Env = append(os.Environ(), envServerKind+"=sleep", "GORACE=atexit_sleep_ms=0")
		if err := child.Start(); err != nil {
			return err
		}
		if err := appendPid(p, child.Process.Pid); err != nil {
			return err
		}
	}
	o := testServerOptions{Stdio: true, Marker: os.Getenv(envServerMarker)}
	if n, err := strconv.Atoi(os.Getenv(envServerPageSize)); err == nil {
		o.PageSize = n
	}
	block := os.Getenv(envServerBlockInit) == "1"
	release := os.Getenv(envServerRelease)
	if block || release != "" {
		o.BeforeInitialize = func(ctx context.Context) error {
			if release != "" {
				return waitFile(ctx, release)
			}
			<-ctx.Done() // the request ends when stdin closes
			return ctx.Err()
		}
	}
	// Run ends when stdin closes (the client's end of the session); how it
	// ended is no concern of the tests.
	_ = newTestServer(o).Run(context.Background(), &mcp.StdioTransport{})
	if os.Getenv(envServerLinger) == "1" {
		time.Sleep(helperLife)
	}
	return nil
}
