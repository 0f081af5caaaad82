package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/shlex"
	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/recorder"
)

// recordStdin is the client side of a stdio recording (a variable for tests).
var recordStdin io.Reader = os.Stdin

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// runRecordProxy implements `mcpparity record`: the recorder as a standalone
// proxy in front of an HTTP server (--upstream) or as the stdio server
// command of a client, running the real server (--upstream-cmd). The fixture
// is written when the client ends its session (HTTP DELETE, stdin EOF) or on
// ctx cancellation.
func runRecordProxy(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	upstream := fs.String("upstream", "", "URL of the server's Streamable HTTP endpoint")
	upstreamCmd := fs.String("upstream-cmd", "", "command line of a stdio server; the recorder then speaks stdio on its own stdin/stdout")
	listen := fs.String("listen", "127.0.0.1:0", "listen address of the HTTP proxy")
	out := fs.String("out", "", "fixture file to write (required)")
	name := fs.String("name", "", "manifest name (default: the base name of --out)")
	defModule, defVersion := recorder.GoSDK()
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
	cfg := recorder.Config{Name: *name, SDKModule: *sdkModule, SDKVersion: *sdkVersion, Headers: headers, Secrets: secrets}

	var rec recorder.Recording
	var err error
	if *upstream != "" {
		rec, err = recordHTTP(ctx, *upstream, *listen, stdout, stderr)
	} else {
		rec, err = recordStdio(ctx, *upstreamCmd, stdout, stderr)
	}
	if err != nil {
		fmt.Fprintf(stderr, "record: %v\nrecord: %s not written\n", err, *out)
		return 1
	}
	f, err := recorder.Build(rec, cfg)
	if err != nil {
		fmt.Fprintf(stderr, "record: %v\nrecord: %s not written\n", err, *out)
		return 1
	}
	if err := recorder.WriteFile(*out, f); err != nil {
		fmt.Fprintf(stderr, "record: %v\n", err)
		return 1
	}
	n := len(f.HTTP) + len(f.Stdio)
	fmt.Fprintf(stderr, "record: wrote %s (%d %s, %d tools)\n", *out, n, map[bool]string{true: "exchanges", false: "lines"}[f.HTTP != nil], f.Manifest.ToolCount)
	return 0
}

// recordHTTP serves the proxy until the client deletes its session or ctx
// ends. The first line on stdout is the bound address.
func recordHTTP(ctx context.Context, upstream, listen string, stdout, stderr io.Writer) (recorder.Recording, error) {
	u, err := url.Parse(upstream)
	if err != nil || u.Host == "" {
		return recorder.Recording{}, fmt.Errorf("--upstream %q is not a URL", upstream)
	}
	p, err := recorder.NewProxy(upstream, nil)
	if err != nil {
		return recorder.Recording{}, err
	}
	defer p.Close()
	// Fail fast, with the address, when nothing listens upstream.
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	conn, err := (&net.Dialer{Timeout: 5 * time.Second}).DialContext(ctx, "tcp", net.JoinHostPort(u.Hostname(), port))
	if err != nil {
		return recorder.Recording{}, fmt.Errorf("upstream %s is unreachable: %v", u.Redacted(), err)
	}
	conn.Close()

	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return recorder.Recording{}, err
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
		return recorder.Recording{}, err
	}
	p.Close() // ends the open streams
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	if errs := p.Errors(); len(errs) > 0 {
		return recorder.Recording{}, fmt.Errorf("the upstream failed during the recording:\n  %v", errors.Join(errs...))
	}
	return p.Recording(), nil
}

// recordStdio runs the server command and passes lines between it and this
// process's stdin/stdout until stdin ends or ctx ends.
func recordStdio(ctx context.Context, command string, stdout, stderr io.Writer) (recorder.Recording, error) {
	argv, err := shlex.Split(command)
	if err != nil || len(argv) == 0 {
		return recorder.Recording{}, fmt.Errorf("--upstream-cmd %q: not a command line", command)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = stderr
	s := recorder.NewStdio(cmd)
	if err := s.Run(ctx, recordStdin, stdout); err != nil && !errors.Is(err, context.Canceled) {
		return recorder.Recording{}, err
	}
	return s.Recording(), nil
}
