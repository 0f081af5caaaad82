package replay

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
)

// replayList collects a repeated string flag.
type replayList []string

func (l *replayList) String() string     { return strings.Join(*l, ",") }
func (l *replayList) Set(s string) error { *l = append(*l, s); return nil }

// Main is the replay command line (mcpparity replay): it serves a fixture
// over HTTP (the bound address on the first line of stdout) or, with
// --stdio, on stdin/stdout. It prints the report to
// stderr when ctx ends (or stdin ends in stdio mode) and exits 1 when the
// report shows a problem (unmatched request, header mismatch, missing
// answer, refused request) or a die fault fired, 2 on bad usage or a bad fixture.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	// A closed stdout or stderr is a write error, never a SIGPIPE that
	// would end the process before its report is written.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fixture := fs.String("fixture", "", "fixture file, or embedded recording name (e.g. sdk/sse.json)")
	addr := fs.String("addr", "127.0.0.1:0", "HTTP listen address")
	stdio := fs.Bool("stdio", false, "serve a stdio fixture on stdin/stdout")
	answerTimeout := fs.Duration("answer-timeout", DefaultAnswerTimeout, "wait for the client's answer to a server request")
	reportFile := fs.String("report", "", "also write the report as JSON to this file")
	reportDir := fs.String("report-dir", "", "write DIR/<pid>.pid at start, and the report as JSON to DIR/<pid>.json at the end (one pair per process)")
	maxLine := fs.Int("max-line", DefaultMaxLineBytes, "stdio: longest client line in bytes; a longer one is dropped and answered with an error")
	maxSessions := fs.Int("max-sessions", DefaultMaxSessions, "HTTP: live sessions kept; past it the least recently used is evicted (its client gets 404)")
	faultsOnce := fs.String("faults-once", "", "apply the faults only in the first process that creates this marker file")
	whileLocked := fs.String("while-locked", "", "end as soon as no other process holds a lock on this file (the harness that started the run is gone)")
	var faults, headers, ignores, envs replayList
	fs.Var(&envs, "require-env", "stdio: an environment variable the server must get, repeatable: NAME=VALUE")
	fs.Var(&faults, "fault", "fault to inject, repeatable: session-expired:N, cut-stream:METHOD[#N], die:N, delay:200ms[:METHOD[#N]]")
	fs.Var(&headers, "require-header", "header every request must carry, repeatable: 'Name: value'")
	fs.Var(&ignores, "ignore", "params path left out of matching, repeatable (replaces the defaults "+strings.Join(DefaultIgnorePaths, ", ")+")")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: mcpparity replay --fixture F [--addr 127.0.0.1:0] [--stdio] [--fault ...]...")
		fs.PrintDefaults()
		if names := fixtures.List(); len(names) > 0 {
			fmt.Fprintln(stderr, "embedded recordings:", strings.Join(names, ", "))
		}
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *fixture == "" || fs.NArg() > 0 {
		fs.Usage()
		return 2
	}
	opts := Options{AnswerTimeout: *answerTimeout, MaxLineBytes: *maxLine, MaxSessions: *maxSessions}
	for _, s := range faults {
		f, err := ParseFault(s)
		if err != nil {
			fmt.Fprintln(stderr, "mcpparity replay:", err)
			return 2
		}
		opts.Faults = append(opts.Faults, f)
	}
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			fmt.Fprintf(stderr, "mcpparity replay: --require-header %q: want 'Name: value'\n", h)
			return 2
		}
		if opts.RequireHeaders == nil {
			opts.RequireHeaders = map[string]string{}
		}
		opts.RequireHeaders[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	if len(ignores) > 0 {
		opts.IgnorePaths = ignores
	}
	if *faultsOnce != "" && len(opts.Faults) > 0 && !firstToCreate(*faultsOnce) {
		opts.Faults = nil
	}
	fx, err := LoadFixture(*fixture)
	if err != nil {
		fmt.Fprintln(stderr, "mcpparity replay:", err)
		return 2
	}

	var linger time.Duration
	for _, f := range opts.Faults {
		if f.Kind == FaultLinger {
			linger = f.Delay
		}
	}
	if linger > 0 {
		// Deaf to SIGTERM from the start, as a launcher's grandchild may be:
		// only the end of its process group (SIGKILL) stops it.
		signal.Ignore(syscall.SIGTERM)
	}
	if *reportDir != "" {
		// Every request received is appended to DIR/<pid>.recv, one method a
		// line: the harness waits on it to act while a request is held.
		recv, err := os.OpenFile(filepath.Join(*reportDir, strconv.Itoa(os.Getpid())+".recv"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			fmt.Fprintln(stderr, "mcpparity replay:", err)
			return 2
		}
		defer recv.Close()
		opts.OnReceive = func(method string) { _, _ = recv.WriteString(method + "\n") }
		// Tells the harness this process started (it checks that a client
		// ends what it started, P2).
		// The file stays locked while the process lives, which another
		// process can test across PID namespaces (a container target).
		// It is locked under another name, then renamed: a pid file is
		// never seen unlocked while its process lives.
		pidFile := filepath.Join(*reportDir, strconv.Itoa(os.Getpid())+".pid")
		f, err := os.Create(pidFile + ".new")
		if err == nil {
			err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX)
		}
		if err == nil {
			err = os.Rename(pidFile+".new", pidFile)
		}
		if err != nil {
			fmt.Fprintln(stderr, "mcpparity replay:", err)
			return 2
		}
		defer f.Close() // the lock ends with the process anyway
	}
	if *whileLocked != "" {
		var stop context.CancelFunc
		ctx, stop = context.WithCancel(ctx)
		defer stop()
		go watchLock(ctx, *whileLocked, stop)
	}
	var rep Report
	died := false
	if *stdio {
		// The replay ends with its client: at the end of stdin, and on
		// SIGTERM, which the kernel sends when the parent dies (Linux). A
		// linger fault stays deaf to SIGTERM, as it is meant to (it ends by
		// itself within maxLinger).
		sctx := ctx
		if linger == 0 {
			var stop context.CancelFunc
			sctx, stop = signal.NotifyContext(ctx, syscall.SIGTERM)
			defer stop()
			if !endWithParent() {
				fmt.Fprintln(stderr, "mcpparity replay: the parent process is gone")
				return 1
			}
		}
		r, err := ServeStdio(sctx, fx, stdin, stdout, opts)
		if sctx.Err() != nil && ctx.Err() == nil {
			// Terminated: the parent's death signal comes once for each of
			// its threads; the later ones must not cut the report short.
			signal.Ignore(syscall.SIGTERM)
		}
		if r == nil {
			fmt.Fprintln(stderr, "mcpparity replay:", err)
			return 2
		}
		rep = *r
		rep.EnvMismatches = envMismatches(envs)
		died = errors.Is(err, ErrDied)
		if err != nil && !died && !errors.Is(err, context.Canceled) {
			fmt.Fprintln(stderr, "mcpparity replay:", err)
		}
	} else {
		var code int
		rep, code = serveReplayHTTP(ctx, fx, *addr, opts, stdout, stderr)
		if code != 0 {
			return code
		}
	}
	// The report file first: a client may have closed stderr already
	// (mcp-go closes it before stdin), and the harness reads the file.
	if *reportDir != "" && *reportFile == "" {
		*reportFile = filepath.Join(*reportDir, strconv.Itoa(os.Getpid())+".json")
	}
	wrote := true
	if *reportFile != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*reportFile, append(b, '\n'), 0o644); err != nil {
			fmt.Fprintln(stderr, "mcpparity replay:", err)
			wrote = false
		}
	}
	fmt.Fprint(stderr, rep.String())
	if !wrote {
		return 1
	}
	if linger > 0 {
		sleep(ctx, linger) // alive past the end of its input
	}
	if died || !rep.Clean() || len(rep.EnvMismatches) > 0 {
		return 1
	}
	return 0
}

