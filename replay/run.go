package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/childproc"
)

// Config is a replay process (`mcpparity replay`): a fixture served over
// HTTP or stdio, and where its report goes.
type Config struct {
	// Fixture is a fixture file or an embedded fixture name (sdk/sse.json).
	Fixture string
	// Addr is the HTTP listen address.
	Addr string
	// Stdio serves a stdio fixture on stdin and stdout instead of HTTP.
	Stdio bool
	// Options are the faults, requirements and limits of the serving.
	Options Options
	// ReportFile, if set, receives the report as JSON.
	ReportFile string
	// ReportDir, if set, receives DIR/<pid>.pid at start (locked while the
	// process lives), DIR/<pid>.recv (the method of every request, a line
	// each) and, unless ReportFile is set, the report as DIR/<pid>.json.
	ReportDir string
	// FaultsOnce, if set, names a marker file: the faults apply only in the
	// first process that creates it; the others get LaterFaults.
	FaultsOnce  string
	LaterFaults []Fault
	// WhileLocked, if set, names a file: the replay ends as soon as no
	// other process holds a lock on it.
	WhileLocked string
	// RequireEnv lists NAME=VALUE pairs the process must get (stdio).
	RequireEnv []string
}

// An Outcome is how a replay run ended: its report, and whether a die
// fault ended the session.
type Outcome struct {
	Report Report
	Died   bool
}

// Clean reports whether the run showed no problem: no die fault fired,
// the report is clean and the required environment was there.
func (o *Outcome) Clean() bool {
	return !o.Died && o.Report.Clean() && len(o.Report.EnvMismatches) == 0
}

// A SetupError is a replay that could not start: a bad fixture, options
// the fixture does not take, a report folder that cannot be written.
type SetupError struct{ Err error }

func (e *SetupError) Error() string { return e.Err.Error() }
func (e *SetupError) Unwrap() error { return e.Err }

// Run serves cfg until ctx ends (HTTP: the bound address and the
// endpoint's URL are the first lines of stdout) or stdin ends (stdio),
// then writes the report to stderr and to the report file. It returns a
// nil Outcome when the run failed (with a *SetupError when it could not
// start); an Outcome with an error when the run served and reported but
// met a problem on the way (a serving error).
func Run(ctx context.Context, cfg Config, stdin io.Reader, stdout, stderr io.Writer) (*Outcome, error) {
	// A closed stdout or stderr is a write error, never a SIGPIPE that
	// would end the process before its report is written.
	pipes := make(chan os.Signal, 1)
	signal.Notify(pipes, syscall.SIGPIPE)
	defer signal.Stop(pipes)
	opts := cfg.Options
	if cfg.FaultsOnce != "" && (len(opts.Faults) > 0 || len(cfg.LaterFaults) > 0) && !firstToCreate(cfg.FaultsOnce) {
		opts.Faults = cfg.LaterFaults
	}
	fx, err := LoadFixture(fixtureFile(cfg))
	if err != nil {
		return nil, &SetupError{err}
	}
	linger := delayOf(opts.Faults, FaultLinger)
	if linger > 0 {
		// Deaf to SIGTERM from the start, as a launcher's grandchild may be:
		// only the end of its process group (SIGKILL) stops it.
		signal.Ignore(syscall.SIGTERM)
	}
	if cfg.ReportDir != "" {
		done, err := startReportDir(cfg.ReportDir, &opts)
		if err != nil {
			return nil, &SetupError{err}
		}
		defer done()
	}
	if cfg.WhileLocked != "" {
		var stop context.CancelFunc
		ctx, stop = childproc.WhileHeld(ctx, cfg.WhileLocked)
		defer stop()
	}
	if file := reportFile(cfg); cfg.Stdio && file != "" {
		opts.Checkpoint = func(rep Report) { _ = WriteReportFile(file, rep) }
	}
	var out *Outcome
	var warn error
	if cfg.Stdio {
		out, warn, err = runStdio(ctx, fx, opts, linger, cfg.RequireEnv, stdin, stdout)
	} else {
		out, warn, err = runHTTP(ctx, fx, cfg.Addr, opts, stdout)
	}
	if err != nil {
		return nil, err
	}
	if slow := delayOf(opts.Faults, FaultSlowExit); slow > 0 {
		sleep(ctx, slow) // its input ended: a client ends it before its report or lets it exit
	}
	if err := writeReport(cfg, out.Report, stderr); err != nil {
		return nil, err
	}
	if linger > 0 {
		sleep(ctx, linger) // alive past the end of its input
	}
	return out, warn
}

