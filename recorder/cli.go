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
	"github.com/mcpparity/mcpparity/recorder/sdkserver"
)

// listFlag collects a repeatable string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// proxyFlags are the flags of `mcpparity record --upstream…`.
type proxyFlags struct {
	fs                               *flag.FlagSet
	upstream, upstreamCmd, listen    *string
	out, name, sdkModule, sdkVersion *string
	secrets, headers                 listFlag
}

func newProxyFlags(w io.Writer) *proxyFlags {
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(w)
	p := &proxyFlags{fs: fs}
	p.upstream = fs.String("upstream", "", "URL of the server's Streamable HTTP endpoint: the recorder is then an HTTP proxy in front of it")
	p.upstreamCmd = fs.String("upstream-cmd", "", "command line of a stdio server: the recorder runs it and speaks stdio on its own stdin/stdout")
	p.listen = fs.String("listen", "127.0.0.1:0", "listen address of the HTTP proxy (the bound address is the first line on stdout)")
	p.out = fs.String("out", "", "fixture file to write (required)")
	p.name = fs.String("name", "", "manifest.name (default: the base name of --out)")
	p.sdkModule = fs.String("sdk-module", "", "the server's SDK, written to manifest.sdkModule and shown in the closing line, nothing else: the replay\n"+
		"never reads it (the server's own identity is manifest.server, from its serverInfo). Default: the go-sdk\n"+
		"linked into this binary when the server announces itself as "+sdkserver.Name+", else empty (unknown)")
	p.sdkVersion = fs.String("sdk-version", "", "the SDK's version, written to manifest.sdkVersion (default: as for --sdk-module)")
	fs.Var(&p.secrets, "secret", "a secret value never to be written, e.g. a configured env value (repeatable)")
	fs.Var(&p.headers, "header", "a configured request header: kept, its value written as "+fixtures.SecretPlaceholder+" (repeatable)")
	return p
}

// PrintProxyUsage writes the usage and flags of `mcpparity record
// --upstream…` to w.
func PrintProxyUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: mcpparity record (--upstream URL | --upstream-cmd CMD) --out FILE [flags]")
	fmt.Fprintln(w, "  the recorder as a standalone proxy for any client and server; the fixture is written when the")
	fmt.Fprintln(w, "  client ends its session (HTTP DELETE, stdin EOF) or on interrupt")
	p := newProxyFlags(w)
	p.fs.PrintDefaults()
}

// ProxyMain implements `mcpparity record --upstream…`: the recorder as a standalone
// proxy in front of an HTTP server (--upstream) or as the stdio server
// command of a client, running the real server (--upstream-cmd). The fixture
// is written when the client ends its session (HTTP DELETE, stdin EOF) or on
// ctx cancellation. Flags take one or two dashes; -h prints the usage on
// stdout.
func ProxyMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	pf := newProxyFlags(io.Discard)
	if err := pf.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			PrintProxyUsage(stdout)
			return 0
		}
		fmt.Fprintf(stderr, "record: %v\n", err)
		PrintProxyUsage(stderr)
		return 2
	}
	upstream, upstreamCmd, out, name := pf.upstream, pf.upstreamCmd, pf.out, pf.name
	if (*upstream == "") == (*upstreamCmd == "") || *out == "" || pf.fs.NArg() > 0 {
		fmt.Fprintln(stderr, "record: give exactly one of --upstream URL and --upstream-cmd CMD, and --out FILE")
		return 2
	}
	if *name == "" {
		*name = strings.TrimSuffix(filepath.Base(*out), filepath.Ext(*out))
	}
	cfg := Config{Name: *name, SDKModule: *pf.sdkModule, SDKVersion: *pf.sdkVersion, Headers: pf.headers, Secrets: pf.secrets}

	var rec Recording
	var err error
	if *upstream != "" {
		rec, err = recordHTTP(ctx, *upstream, *pf.listen, stdout, stderr)
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
	sdk := "unknown (--sdk-module)"
	if m := f.Manifest; m.SDKModule != "" {
		sdk = strings.TrimSpace(m.SDKModule + " " + m.SDKVersion)
	}
	fmt.Fprintf(stderr, "record: wrote %s (%d %s, %d tools; server %s; sdk %s)\n", *out, n,
		map[bool]string{true: "exchanges", false: "lines"}[f.HTTP != nil], f.Manifest.ToolCount, f.Manifest.Server, sdk)
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
	// The probes go to the upstream even after an interrupt (each is
	// bounded); an upstream gone by then leaves the fixture without them.
	if err := p.Probe(context.WithoutCancel(ctx)); err != nil {
		fmt.Fprintf(stderr, "record: no probes in the fixture: %v\n", err)
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
