package mutations

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Ways to run a mutant's tests.
const (
	// ExecBinary builds the test binary once per mutant (go test -c
	// -overlay), then runs it: first with the rule's tests, then, if they
	// pass, with the whole package, without building again.
	ExecBinary = "binary"
	// ExecGoTest runs go test -overlay directly (build and run each time).
	ExecGoTest = "gotest"
)

// Config tunes a Runner. Zero values give the defaults.
type Config struct {
	// Root is the module root (the folder of go.mod). Required.
	Root string
	// Workers is the number of mutants in flight; 0 means the number of
	// CPUs.
	Workers int
	// Floor and Multiplier set each mutant's timeout: Floor + Multiplier ×
	// the baseline's time (run time for the test binary, build time for
	// its build). 0 means 30 s and 3.
	Floor      time.Duration
	Multiplier float64
	// Exec is ExecBinary (default) or ExecGoTest.
	Exec string
	// Go is the go command; "" means "go".
	Go string
	// TempDir is where the run's temporary folder is made; "" means the
	// system's.
	TempDir string
	// Progress receives one line per finished mutant (nil: none).
	Progress io.Writer
	// NoFilter skips the rule-named first run: every mutant runs its whole
	// package.
	NoFilter bool
}

// Runner runs mutants against their package's tests.
type Runner struct {
	cfg Config
}

// NewRunner checks cfg and fills its defaults.
func NewRunner(cfg Config) (*Runner, error) {
	if cfg.Root == "" {
		return nil, errors.New("mutations: no module root")
	}
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, err
	}
	cfg.Root = root
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.Floor <= 0 {
		cfg.Floor = 30 * time.Second
	}
	if cfg.Multiplier <= 0 {
		cfg.Multiplier = 3
	}
	switch cfg.Exec {
	case "":
		cfg.Exec = ExecBinary
	case ExecBinary, ExecGoTest:
	default:
		return nil, fmt.Errorf("mutations: exec %q: want %s or %s", cfg.Exec, ExecBinary, ExecGoTest)
	}
	if cfg.Go == "" {
		cfg.Go = "go"
	}
	return &Runner{cfg: cfg}, nil
}

// BaselineError is returned when the unmutated tests fail (or do not
// build): no verdict could mean anything.
type BaselineError struct {
	Package string
	Output  string
	Err     error
}

func (e *BaselineError) Error() string {
	return fmt.Sprintf("baseline: tests of %s fail without any mutant (%v):\n%s", e.Package, e.Err, tail(e.Output, 4000))
}

func (e *BaselineError) Unwrap() error { return e.Err }

// pkgInfo is what the runner knows of one tested package.
type pkgInfo struct {
	dir          string // absolute
	importPath   string // "./impl" form, relative to Root
	ruleTests    map[string][]string
	baseBuild    time.Duration
	baseRun      time.Duration
	buildTimeout time.Duration
	runTimeout   time.Duration
}