// delayOf returns the delay of the last fault of kind among faults, or 0.
func delayOf(faults []Fault, kind FaultKind) time.Duration {
	var d time.Duration
	for _, f := range faults {
		if f.Kind == kind {
			d = f.Delay
		}
	}
	return d
}

// fixtureFile is the file a replay serves: the run's copy of the recording
// when the harness made one beside its report folder, else cfg.Fixture.
func fixtureFile(cfg Config) string {
	if cfg.ReportDir != "" {
		if file, ok := childproc.Dir(cfg.ReportDir).Fixture(cfg.Fixture); ok {
			return file
		}
	}
	return cfg.Fixture
}

// startReportDir writes DIR/<pid>.recv as requests arrive (the harness
// waits on it to act while a request is held) and DIR/<pid>.pid, locked
// while the process lives, which tells the harness this process started
// (it checks that a client ends what it started, P2). done closes both.
func startReportDir(dir string, opts *Options) (done func(), err error) {
	d := childproc.Dir(dir)
	recv, err := os.OpenFile(d.RecvFile(os.Getpid()), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	opts.OnReceive = func(method string) { _, _ = recv.WriteString(method + "\n") }
	f, err := d.Announce(os.Getpid())
	if err != nil {
		recv.Close()
		return nil, err
	}
	// The lock ends with the process anyway.
	return func() { f.Close(); recv.Close() }, nil
}

// runStdio serves a stdio fixture until stdin ends, ctx ends or SIGTERM,
// which the kernel sends when the parent dies (Linux). A linger fault
// stays deaf to SIGTERM, as it is meant to (it ends by itself within
// maxLinger). warn is a serving error that still left a report.
func runStdio(ctx context.Context, fx *fixtures.Fixture, opts Options, linger time.Duration, env []string, stdin io.Reader, stdout io.Writer) (out *Outcome, warn, err error) {
	sctx := ctx
	if linger == 0 {
		var stop context.CancelFunc
		sctx, stop = signal.NotifyContext(ctx, syscall.SIGTERM)
		defer stop()
		if !endWithParent() {
			return nil, nil, errors.New("the parent process is gone")
		}
	}
	r, err := ServeStdio(sctx, fx, stdin, stdout, opts)
	if sctx.Err() != nil {
		// Terminated (ctx may end on SIGTERM too): the parent's death
		// signal comes once for each of its threads; the later ones must
		// not cut the report short.
		signal.Ignore(syscall.SIGTERM)
	}
	if r == nil {
		return nil, nil, &SetupError{err}
	}
	r.EnvMismatches = envMismatches(env)
	out = &Outcome{Report: *r, Died: errors.Is(err, ErrDied)}
	if err != nil && !out.Died && !errors.Is(err, context.Canceled) {
		warn = err
	}
	return out, warn, nil
}

// runHTTP serves until ctx ends and returns the final report; warn is a
// serving error that ended it early.
func runHTTP(ctx context.Context, fx *fixtures.Fixture, addr string, opts Options, stdout io.Writer) (out *Outcome, warn, err error) {
	r, err := New(fx, opts)
	if err != nil {
		return nil, nil, &SetupError{err}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, nil, err
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
	case warn = <-served:
	}
	r.Close() // ends open GET streams, so Shutdown does not wait on them
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		srv.Close()
	}
	return &Outcome{Report: r.Report()}, warn, nil
}

// writeReport writes the report file first (a client may have closed
// stderr already: mcp-go closes it before stdin, and the harness reads the
// file), then the report to stderr.
func writeReport(cfg Config, rep Report, stderr io.Writer) error {
	file := reportFile(cfg)
	var err error
	if file != "" {
		err = WriteReportFile(file, rep)
	}
	fmt.Fprint(stderr, rep.String())
	return err
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

// reportFile is where the report goes: ReportFile, else the process's
// file of ReportDir ("" for neither).
func reportFile(cfg Config) string {
	if cfg.ReportFile == "" && cfg.ReportDir != "" {
		return childproc.Dir(cfg.ReportDir).ReportFile(os.Getpid())
	}
	return cfg.ReportFile
}
