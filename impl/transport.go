package impl

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newTransport builds the go-sdk transport of a configured server (P6).
func (p *Pool) newTransport(cfg MCPServerConfig) mcp.Transport {
	if cfg.Transport() == TransportStdio {
		cmd := p.command(cfg)
		cmd.Env = serverEnv(p.opts.BaseEnv, cfg.Env)
		cmd.Stderr = p.opts.ServerStderr
		return &groupTransport{cmd: cmd, grace: scale(stdinGrace, p.opts.TimeScale)}
	}
	// P6: Streamable HTTP; the SDK follows Mcp-Session-Id and reads JSON or
	// SSE answers; configured headers go on every request.
	return &mcp.StreamableClientTransport{
		Endpoint:   cfg.URL,
		HTTPClient: &http.Client{Transport: headerTransport{headers: cfg.Headers, base: p.opts.HTTPTransport}},
	}
}

// command is the stdio server's command (P6: no shell). A bare name is
// found on the service's PATH: Options.LookPath's when set (a service in
// this process has an environment of its own), else this process's.
func (p *Pool) command(cfg MCPServerConfig) *exec.Cmd {
	if p.opts.LookPath == nil || filepath.Base(cfg.Command) != cfg.Command {
		return exec.Command(cfg.Command, cfg.Args...)
	}
	path, err := p.opts.LookPath(cfg.Command)
	cmd := exec.Command(path, cfg.Args...)
	cmd.Args[0] = cfg.Command
	cmd.Err = err // P6.3: exec: "<command>": executable file not found in $PATH
	return cmd
}

// serverEnv implements P6 for stdio: the service environment plus the
// configured env (configured values win).
func serverEnv(base []string, env map[string]string) []string {
	if base == nil {
		base = os.Environ()
	}
	out := append([]string(nil), base...)
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+env[k])
	}
	return out
}

// headerTransport sets the configured headers on every request (P6.5)
// and reads a refusal by its status alone (P5.4).
type headerTransport struct {
	headers map[string]string
	base    http.RoundTripper
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if len(t.headers) > 0 {
		req = req.Clone(req.Context())
		for k, v := range t.headers {
			req.Header.Set(k, v)
		}
	}
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	resp, err := base.RoundTrip(req)
	if err == nil && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		// P5.4: an answer outside 2xx is its status text (the go-sdk
		// v1.6.1 of the Go pool reads no JSON-RPC error in its body).
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		resp.Body, resp.ContentLength = http.NoBody, 0
	}
	return resp, err
}

// groupTransport runs a stdio server in its own process group and ends the
// whole group when the connection closes, so that a launcher such as npx
// leaves no child behind.
type groupTransport struct {
	cmd   *exec.Cmd
	grace time.Duration // stdinGrace, scaled
	conn  *groupConn    // set once started
}

// established marks the handshake as done: from now on Close is graceful.
func (t *groupTransport) established() {
	if t.conn != nil {
		t.conn.established.Store(true)
	}
}

// stdinGrace is how long a closing stdio server may take to exit on its own
// after its stdin closes, before its group is signalled.
const stdinGrace = 2 * time.Second

func (t *groupTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	t.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	inner := &mcp.CommandTransport{Command: t.cmd, TerminateDuration: t.grace}
	conn, err := inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &groupConn{Connection: conn, pid: t.cmd.Process.Pid, grace: t.grace}
	return t.conn, nil
}

type groupConn struct {
	mcp.Connection
	pid   int
	grace time.Duration
	once  sync.Once
	err   error
	// established is set once the handshake succeeded; before that, Close
	// ends the group at once (a server stuck in its handshake gets no
	// grace period).
	established atomic.Bool
}

func (c *groupConn) Close() error {
	c.once.Do(func() {
		if !c.established.Load() {
			killGroup(c.pid)
		}
		done := make(chan error, 1)
		go func() { done <- c.Connection.Close() }()
		select {
		case c.err = <-done:
		case <-time.After(c.grace):
			// The direct child ignores stdin's end: end the group now, which
			// also unblocks the SDK's own wait.
			killGroup(c.pid)
			c.err = <-done
		}
		killGroup(c.pid) // grandchildren (npx → node) share the group
		var ee *exec.ExitError
		if errors.As(c.err, &ee) {
			c.err = nil // a signalled server is the expected end
		}
	})
	return c.err
}

func killGroup(pid int) {
	_ = syscall.Kill(-pid, syscall.SIGKILL)
}

var _ io.Closer = (*groupConn)(nil)

// notFound words a 404 answered without a session id as the Go pool's
// go-sdk v1.6.1 does in the handshake era (P10.7): `sending "<method>":
// failed to connect (session ID: ): session not found`, where v1.8.0 says
// `Not Found` (it names a missing session only when it holds an id, and
// then both say the same). In the 2026-07-28 era v1.8.0's text stands.
func (p *Pool) notFound(err error) error {
	const v180 = ": Not Found"
	if err == nil || p.era() != EraHandshake || !strings.HasSuffix(err.Error(), v180) || !strings.Contains(err.Error(), `sending "`) {
		return err
	}
	msg := strings.TrimSuffix(err.Error(), v180) + ": failed to connect (session ID: ): " + mcp.ErrSessionMissing.Error()
	return reworded{msg: msg, err: err}
}

// reworded is an error with another text, wrapping the original.
type reworded struct {
	msg string
	err error
}

func (r reworded) Error() string { return r.msg }
func (r reworded) Unwrap() error { return r.err }
