package scripted

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/mcpparity/mcpparity/internal/childproc"
	"github.com/mcpparity/mcpparity/internal/target"
)

// everythingStart bounds the start of server-everything (the first npx
// start downloads the package).
const everythingStart = 4 * time.Minute

// StartEverythingHTTP starts server-everything's Streamable HTTP server
// through npx on a free loopback port, in a process group of its own, and
// waits until it accepts connections; stop ends the group.
func StartEverythingHTTP(ctx context.Context) (url string, stop func(), err error) {
	if _, err := exec.LookPath("npx"); err != nil {
		return "", nil, ErrNoNpx
	}
	return startHTTPServer(ctx, "server-everything (streamableHttp)", func(addr string) (argv, env []string, err error) {
		_, port, _ := net.SplitHostPort(addr)
		return append(strings.Fields(EverythingCommand), "streamableHttp"), []string{"PORT=" + port}, nil
	})
}

// startHTTPServer starts a server process serving Streamable HTTP at /mcp
// on a free loopback port (command gives its command line and environment
// for the address), in a process group of its own, and waits until it
// accepts connections; stop ends the group.
func startHTTPServer(ctx context.Context, what string, command func(addr string) (argv, env []string, err error)) (url string, stop func(), err error) {
	// A port below the ephemeral range, reserved against the other runs of
	// the harness: one from listen(:0) may be another process's by the
	// time the server binds it.
	addr, release, err := target.FreeAddr()
	if err != nil {
		return "", nil, err
	}
	argv, env, err := command(addr)
	if err != nil {
		release()
		return "", nil, fmt.Errorf("%s: %w", what, err)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr // server-everything's stdout logs every request
	childproc.Own(cmd)
	if err := cmd.Start(); err != nil {
		release()
		return "", nil, fmt.Errorf("%s: %w", what, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop = func() {
		childproc.Kill(cmd)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
		}
		release()
	}
	if err := waitListening(ctx, addr, exited); err != nil {
		stop()
		return "", nil, fmt.Errorf("%s: %w", what, err)
	}
	return "http://" + addr + "/mcp", stop, nil
}

// waitListening polls addr until it accepts a connection, the process
// exits, ctx ends or everythingStart passes.
func waitListening(ctx context.Context, addr string, exited <-chan error) error {
	ctx, cancel := context.WithTimeout(ctx, everythingStart)
	defer cancel()
	for {
		conn, err := (&net.Dialer{Timeout: time.Second}).DialContext(ctx, "tcp", addr)
		if err == nil {
			conn.Close()
			return nil
		}
		select {
		case err := <-exited:
			return fmt.Errorf("exited before listening on %s: %v", addr, err)
		case <-ctx.Done():
			return fmt.Errorf("not listening on %s: %v", addr, ctx.Err())
		case <-time.After(100 * time.Millisecond):
		}
	}
}
