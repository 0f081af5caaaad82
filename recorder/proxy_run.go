package recorder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/cmdline"
)

// ProxyConfig is a standalone recording proxy: in front of an HTTP server
// (Upstream) or as the stdio server command of a client (UpstreamCmd),
// exactly one of the two.
type ProxyConfig struct {
	// Upstream is the URL of the server's Streamable HTTP endpoint.
	Upstream string
	// UpstreamCmd is the command line of a stdio server.
	UpstreamCmd string
	// Listen is the listen address of the HTTP proxy.
	Listen string
	// Listening, if set, is called with the HTTP proxy's bound address
	// before it serves.
	Listening func(addr net.Addr)
	// Fixture says how the recording becomes a fixture.
	Fixture Config
	// Probes choose the probes of an HTTP recording.
	Probes ProbeOptions
	// ProbeFailed, if set, is told why an HTTP recording has no probes
	// (the upstream was gone by the time they were sent).
	ProbeFailed func(error)
}

// RunProxy records one session through a proxy and returns the fixture
// built from it. The session ends when the client ends it (HTTP DELETE,
// stdin EOF) or ctx ends. Over stdio, stdin and stdout are the client's
// and stderr the server's.
func RunProxy(ctx context.Context, cfg ProxyConfig, stdin io.Reader, stdout, stderr io.Writer) (*fixtures.Fixture, error) {
	var rec Recording
	var err error
	switch {
	case (cfg.Upstream == "") == (cfg.UpstreamCmd == ""):
		return nil, errors.New("recorder: give exactly one of an upstream URL and an upstream command")
	case cfg.Upstream != "":
		rec, err = recordHTTP(ctx, cfg)
	default:
		rec, err = recordStdio(ctx, cfg.UpstreamCmd, stdin, stdout, stderr)
	}
	if err != nil {
		return nil, err
	}
	return Build(rec, cfg.Fixture)
}

// recordHTTP serves the proxy until the client deletes its session or ctx
// ends.
func recordHTTP(ctx context.Context, cfg ProxyConfig) (Recording, error) {
	upstream := cfg.Upstream
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return Recording{}, fmt.Errorf("upstream %q is not a URL", upstream)
	}
	if err := Reachable(ctx, u); err != nil {
		return Recording{}, err
	}
	p, err := NewProxy(upstream, &ProxyOptions{Probes: cfg.Probes})
	if err != nil {
		return Recording{}, err
	}
	defer p.Close()

	ln, err := net.Listen("tcp", cfg.Listen)
	if err != nil {
		return Recording{}, err
	}
	if cfg.Listening != nil {
		cfg.Listening(ln.Addr())
	}
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case <-p.Ended():
	case <-ctx.Done():
	case err := <-served:
		return Recording{}, err
	}
	// The probes go to the upstream even after an interrupt (each is
	// bounded); an upstream gone by then leaves the fixture without them.
	if err := p.Probe(context.WithoutCancel(ctx)); err != nil && cfg.ProbeFailed != nil {
		cfg.ProbeFailed(err)
	}
	p.Close() // ends the open streams
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if errs := p.Errors(); len(errs) > 0 {
		return Recording{}, fmt.Errorf("the upstream failed during the recording:\n  %v", errors.Join(errs...))
	}
	return p.Recording(), nil
}

// Reachable fails fast, naming the upstream as given (its password
// hidden), when nothing accepts a connection at its address.
func Reachable(ctx context.Context, u *url.URL) error {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		var op *net.OpError
		if errors.As(err, &op) && op.Err != nil {
			err = op.Err // "connection refused", without the dialled address again
		}
		return fmt.Errorf("upstream %s is unreachable: %v", u.Redacted(), err)
	}
	return conn.Close()
}

// recordStdio runs the server command and passes lines between it and this
// process's stdin/stdout until stdin ends or ctx ends.
func recordStdio(ctx context.Context, command string, stdin io.Reader, stdout, stderr io.Writer) (Recording, error) {
	cmd, err := ServerCommand(command)
	if err != nil {
		return Recording{}, err
	}
	cmd.Stderr = stderr
	s := NewStdio(cmd)
	// Within the grace a client gives its stdio server before ending its
	// process group (the reference pool: 2 s), so the fixture gets written.
	s.StopTimeout = time.Second
	if err := s.Run(ctx, stdin, stdout); err != nil && !errors.Is(err, context.Canceled) {
		return Recording{}, err
	}
	return s.Recording(), nil
}

// ServerCommand is the command of a stdio server's command line (split as
// a shell would, without running one).
func ServerCommand(command string) (*exec.Cmd, error) {
	argv, err := cmdline.Split(command)
	if err != nil || len(argv) == 0 {
		return nil, fmt.Errorf("upstream command %q: not a command line", command)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	switch {
	case errors.Is(cmd.Err, exec.ErrNotFound):
		return nil, fmt.Errorf("upstream command %q: %s is not on PATH", command, argv[0])
	case cmd.Err != nil:
		return nil, fmt.Errorf("upstream command %q: %v", command, cmd.Err)
	}
	return cmd, nil
}