// serveReplayHTTP serves until ctx ends and returns the final report.
func serveReplayHTTP(ctx context.Context, fx *fixtures.Fixture, addr string, opts Options, stdout, stderr io.Writer) (Report, int) {
	r, err := New(fx, opts)
	if err != nil {
		fmt.Fprintln(stderr, "mcpparity replay:", err)
		return Report{}, 2
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(stderr, "mcpparity replay:", err)
		return Report{}, 1
	}
	path := "/"
	if len(fx.HTTP) > 0 {
		path = fx.HTTP[0].Request.Path
	}
	fmt.Fprintln(stdout, ln.Addr().String())
	fmt.Fprintf(stdout, "url http://%s%s\n", ln.Addr(), path)
	srv := &http.Server{Handler: r, ReadHeaderTimeout: 10 * time.Second}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
	case err := <-served:
		fmt.Fprintln(stderr, "mcpparity replay:", err)
	}
	r.Close() // ends open GET streams, so Shutdown does not wait on them
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	return r.Report(), 0
}

// firstToCreate creates the marker file and reports whether this process
// was the first to do so.
func firstToCreate(marker string) bool {
	f, err := os.OpenFile(marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// envMismatches checks the process environment against NAME=VALUE
// requirements; values are not reported (they may be secrets).
func envMismatches(reqs []string) []string {
	var out []string
	for _, r := range reqs {
		name, want, _ := strings.Cut(r, "=")
		got, ok := os.LookupEnv(name)
		switch {
		case !ok:
			out = append(out, name+" missing")
		case got != want:
			out = append(out, name+" different value")
		}
	}
	return out
}

// watchLock calls gone once no other process holds a lock on path (or the
// file is gone), until ctx ends. A flock is seen across PID namespaces.
func watchLock(ctx context.Context, path string, gone func()) {
	for sleep(ctx, 100*time.Millisecond) {
		f, err := os.Open(path)
		if err != nil {
			gone()
			return
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB)
		f.Close() // also releases a lock just taken
		if err == nil {
			gone()
			return
		}
	}
}