// Run resolves ms against the sources (a stale mutant is an error before
// anything runs), runs the baseline of every package concerned, then every
// mutant. Mutants keep their Index if set (shards), else get their place in
// ms. When ctx is cancelled the running processes are killed, the
// temporary files removed, and the partial report is returned with
// Interrupted set, together with ctx's error.
func (r *Runner) Run(ctx context.Context, ms []Mutant) (*Report, error) {
	start := time.Now()
	if err := Resolve(r.cfg.Root, ms); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(r.cfg.TempDir, "mcpparity-mutate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)

	rep := &Report{
		Version: ReportVersion,
		Exec:    r.cfg.Exec,
		Workers: r.cfg.Workers,
		Started: start.UTC().Truncate(time.Second),
	}
	pkgs := map[string]*pkgInfo{}
	var order []string
	for _, m := range ms {
		dir := path.Dir(m.File)
		if pkgs[dir] == nil {
			pkgs[dir] = &pkgInfo{dir: filepath.Join(r.cfg.Root, filepath.FromSlash(dir)), importPath: "./" + dir}
			order = append(order, dir)
		}
	}
	sort.Strings(order)
	for _, dir := range order {
		p := pkgs[dir]
		if err := r.baseline(ctx, tmp, p); err != nil {
			if ctx.Err() != nil {
				rep.Interrupted = true
				rep.Elapsed = SecondsOf(time.Since(start))
				return rep, ctx.Err()
			}
			return nil, err
		}
		rep.Baselines = append(rep.Baselines, Baseline{
			Package: p.importPath, Build: SecondsOf(p.baseBuild), Run: SecondsOf(p.baseRun),
			BuildTimeout: SecondsOf(p.buildTimeout), RunTimeout: SecondsOf(p.runTimeout),
		})
		if r.cfg.Progress != nil {
			fmt.Fprintf(r.cfg.Progress, "baseline %s: build %.1fs, run %.1fs; timeout per mutant: build %.0fs, run %.0fs\n",
				p.importPath, p.baseBuild.Seconds(), p.baseRun.Seconds(), p.buildTimeout.Seconds(), p.runTimeout.Seconds())
		}
		if rt, err := RuleTests(p.dir); err == nil {
			p.ruleTests = rt
		}
	}

	jobs := make(chan Mutant)
	results := make(chan Result)
	var wg sync.WaitGroup
	for w := 0; w < r.cfg.Workers; w++ {
		wg.Go(func() {
			for m := range jobs {
				res, ok := r.runMutant(ctx, tmp, pkgs[path.Dir(m.File)], m)
				if ok {
					results <- res
				}
			}
		})
	}
	numbered := false
	for _, m := range ms {
		numbered = numbered || m.Index != 0
	}
	if !numbered {
		Number(ms)
	}
	go func() {
		defer close(jobs)
		for _, m := range ms {
			select {
			case jobs <- m:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() {
		wg.Wait()
		close(results)
	}()
	done := 0
	for res := range results {
		done++
		rep.Results = append(rep.Results, res)
		r.progress(done, len(ms), res)
	}
	sortResults(rep.Results)
	rep.Elapsed = SecondsOf(time.Since(start))
	if ctx.Err() != nil {
		rep.Interrupted = true
		rep.Pending = len(ms) - len(rep.Results)
		rep.finish()
		return rep, ctx.Err()
	}
	rep.finish()
	return rep, nil
}

func (r *Runner) progress(done, total int, res Result) {
	if r.cfg.Progress == nil {
		return
	}
	w := len(fmt.Sprint(total))
	by := ""
	switch {
	case res.KilledBy != "":
		by = " by " + res.KilledBy
	case res.Error != "":
		by = ": " + firstLine(res.Error)
	}
	fmt.Fprintf(r.cfg.Progress, "[%*d/%d] %-8s %-5s %s%s (%.1fs)\n", w, done, total, res.Verdict, res.Rule, res.ID, by, float64(res.Time))
}

// Number sets each mutant's Index to its place in ms (call it on the whole
// selection, before Shard.Split).
func Number(ms []Mutant) {
	for i := range ms {
		ms[i].Index = i
	}
}

// baseline builds and runs the unmutated tests of p once, to check that
// they pass and to measure them.
func (r *Runner) baseline(ctx context.Context, tmp string, p *pkgInfo) error {
	// The baseline has no measure to bound it: a generous fixed bound.
	const bound = 20 * time.Minute
	dir, err := os.MkdirTemp(tmp, "baseline-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	switch r.cfg.Exec {
	case ExecGoTest:
		x := r.goTest(ctx, bound, dir, p, "", "")
		if x.cancelled {
			return ctx.Err()
		}
		if x.err != nil || x.timedOut {
			return &BaselineError{Package: p.importPath, Output: x.out, Err: x.failure()}
		}
		p.baseRun = x.dur
	default:
		bin, x := r.build(ctx, bound, dir, p, "")
		if x.cancelled {
			return ctx.Err()
		}
		if x.err != nil || x.timedOut {
			return &BaselineError{Package: p.importPath, Output: x.out, Err: x.failure()}
		}
		p.baseBuild = x.dur
		x = r.runBinary(ctx, bound, bin, p, "")
		if x.cancelled {
			return ctx.Err()
		}
		if x.err != nil || x.timedOut {
			return &BaselineError{Package: p.importPath, Output: x.out, Err: x.failure()}
		}
		p.baseRun = x.dur
	}
	p.runTimeout = r.cfg.Floor + time.Duration(r.cfg.Multiplier*float64(p.baseRun))
	p.buildTimeout = r.cfg.Floor + time.Duration(r.cfg.Multiplier*float64(p.baseBuild))
	return nil
}

// runMutant runs one mutant; ok is false when the run was cancelled before
// a verdict.
func (r *Runner) runMutant(ctx context.Context, tmp string, p *pkgInfo, m Mutant) (res Result, ok bool) {
	start := time.Now()
	res = Result{Index: m.Index, ID: m.ID, Rule: m.Rule, File: m.File, Line: m.Line, Why: m.Why, Operator: m.Operator}
	finish := func(v Verdict) (Result, bool) {
		res.Verdict = v
		res.Time = SecondsOf(time.Since(start))
		return res, true
	}
	if ctx.Err() != nil {
		return res, false
	}
	dir, err := os.MkdirTemp(tmp, "mutant-")
	if err != nil {
		res.Error = err.Error()
		return finish(VerdictError)
	}
	defer os.RemoveAll(dir)
	overlay, err := r.writeOverlay(dir, m)
	if err != nil {
		res.Error = err.Error()
		return finish(VerdictError)
	}

	filter := m.Run
	if filter == "" && !r.cfg.NoFilter {
		filter = runFilter(p.ruleTests[m.Rule])
	}
	res.Filter = filter
	phases := []string{filter}
	if filter != "" {
		phases = append(phases, "") // a survivor of the filtered run must survive the whole package
	}

	var bin string
	if r.cfg.Exec == ExecBinary {
		var x execResult
		bin, x = r.build(ctx, p.buildTimeout, dir, p, overlay)
		res.Build = SecondsOf(x.dur)
		switch {
		case x.cancelled:
			return res, false
		case x.timedOut:
			res.Error = "build timed out after " + p.buildTimeout.String()
			return finish(VerdictTimeout)
		case x.err != nil:
			res.Error = "build failed: " + tail(x.out, 2000)
			return finish(VerdictError)
		}
	}
	for _, run := range phases {
		var x execResult
		if r.cfg.Exec == ExecBinary {
			x = r.runBinary(ctx, p.runTimeout, bin, p, run)
		} else {
			x = r.goTest(ctx, p.buildTimeout+p.runTimeout, dir, p, overlay, run)
		}
		res.Run = run
		if run == "" {
			res.Run = "(all)"
		}
		res.RunTime += SecondsOf(x.dur)
		switch {
		case x.cancelled:
			return res, false
		case x.timedOut || strings.Contains(x.out, "panic: test timed out after"):
			res.Error = "tests timed out"
			return finish(VerdictTimeout)
		case r.cfg.Exec == ExecGoTest && buildFailed(x.out):
			res.Error = "build failed: " + tail(x.out, 2000)
			return finish(VerdictError)
		case x.err != nil:
			res.Failed = failedTests(x.out)
			res.KilledBy = killer(res.Failed)
			if res.KilledBy == "" {
				res.Error = "tests failed without a --- FAIL line: " + tail(x.out, 1000)
			}
			return finish(VerdictKilled)
		}
	}
	return finish(VerdictSurvived)
}

// writeOverlay writes the mutated file and the overlay JSON into dir.
func (r *Runner) writeOverlay(dir string, m Mutant) (string, error) {
	orig := filepath.Join(r.cfg.Root, filepath.FromSlash(m.File))
	src, err := os.ReadFile(orig)
	if err != nil {
		return "", err
	}
	out, err := m.Apply(src)
	if err != nil {
		return "", err
	}
	mutated := filepath.Join(dir, filepath.Base(orig))
	if err := os.WriteFile(mutated, out, 0o644); err != nil {
		return "", err
	}
	raw, err := json.Marshal(map[string]map[string]string{"Replace": {orig: mutated}})
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	return overlay, os.WriteFile(overlay, raw, 0o644)
}

// build runs go test -c (with the overlay when not empty) into dir.
func (r *Runner) build(ctx context.Context, timeout time.Duration, dir string, p *pkgInfo, overlay string) (string, execResult) {
	bin := filepath.Join(dir, "pkg.test")
	// -ldflags=-w: no DWARF, a faster link (stack traces keep their lines).
	args := []string{r.cfg.Go, "test", "-c", "-vet=off", "-ldflags=-w", "-o", bin}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	args = append(args, p.importPath)
	x := r.exec(ctx, timeout, r.cfg.Root, dir, args)
	if x.err == nil && !x.timedOut && !x.cancelled {
		if _, err := os.Stat(bin); err != nil {
			x.err = fmt.Errorf("no test binary (no test files in %s?)", p.importPath)
		}
	}
	return bin, x
}

// runBinary runs a built test binary in its package folder, as go test
// does.
func (r *Runner) runBinary(ctx context.Context, timeout time.Duration, bin string, p *pkgInfo, run string) execResult {
	args := []string{bin, "-test.failfast", "-test.paniconexit0", "-test.count=1",
		"-test.timeout=" + (timeout + 30*time.Second).String()}
	if run != "" {
		args = append(args, "-test.run="+run)
	}
	return r.exec(ctx, timeout, p.dir, filepath.Dir(bin), args)
}

// goTest runs go test directly.
func (r *Runner) goTest(ctx context.Context, timeout time.Duration, dir string, p *pkgInfo, overlay, run string) execResult {
	args := []string{r.cfg.Go, "test", "-vet=off", "-ldflags=-w", "-failfast", "-count=1", "-timeout=" + (timeout + 30*time.Second).String()}
	if overlay != "" {
		args = append(args, "-overlay", overlay)
	}
	if run != "" {
		args = append(args, "-run="+run)
	}
	args = append(args, p.importPath)
	return r.exec(ctx, timeout, r.cfg.Root, dir, args)
}

type execResult struct {
	out       string
	dur       time.Duration
	err       error
	timedOut  bool
	cancelled bool
}

func (x execResult) failure() error {
	if x.timedOut {
		return errors.New("timed out")
	}
	return x.err
}

// exec runs argv in dir, in a session of its own, under timeout. Its
// output goes to a file in scratch (not a pipe: a leftover grandchild
// holding a pipe would delay the end), and go's own temporary files go to
// scratch too (GOTMPDIR), so that they are removed with it. When the
// timeout passes or ctx is cancelled, and again once the command has ended,
// every process of its session is killed: go test's children, the test
// binary, and what the tests started, even in process groups of their own
// (the pool starts stdio servers in their own group).
func (r *Runner) exec(ctx context.Context, timeout time.Duration, dir, scratch string, argv []string) execResult {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	outFile, err := os.CreateTemp(scratch, "output-*.txt")
	if err != nil {
		return execResult{err: err}
	}
	defer os.Remove(outFile.Name())
	defer outFile.Close()
	cmd := exec.CommandContext(tctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOTMPDIR="+scratch)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stdout = outFile
	cmd.Stderr = outFile
	cmd.Cancel = func() error {
		killSession(cmd.Process.Pid)
		return nil
	}
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	err = cmd.Start()
	if err == nil {
		err = cmd.Wait()
		killSession(cmd.Process.Pid)
	}
	x := execResult{dur: time.Since(start), err: err}
	if raw, rerr := os.ReadFile(outFile.Name()); rerr == nil {
		x.out = string(raw)
	}
	switch {
	case ctx.Err() != nil:
		x.cancelled = true
	case errors.Is(tctx.Err(), context.DeadlineExceeded):
		x.timedOut = true
	}
	return x
}

// killSession kills the process group sid and every process of the session
// sid (found in /proc; the group only where there is no /proc).
func killSession(sid int) {
	_ = syscall.Kill(-sid, syscall.SIGKILL)
	for range 5 {
		pids := sessionMembers(sid)
		if len(pids) == 0 {
			return
		}
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// sessionMembers lists the live (not zombie) processes of session sid.
func sessionMembers(sid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		raw, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp session …; comm may hold spaces.
		s := string(raw)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 4 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		if id, err := strconv.Atoi(f[3]); err == nil && id == sid {
			out = append(out, pid)
		}
	}
	return out
}

var failLine = regexp.MustCompile(`(?m)^\s*--- FAIL: (\S+)`)

// failedTests lists the tests reported failing in go test output, in order.
func failedTests(out string) []string {
	var names []string
	seen := map[string]bool{}
	for _, m := range failLine.FindAllStringSubmatch(out, -1) {
		if !seen[m[1]] {
			seen[m[1]] = true
			names = append(names, m[1])
		}
	}
	return names
}

// killer is the test credited with a kill: the first failing top-level
// test, or its most specific failing subtest.
func killer(failed []string) string {
	if len(failed) == 0 {
		return ""
	}
	top, _, _ := strings.Cut(failed[0], "/")
	best := failed[0]
	for _, f := range failed {
		t, _, _ := strings.Cut(f, "/")
		if t == top && strings.Count(f, "/") > strings.Count(best, "/") {
			best = f
		}
	}
	return best
}

func buildFailed(out string) bool {
	return strings.Contains(out, "[build failed]") || strings.Contains(out, "[setup failed]")
}

func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > 100 {
		s = s[:100] + "…"
	}
	return s
}

// Check compiles every mutant's package with the mutant applied (go build
// -overlay, no tests run) and returns the build error of each mutant that
// does not compile, by id. It is a quick check of a catalogue.
func (r *Runner) Check(ctx context.Context, ms []Mutant) (map[string]string, error) {
	if err := Resolve(r.cfg.Root, ms); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(r.cfg.TempDir, "mcpparity-mutate-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var mu sync.Mutex
	failed := map[string]string{}
	jobs := make(chan Mutant)
	var wg sync.WaitGroup
	for w := 0; w < r.cfg.Workers; w++ {
		wg.Go(func() {
			for m := range jobs {
				msg := r.checkOne(ctx, tmp, m)
				if msg != "" {
					mu.Lock()
					failed[m.ID] = msg
					mu.Unlock()
				}
			}
		})
	}
	for _, m := range ms {
		if ctx.Err() != nil {
			break
		}
		jobs <- m
	}
	close(jobs)
	wg.Wait()
	return failed, ctx.Err()
}

func (r *Runner) checkOne(ctx context.Context, tmp string, m Mutant) string {
	dir, err := os.MkdirTemp(tmp, "mutant-")
	if err != nil {
		return err.Error()
	}
	defer os.RemoveAll(dir)
	overlay, err := r.writeOverlay(dir, m)
	if err != nil {
		return err.Error()
	}
	x := r.exec(ctx, 10*time.Minute, r.cfg.Root, dir, []string{r.cfg.Go, "build", "-overlay", overlay, "./" + path.Dir(m.File)})
	switch {
	case x.cancelled:
		return ""
	case x.timedOut:
		return "build timed out"
	case x.err != nil:
		return tail(x.out, 2000)
	}
	return ""
}
