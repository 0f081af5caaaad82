package record

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
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
	port, err := freePort()
	if err != nil {
		return "", nil, err
	}
	argv := append(strings.Fields(EverythingCommand), "streamableHttp")
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	cmd.Stderr = os.Stderr // its stdout logs every request
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop = func() {
		endGroup(cmd)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
		}
	}
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	if err := waitListening(ctx, addr, exited); err != nil {
		stop()
		return "", nil, fmt.Errorf("server-everything (streamableHttp): %w", err)
	}
	return "http://" + addr + "/mcp", stop, nil
}

// freePort returns a loopback port nothing listens on now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
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
