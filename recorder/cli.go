package recorder

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/shlex"
	"github.com/mcpparity/mcpparity/fixtures"
)

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// ProxyMain implements `mcpparity record --upstream…`: the recorder as a standalone
// proxy in front of an HTTP server (--upstream) or as the stdio server
// command of a client, running the real server (--upstream-cmd). The fixture
// is written when the client ends its session (HTTP DELETE, stdin EOF) or on
// ctx cancellation.
func ProxyMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	upstream := fs.String("upstream", "", "URL of the server's Streamable HTTP endpoint")
	upstreamCmd := fs.String("upstream-cmd", "", "command line of a stdio server; the recorder then speaks stdio on its own stdin/stdout")
	listen := fs.String("listen", "127.0.0.1:0", "listen address of the HTTP proxy")
	out := fs.String("out", "", "fixture file to write (required)")
	name := fs.String("name", "", "manifest name (default: the base name of --out)")
	defModule, defVersion := GoSDK()
	sdkModule := fs.String("sdk-module", defModule, "module of the server's SDK, for the manifest")
	sdkVersion := fs.String("sdk-version", defVersion, "version of the server's SDK, for the manifest")
	var secrets, headers listFlag
	fs.Var(&secrets, "secret", "a secret value never to be written, e.g. a configured env value (repeatable)")
	fs.Var(&headers, "header", "a configured request header: kept, its value written as "+fixtures.SecretPlaceholder+" (repeatable)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if (*upstream == "") == (*upstreamCmd == "") || *out == "" || fs.NArg() > 0 {
		fmt.Fprintln(stderr, "record: give exactly one of --upstream URL and --upstream-cmd CMD, and --out FILE")
		return 2
	}
	if *name == "" {
		*name = strings.TrimSuffix(filepath.Base(*out), filepath.Ext(*out))
	}
	cfg := Config{Name: *name, SDKModule: *sdkModule, SDKVersion: *sdkVersion, Headers: headers, Secrets: secrets}

	var rec Recording
	var err error
	if *upstream != "" {
		rec, err = recordHTTP(ctx, *upstream, *listen, stdout, stderr)
	} else {
		rec, err = recordStdio(ctx, *upstreamCmd, stdin, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "record: %v\nrecord: %s not written\n", err, *out)
		return 1
	}
	f, err := Build(rec, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "record: %v\nrecord: %s not written\n", err, *out)
		return 1
	}
	if err := WriteFile(*out, f); err != nil {
		fmt.Fprintf(stderr, "record: %v\n", err)
		return 1
	}
	n := len(f.HTTP) + len(f.Stdio)
	fmt.Fprintf(stderr, "record: wrote %s (%d %s, %d tools)\n", *out, n, map[bool]string{true: "exchanges", false: "lines"}[f.HTTP != nil], f.Manifest.ToolCount)
	return 0
}

// recordHTTP serves the proxy until the client deletes its session or ctx
// ends. The first line on stdout is the bound address.
func recordHTTP(ctx context.Context, upstream, listen string, stdout, stderr io.Writer) (Recording, error) {
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return Recording{}, fmt.Errorf("--upstream %q is not a URL", upstream)
	}
	p, err := NewProxy(upstream, nil)
	if err != nil {
		return Recording{}, err
	}
	defer p.Close()
	// Fail fast, with the address, when nothing listens upstream.
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return Recording{}, fmt.Errorf("upstream %s is unreachable: %v", u.Redacted(), err)
	}
	conn.Close()

	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return Recording{}, err
	}
	fmt.Fprintln(stdout, ln.Addr().String())
	fmt.Fprintf(stderr, "record: proxy http://%s%s -> %s; the fixture is written when the client ends its session (DELETE) or on interrupt\n",
		ln.Addr(), u.EscapedPath(), u.Redacted())
	srv := &http.Server{Handler: p, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()

	select {
	case <-p.Ended():
	case <-ctx.Done():
	case err := <-served:
		return Recording{}, err
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

// recordStdio runs the server command and passes lines between it and this
// process's stdin/stdout until stdin ends or ctx ends.
func recordStdio(ctx context.Context, command string, stdin io.Reader, stdout, stderr io.Writer) (Recording, error) {
	argv, err := shlex.Split(command)
	if err != nil || len(argv) == 0 {
		return Recording{}, fmt.Errorf("--upstream-cmd %q: not a command line", command)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
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
