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
	"sync/atomic"
	"syscall"
	"time"
)

// Config tunes a Runner. Zero values give the defaults.
type Config struct {
	// Root is the module root (the folder of go.mod). Required.
	Root string
	// Workers is the number of runs in flight (a check or a test binary
	// each); 0 means DefaultWorkers.
	Workers int
	// Floor and Multiplier set each run's timeout: Floor + Multiplier ×
	// the baseline's time. 0 means 30 s and 3.
	Floor      time.Duration
	Multiplier float64
	// Go is the go command; "" means "go".
	Go string
	// TempDir is where the run's temporary folder is made; "" means the
	// system's.
	TempDir string
	// Progress receives one line per finished mutant (nil: none).
	Progress io.Writer
	// NoFilter skips the rule-named first test run: the package's tests
	// run whole for every mutant.
	NoFilter bool
	// Harness is the package of the harness binary ("" means
	// ./cmd/mcpparity); CheckArgs its arguments for a check (nil means
	// "check"), to which --json FILE is added, and --failfast when the
	// harness's check offers it.
	Harness   string
	CheckArgs []string
	// OwnBuilds builds each mutant alone instead of hosting it in the
	// schemata (slower; a cross-check of the schemata).
	OwnBuilds bool
	// Coverage builds with coverage and runs the baselines with it: a
	// mutant that the baseline never reaches is "not covered" and not run.
	Coverage bool
	// NoTests skips the packages' tests (the suite's verdict only).
	NoTests bool
	// BuildTimeout bounds each go command (0: 10 minutes).
	BuildTimeout time.Duration
	// ConfirmWorkers is the number of mutants at once when kills seen
	// among Workers runs are confirmed, each with up to two runs, its
	// scenario and its test (0: two per CPU; one scenario is lighter than
	// a whole check).
	ConfirmWorkers int
}

// DefaultWorkers is the default number of runs in flight: a check mostly
// waits (on servers, handshakes, subprocesses), so runs outnumber CPUs
// (measured on 2 CPUs: 6 runs at once 77 s for the catalogue's main runs,
// 8 runs 63–77 s, 10 runs 63 s; kills seen under that load are confirmed
// afterwards).
func DefaultWorkers() int { return 4 * runtime.NumCPU() }

// Runner runs mutants: each is judged by the conformance check (the suite)
// and by its package's tests.
type Runner struct {
	cfg Config
	// load: runs share it, a confirmation holds it alone (the suite's
	// deadline scenarios can fail under load, mutated or not).
	load sync.RWMutex
}

// shared runs f alongside other runs.
func (r *Runner) shared(f func()) {
	r.load.RLock()
	defer r.load.RUnlock()
	f()
}

// alone runs f once every other run has ended, and none starts meanwhile.
func (r *Runner) alone(f func()) {
	r.load.Lock()
	defer r.load.Unlock()
	f()
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
		cfg.Workers = DefaultWorkers()
	}
	if cfg.Floor <= 0 {
		cfg.Floor = 30 * time.Second
	}
	if cfg.Multiplier <= 0 {
		cfg.Multiplier = 3
	}
	if cfg.Go == "" {
		cfg.Go = "go"
	}
	if cfg.Harness == "" {
		cfg.Harness = "./cmd/mcpparity"
	}
	if cfg.CheckArgs == nil {
		cfg.CheckArgs = []string{"check"}
	}
	if cfg.BuildTimeout <= 0 {
		cfg.BuildTimeout = 10 * time.Minute
	}
	if cfg.ConfirmWorkers <= 0 {
		cfg.ConfirmWorkers = 2 * runtime.NumCPU()
	}
	return &Runner{cfg: cfg}, nil
}

// BaselineError is returned when the unmutated build fails its own check or
// tests: no verdict could mean anything.
type BaselineError struct {
	What   string // "check" or "tests ./impl"
	Output string
	Err    error
}

func (e *BaselineError) Error() string {
	return fmt.Sprintf("baseline: %s fails without any mutant (%v):\n%s", e.What, e.Err, tail(e.Output, 4000))
}

func (e *BaselineError) Unwrap() error { return e.Err }

// baseline is what the unmutated runs measured.
type baseline struct {
	check        time.Duration
	checkTimeout time.Duration
	failfast     bool
	tests        map[string]*pkgTests
	cover        *coverage
	coverTime    time.Duration
}

// pkgTests is what the runner knows of one package's tests.
type pkgTests struct {
	dir       string // absolute
	name      string // "./impl"
	ruleTests map[string][]string
	run       time.Duration
	timeout   time.Duration
}

// Parts of a mutant's run.
const (
	partSuite = iota
	partTests
)

type mutantState struct {
	m    Mutant
	res  Result
	left int
	// start is when its first part started.
	start time.Time
	own   *ownBuild
}

type ownBuild struct {
	once   sync.Once
	dir    string
	b      *built
	broken string
	err    error
	dur    time.Duration
}

// Run resolves ms against the sources (a stale mutant is an error before
// anything runs), builds the schemata, runs the baselines, then judges
// every mutant. Mutants keep their Index if set (shards), else get their
// place in ms. When ctx is cancelled the running processes are killed, the
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
	numbered := false
	for _, m := range ms {
		numbered = numbered || m.Index != 0
	}
	if !numbered {
		Number(ms)
	}
	rep := &Report{
		Version: ReportVersion,
		Workers: r.cfg.Workers,
		Started: start.UTC().Truncate(time.Second),
	}
	interrupted := func() (*Report, error) {
		rep.Interrupted = true
		rep.Pending = len(ms) - len(rep.Results)
		rep.Elapsed = SecondsOf(time.Since(start))
		sortResults(rep.Results)
		rep.finish()
		return rep, ctx.Err()
	}

	// With coverage, the unmutated sources are built instrumented, side
	// by side with the schemata.
	var cov *built
	var covErr error
	var covWG sync.WaitGroup
	if r.cfg.Coverage {
		covWG.Go(func() {
			dir := filepath.Join(tmp, "cover-build")
			if covErr = os.MkdirAll(dir, 0o755); covErr != nil {
				return
			}
			var out string
			cov, out, covErr = r.buildAll(ctx, dir, "", packagesOf(ms), false)
			if cov == nil && covErr == nil {
				covErr = fmt.Errorf("coverage build failed:\n%s", tail(out, 4000))
			}
		})
	}
	bs, err := r.buildSchemata(ctx, filepath.Join(tmp, "schemata"), ms, false)
	covWG.Wait()
	if err == nil {
		err = covErr
	}
	if err != nil {
		if ctx.Err() != nil {
			return interrupted()
		}
		return nil, err
	}
	rep.Baselines = append(rep.Baselines, Baseline{Name: "build", Seconds: SecondsOf(bs.dur)})
	r.say("schemata: %d mutant(s) in one build, %d built alone, %d do not compile; %d round(s), %.1fs",
		len(bs.s.IDs), len(bs.own), len(bs.broken), bs.rounds, bs.dur.Seconds())

	base, err := r.baseline(ctx, tmp, &bs.built, cov, ms)
	if err != nil {
		if ctx.Err() != nil {
			return interrupted()
		}
		return nil, err
	}
	rep.Baselines = append(rep.Baselines, Baseline{Name: "check", Seconds: SecondsOf(base.check), Timeout: SecondsOf(base.checkTimeout)})
	var pkgs []string
	for p := range base.tests {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		t := base.tests[p]
		rep.Baselines = append(rep.Baselines, Baseline{Name: "tests " + t.name, Seconds: SecondsOf(t.run), Timeout: SecondsOf(t.timeout)})
	}
	ff := "without --failfast (check does not offer it)"
	if base.failfast {
		ff = "with --failfast"
	}
	r.say("baseline: check %.1fs (%s), timeout %.0fs%s", base.check.Seconds(), ff, base.checkTimeout.Seconds(), testsLine(base))
	if base.cover != nil {
		rep.Baselines = append(rep.Baselines, Baseline{Name: "coverage", Seconds: SecondsOf(base.coverTime)})
		r.say("coverage: every scenario and test alone, %.1fs: a mutant runs the ones that reach it", base.coverTime.Seconds())
	}

	// Every mutant: its two parts are separate jobs.
	states := make([]*mutantState, len(ms))
	type job struct {
		st   *mutantState
		part int
	}
	var jobs []job
	var confirm []*mutantState
	var mu sync.Mutex
	done := 0
	emit := func(st *mutantState) {
		rep.Results = append(rep.Results, st.res)
		done++
		r.progress(done, len(ms), st.res)
	}
	for i, m := range ms {
		st := &mutantState{m: m, res: Result{
			Index: m.Index, ID: m.ID, Rule: m.Rule, File: m.File, Line: m.Line, Why: m.Why, Operator: m.Operator,
			Build: BuildSchemata,
		}}
		states[i] = st
		if why, ok := bs.own[m.ID]; ok {
			st.res.Build, st.res.BuildNote = BuildOwn, why
			st.own = &ownBuild{dir: filepath.Join(tmp, "own-"+strconv.Itoa(m.Index))}
		}
		if why, ok := bs.broken[m.ID]; ok {
			st.res.Verdict, st.res.Error = VerdictError, why
			st.res.Tests = TestsResult{Verdict: VerdictError, Error: why}
			emit(st)
			continue
		}
		parts := []int{partSuite}
		if _, ok := base.tests[path.Dir(m.File)]; ok && !r.cfg.NoTests {
			parts = append(parts, partTests)
		}
		st.left = len(parts)
		for _, p := range parts {
			jobs = append(jobs, job{st, p})
		}
	}

	if base.cover != nil {
		// The longest runs first, by the baseline times of what they run,
		// so that no long one is left for the end.
		cost := func(j job) time.Duration {
			id := j.st.m.ID
			if j.part == partSuite {
				if d, ok := base.cover.suiteTime[id]; ok {
					return d
				}
				return base.check // outside every block: the whole check
			}
			if d, ok := base.cover.testsTime[id]; ok {
				return d
			}
			return base.tests[path.Dir(j.st.m.File)].run
		}
		sort.SliceStable(jobs, func(a, b int) bool { return cost(jobs[a]) > cost(jobs[b]) })
	}
	ch := make(chan job)
	var wg sync.WaitGroup
	for range r.cfg.Workers {
		wg.Go(func() {
			for j := range ch {
				st := j.st
				mu.Lock()
				if st.start.IsZero() {
					st.start = time.Now()
				}
				mu.Unlock()
				bins := &bs.built
				if st.own != nil {
					bins = r.ownBinaries(ctx, st)
					if bins == nil && ctx.Err() != nil {
						continue
					}
				}
				ok := false
				if bins == nil { // the own build failed
					msg := st.own.broken
					if st.own.err != nil {
						msg = st.own.err.Error()
					}
					if j.part == partSuite {
						st.res.Verdict, st.res.Error = VerdictError, msg
					} else {
						st.res.Tests = TestsResult{Verdict: VerdictError, Error: msg}
					}
					ok = true
				} else if j.part == partSuite {
					ok = r.runSuite(ctx, tmp, bins.harness, base, st)
				} else {
					ok = r.runTests(ctx, tmp, bins.tests[path.Dir(st.m.File)], base.tests[path.Dir(st.m.File)], base, st)
				}
				if !ok {
					continue // cancelled: no verdict
				}
				mu.Lock()
				st.left--
				if st.left == 0 {
					st.res.Time = SecondsOf(time.Since(st.start))
					if st.needsConfirm() {
						confirm = append(confirm, st)
					} else {
						if st.own != nil {
							_ = os.RemoveAll(st.own.dir)
						}
						emit(st)
					}
				}
				mu.Unlock()
			}
		})
	}
	for _, j := range jobs {
		if ctx.Err() != nil {
			break
		}
		select {
		case ch <- j:
		case <-ctx.Done():
		}
	}
	close(ch)
	wg.Wait()

	// Kills seen among other runs are confirmed with few runs at once.
	if len(confirm) > 0 && ctx.Err() == nil {
		cstart := time.Now()
		r.say("main runs done in %.1fs; confirming %d mutant(s), %d at once", time.Since(start).Seconds(), len(confirm), r.cfg.ConfirmWorkers)
		defer func() {
			if ctx.Err() == nil {
				r.say("confirmed in %.1fs", time.Since(cstart).Seconds())
			}
		}()
		// The longest first (timeouts run whole again), so that no long
		// one is left for the end.
		sort.SliceStable(confirm, func(i, j int) bool { return confirm[i].cost() > confirm[j].cost() })
		cch := make(chan *mutantState)
		for range r.cfg.ConfirmWorkers {
			wg.Go(func() {
				for st := range cch {
					bins := &bs.built
					if st.own != nil {
						bins = st.own.b
					}
					// The suite's and the tests' confirmations side by side.
					cs := time.Now()
					okSuite, okTests := true, true
					var both sync.WaitGroup
					if st.res.needsConfirm() {
						both.Go(func() { okSuite = r.confirmSuite(ctx, tmp, bins.harness, base, st) })
					}
					if st.res.Tests.needsConfirm() {
						both.Go(func() {
							okTests = r.confirmTests(ctx, tmp, bins.tests[path.Dir(st.m.File)], base.tests[path.Dir(st.m.File)], base, st)
						})
					}
					both.Wait()
					ok := okSuite && okTests
					st.res.ConfirmTime = SecondsOf(time.Since(cs))
					st.res.Time += st.res.ConfirmTime
					if st.own != nil {
						_ = os.RemoveAll(st.own.dir)
					}
					if ok {
						mu.Lock()
						emit(st)
						mu.Unlock()
					}
				}
			})
		}
		for _, st := range confirm {
			select {
			case cch <- st:
			case <-ctx.Done():
			}
		}
		close(cch)
		wg.Wait()
	}
	rep.Elapsed = SecondsOf(time.Since(start))
	if ctx.Err() != nil {
		return interrupted()
	}
	sortResults(rep.Results)
	rep.finish()
	return rep, nil
}

// needsConfirm: a kill, a timeout or a check that could not run, seen
// among other runs.
func (st *mutantState) needsConfirm() bool {
	return st.own.usable() && (st.res.needsConfirm() || st.res.Tests.needsConfirm())
}

func (o *ownBuild) usable() bool { return o == nil || o.b != nil }

// cost guesses how long a confirmation takes: a timeout runs whole again.
func (st *mutantState) cost() float64 {
	c := float64(st.res.CheckTime + st.res.Tests.Time)
	if st.res.Verdict == VerdictTimeout || st.res.Tests.Verdict == VerdictTimeout {
		c += 1e6
	}
	return c
}

func (r Result) needsConfirm() bool {
	return r.Verdict == VerdictKilled || r.Verdict == VerdictTimeout ||
		r.Verdict == VerdictError && !strings.HasPrefix(r.Error, "does not compile")
}

func (t TestsResult) needsConfirm() bool {
	return t.Verdict == VerdictKilled && t.KilledBy != "" || t.Verdict == VerdictTimeout
}

func testsLine(b *baseline) string {
	var s []string
	for _, t := range b.tests {
		s = append(s, fmt.Sprintf("; tests %s %.1fs, timeout %.0fs", t.name, t.run.Seconds(), t.timeout.Seconds()))
	}
	sort.Strings(s)
	return strings.Join(s, "")
}

// ownBinaries builds a mutant's own binaries once; nil when the build
// failed (st.own says why) or was cancelled.
func (r *Runner) ownBinaries(ctx context.Context, st *mutantState) *built {
	o := st.own
	o.once.Do(func() {
		start := time.Now()
		if err := os.MkdirAll(o.dir, 0o755); err != nil {
			o.err = err
			return
		}
		o.b, o.broken, o.err = r.buildOwn(ctx, o.dir, st.m, false)
		o.dur = time.Since(start)
	})
	if o.b == nil && o.broken == "" && o.err == nil {
		o.err = errors.New("own build failed")
	}
	if ctx.Err() != nil {
		return nil
	}
	return o.b
}

func (r *Runner) say(format string, args ...any) {
	if r.cfg.Progress != nil {
		fmt.Fprintf(r.cfg.Progress, format+"\n", args...)
	}
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
	tests := ""
	if res.Tests.Verdict != "" {
		tests = "; impl tests " + string(res.Tests.Verdict)
		if res.Tests.KilledBy != "" {
			tests += " by " + res.Tests.KilledBy
		}
	}
	own := ""
	if res.Build == BuildOwn {
		own = " [own build: " + firstLine(res.BuildNote) + "]"
	}
	fmt.Fprintf(r.cfg.Progress, "[%*d/%d] %-8s %-5s %s%s%s%s (%.1fs)\n", w, done, total, res.Verdict, res.Rule, res.ID, by, tests, own, float64(res.Time))
}

// Number sets each mutant's Index to its place in ms (call it on the whole
// selection, before Shard.Split).
func Number(ms []Mutant) {
	for i := range ms {
		ms[i].Index = i
	}
}

// probeID is a mutant id no build holds.
const probeID = "mcpparity-probe-no-such-mutant"

// baseline runs the unmutated check and tests once: they must pass, and
// their times set the timeouts. It also proves that the harness build
// hosts the schemata (an unknown id must stop it) and finds whether check
// offers --failfast. With cov (the coverage build), each scenario and
// each test then runs alone, to learn what it reaches.
func (r *Runner) baseline(ctx context.Context, tmp string, b, cov *built, ms []Mutant) (*baseline, error) {
	// The baseline has no measure to bound it: a generous fixed bound.
	const bound = 20 * time.Minute
	base := &baseline{tests: map[string]*pkgTests{}}
	scratch, err := os.MkdirTemp(tmp, "baseline-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)

	x := r.exec(ctx, time.Minute, r.cfg.Root, scratch, []string{b.harness}, MutantEnv+"="+probeID)
	if x.cancelled {
		return nil, ctx.Err()
	}
	if !strings.Contains(x.out, "no such mutant in this build") {
		return nil, fmt.Errorf("the harness build does not hold the schemata: %s=%s did not stop it:\n%s", MutantEnv, probeID, tail(x.out, 1000))
	}
	help := r.exec(ctx, time.Minute, r.cfg.Root, scratch, append(append([]string{b.harness}, r.cfg.CheckArgs...), "--help"), MutantEnv+"=")
	base.failfast = regexp.MustCompile(`(?m)^\s*--?failfast\b`).MatchString(help.out)

	var wg sync.WaitGroup
	var mu sync.Mutex
	var errs []error
	fail := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		errs = append(errs, err)
	}
	checkRun := func(harness, name string) []string {
		dir, err := os.MkdirTemp(scratch, "check-")
		if err != nil {
			fail(err)
			return nil
		}
		x, out := r.check(ctx, bound, dir, harness, "", "", base.failfast, false)
		switch {
		case x.cancelled:
			fail(ctx.Err())
		case x.err != nil || x.timedOut || out.Verdict != VerdictSurvived:
			fail(&BaselineError{What: name, Output: x.out, Err: x.failure()})
		}
		base.check = x.dur
		return out.Scenarios
	}
	testRun := func(bin string, t *pkgTests, name string) {
		x := r.runTestBinary(ctx, bound, bin, t, "", "", "")
		switch {
		case x.cancelled:
			fail(ctx.Err())
		case x.err != nil || x.timedOut:
			fail(&BaselineError{What: name, Output: x.out, Err: x.failure()})
		}
		t.run = x.dur
		t.timeout = r.cfg.Floor + time.Duration(r.cfg.Multiplier*float64(x.dur))
	}
	var scenarios []string
	runs := []func(){func() { scenarios = checkRun(b.harness, "check") }}
	for p, bin := range b.tests {
		t := &pkgTests{dir: filepath.Join(r.cfg.Root, filepath.FromSlash(p)), name: "./" + p}
		if rt, err := RuleTests(t.dir); err == nil {
			t.ruleTests = rt
		}
		base.tests[p] = t
		runs = append(runs, func() { testRun(bin, t, "tests "+t.name) })
	}
	for _, f := range runs {
		wg.Go(f)
	}
	wg.Wait()
	if len(errs) > 0 && ctx.Err() == nil {
		// Deadlines can fail under load (other jobs on the machine): once
		// more, one after the other.
		r.say("baseline: %v; once more, one run at a time", firstLine(errs[0].Error()))
		errs = nil
		for _, f := range runs {
			f()
		}
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if len(errs) > 0 {
		return nil, errs[0]
	}
	base.checkTimeout = r.cfg.Floor + time.Duration(r.cfg.Multiplier*float64(base.check))
	if cov != nil {
		start := time.Now()
		dir := filepath.Join(tmp, "coverage")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		if base.cover, err = r.measureCoverage(ctx, dir, cov, scenarios, base.tests, ms); err != nil {
			return nil, err
		}
		base.coverTime = time.Since(start)
	}
	return base, nil
}

// checkTimeout bounds a check of m: from the baseline times of the
// scenarios that reach it when coverage knows them, else of the whole
// check.
func (r *Runner) checkTimeout(base *baseline, m Mutant) time.Duration {
	if base.cover != nil {
		if d, ok := base.cover.suiteTime[m.ID]; ok {
			return min(base.checkTimeout, r.cfg.Floor+time.Duration(r.cfg.Multiplier*float64(d)))
		}
	}
	return base.checkTimeout
}

// testsTimeout is checkTimeout for m's tests.
func (r *Runner) testsTimeout(base *baseline, p *pkgTests, m Mutant) time.Duration {
	if base.cover != nil {
		if d, ok := base.cover.testsTime[m.ID]; ok {
			return min(p.timeout, r.cfg.Floor+time.Duration(r.cfg.Multiplier*float64(d)))
		}
	}
	return p.timeout
}

// suiteOutcome is check's verdict on one mutant.
type suiteOutcome struct {
	Verdict  Verdict
	KilledBy string
	Scenario string
	Path     string
	Want     string
	Got      string
	Error    string
	// Scenarios lists every scenario of check's JSON.
	Scenarios []string
}

// checkReport is the part of check --json that the runner reads.
type checkReport struct {
	Results []struct {
		Scenario string `json:"scenario"`
		Verdict  string `json:"verdict"`
		Diffs    []struct {
			Path     string `json:"path"`
			Want     string `json:"want"`
			Got      string `json:"got"`
			Accepted bool   `json:"accepted"`
		} `json:"diffs"`
		Error string `json:"error"`
	} `json:"results"`
}

// scenarioLine is check's progress line of a failed or broken scenario.
var scenarioLine = regexp.MustCompile(`(?m)^(fail|error)\s+(\S+)\s`)

// check runs the harness's check with mutant id active ("" for none) in
// scratch, and reads its verdict; run, when set, is its --run filter. With
// early, check stops
// at its first failing scenario: with --failfast when it offers it, else
// the runner stops it at the first failing scenario's progress line and
// runs that scenario alone, for its JSON.
func (r *Runner) check(ctx context.Context, timeout time.Duration, scratch, harness, id, run string, failfast, early bool) (execResult, suiteOutcome) {
	var watch func(string) bool
	if early && !failfast {
		watch = func(out string) bool { return scenarioLine.MatchString(out) }
	}
	var extra []string
	if early && failfast {
		extra = []string{"--failfast"}
	}
	if run != "" {
		extra = append(extra, "--run", run)
	}
	x, o := r.checkOnce(ctx, timeout, scratch, harness, id, "", extra, watch)
	if !x.stopped {
		return x, o
	}
	m := scenarioLine.FindStringSubmatch(x.out)
	first := x.dur
	x, o = r.checkOnce(ctx, timeout, scratch, harness, id, "", []string{"--run", "^" + regexp.QuoteMeta(m[2]) + "$"}, nil)
	x.dur += first
	if o.Verdict == VerdictSurvived && !x.cancelled {
		// The scenario passed alone: the whole check decides.
		second := x.dur
		if run != "" {
			extra = []string{"--run", run}
		} else {
			extra = nil
		}
		x, o = r.checkOnce(ctx, timeout, scratch, harness, id, "", extra, nil)
		x.dur += second
	}
	return x, o
}

// checkOnce runs check once with extra arguments; coverDir, when set,
// receives coverage counters (a build with -cover); watch, when set, is
// given the output as it grows and stops the run when it returns true.
func (r *Runner) checkOnce(ctx context.Context, timeout time.Duration, scratch, harness, id, coverDir string, extra []string, watch func(string) bool) (execResult, suiteOutcome) {
	report := filepath.Join(scratch, "check.json")
	_ = os.Remove(report)
	args := append(append(append([]string{harness}, r.cfg.CheckArgs...), "--json", report), extra...)
	env := []string{MutantEnv + "=" + id, "TMPDIR=" + scratch}
	if coverDir != "" {
		env = append(env, "GOCOVERDIR="+coverDir)
	}
	x := r.execWatch(ctx, timeout, r.cfg.Root, scratch, args, watch, env...)
	var o suiteOutcome
	if x.cancelled || x.stopped {
		return x, o
	}
	if x.timedOut {
		o.Verdict, o.Error = VerdictTimeout, "check timed out after "+timeout.Round(time.Second).String()
		return x, o
	}
	code := 0
	var ee *exec.ExitError
	if errors.As(x.err, &ee) {
		code = ee.ExitCode()
	} else if x.err != nil {
		o.Verdict, o.Error = VerdictError, x.err.Error()
		return x, o
	}
	var rep checkReport
	raw, rerr := os.ReadFile(report)
	if rerr == nil {
		rerr = json.Unmarshal(raw, &rep)
	}
	for _, res := range rep.Results {
		o.Scenarios = append(o.Scenarios, res.Scenario)
	}
	switch code {
	case 0:
		o.Verdict = VerdictSurvived
	case 1:
		for _, res := range rep.Results {
			if res.Verdict != "fail" {
				continue
			}
			for _, d := range res.Diffs {
				if !d.Accepted {
					o.Verdict = VerdictKilled
					o.Scenario, o.Path, o.Want, o.Got = res.Scenario, d.Path, clipValue(d.Want), clipValue(d.Got)
					o.KilledBy = res.Scenario + " " + d.Path
					return x, o
				}
			}
		}
		o.Verdict = VerdictError
		o.Error = "check exited 1 but its JSON names no failing scenario with a difference"
		if rerr != nil {
			o.Error += " (" + rerr.Error() + ")"
		}
		o.Error += ": " + tail(x.out, 600)
	default:
		o.Verdict = VerdictError
		var why []string
		for _, res := range rep.Results {
			if res.Verdict == "error" {
				why = append(why, res.Scenario+": "+res.Error)
			}
		}
		if len(why) == 0 {
			why = append(why, tail(x.out, 600))
		}
		o.Error = fmt.Sprintf("check could not run (exit %d): %s", code, strings.Join(why, "; "))
	}
	return x, o
}

// runSuite judges st's mutant by check; false when cancelled.
func (r *Runner) runSuite(ctx context.Context, tmp, harness string, base *baseline, st *mutantState) bool {
	run := ""
	if base.cover != nil {
		var covered bool
		if run, covered = base.cover.suiteFilter(st.m); !covered {
			st.res.Verdict = VerdictNotCovered
			return true
		}
	}
	scratch, err := os.MkdirTemp(tmp, "check-")
	if err != nil {
		st.res.Verdict, st.res.Error = VerdictError, err.Error()
		return true
	}
	defer os.RemoveAll(scratch)
	x, o := r.check(ctx, r.checkTimeout(base, st.m), scratch, harness, st.m.ID, run, base.failfast, true)
	if x.cancelled {
		return false
	}
	st.setSuite(o, x.dur)
	return true
}

func (st *mutantState) setSuite(o suiteOutcome, d time.Duration) {
	st.res.Verdict, st.res.KilledBy, st.res.Error = o.Verdict, o.KilledBy, o.Error
	st.res.Scenario, st.res.Path, st.res.Want, st.res.Got = o.Scenario, o.Path, o.Want, o.Got
	st.res.CheckTime += SecondsOf(d)
}

// confirmSuite checks a kill (a timeout, a check that could not run) seen
// among other runs: the killing scenario again, then, if it passes, the
// whole check again; false when cancelled. It runs in the confirmation phase,
// where few runs share the machine (the suite's deadline scenarios can
// fail under load, mutated or not).
func (r *Runner) confirmSuite(ctx context.Context, tmp, harness string, base *baseline, st *mutantState) bool {
	scratch, err := os.MkdirTemp(tmp, "confirm-")
	if err != nil {
		st.res.Verdict, st.res.Error = VerdictError, err.Error()
		return true
	}
	defer os.RemoveAll(scratch)
	// The suite's fields only: the tests' are confirmed meanwhile.
	firstVerdict, firstScenario, firstSummary := st.res.Verdict, st.res.Scenario, st.res.summary()
	if firstVerdict == VerdictKilled {
		x, again := r.checkOnce(ctx, base.checkTimeout, scratch, harness, st.m.ID, "", []string{"--run", "^" + regexp.QuoteMeta(firstScenario) + "$"}, nil)
		if x.cancelled {
			return false
		}
		st.res.CheckTime += SecondsOf(x.dur)
		if again.Verdict == VerdictKilled {
			st.setSuite(again, 0)
			return true
		}
	}
	run := ""
	if base.cover != nil {
		run, _ = base.cover.suiteFilter(st.m)
	}
	x, o := r.check(ctx, r.checkTimeout(base, st.m), scratch, harness, st.m.ID, run, base.failfast, true)
	if o.Verdict == VerdictError && !x.cancelled {
		// Could not run again: once more (a port taken by another process
		// between its choice and its use is one such cause).
		st.res.CheckTime += SecondsOf(x.dur)
		x, o = r.check(ctx, r.checkTimeout(base, st.m), scratch, harness, st.m.ID, run, base.failfast, true)
	}
	if x.cancelled {
		return false
	}
	st.setSuite(o, x.dur)
	if o.Verdict != firstVerdict || o.Scenario != firstScenario {
		st.res.Note = fmt.Sprintf("among other runs: %s; alone: %s", firstSummary, st.res.summary())
	}
	return true
}

// runTests judges st's mutant by its package's tests: with coverage, the
// tests that reach it; else first the tests naming its rule, then, if they
// pass, the whole package. False when cancelled.
func (r *Runner) runTests(ctx context.Context, tmp, bin string, p *pkgTests, base *baseline, st *mutantState) bool {
	t := &st.res.Tests
	phases, covered := r.testPlan(base, p, st)
	if !covered {
		t.Verdict = VerdictNotCovered
		return true
	}
	scratch, err := os.MkdirTemp(tmp, "tests-")
	if err != nil {
		t.Verdict, t.Error = VerdictError, err.Error()
		return true
	}
	defer os.RemoveAll(scratch)
	return r.testPhases(ctx, bin, p, phases, st.m.ID, scratch, r.testsTimeout(base, p, st.m), t)
}

// testPlan returns the -run filters of a mutant's test runs, in order.
func (r *Runner) testPlan(base *baseline, p *pkgTests, st *mutantState) (phases []string, covered bool) {
	t := &st.res.Tests
	if base.cover != nil {
		// The tests that reach the mutant, and no other.
		filter, covered := base.cover.testsFilter(st.m)
		t.Filter = filter
		return []string{filter}, covered
	}
	filter := st.m.Run
	if filter == "" && !r.cfg.NoFilter {
		filter = runFilter(p.ruleTests[st.m.Rule])
	}
	t.Filter = filter
	phases = []string{filter}
	if filter != "" {
		phases = append(phases, "") // a survivor of the filtered run must survive the whole package
	}
	return phases, true
}

// confirmTests checks a kill (or a timeout) by the tests seen among other
// runs, as confirmSuite: the failing test alone, then, if it passes, every
// run again. False when cancelled.
func (r *Runner) confirmTests(ctx context.Context, tmp, bin string, p *pkgTests, base *baseline, st *mutantState) bool {
	t := &st.res.Tests
	scratch, err := os.MkdirTemp(tmp, "confirm-")
	if err != nil {
		t.Verdict, t.Error = VerdictError, err.Error()
		return true
	}
	defer os.RemoveAll(scratch)
	again := TestsResult{Filter: t.Filter, Time: t.Time}
	if t.Verdict == VerdictKilled {
		top, _, _ := strings.Cut(t.KilledBy, "/")
		if !r.testPhases(ctx, bin, p, []string{"^" + regexp.QuoteMeta(top) + "$"}, st.m.ID, scratch, p.timeout, &again) {
			return false
		}
		if again.Verdict == VerdictKilled {
			t.Time = again.Time
			return true
		}
	}
	first := t.short()
	phases, _ := r.testPlan(base, p, st)
	again = TestsResult{Filter: t.Filter, Time: again.Time}
	if !r.testPhases(ctx, bin, p, phases, st.m.ID, scratch, r.testsTimeout(base, p, st.m), &again) {
		return false
	}
	*t = again
	if t.short() != first {
		t.Note = "among other runs: " + first + "; alone: " + t.short()
	}
	return true
}

// testPhases runs the test binary for each -run filter of phases ("" for
// all) until one fails, into t; false when cancelled.
func (r *Runner) testPhases(ctx context.Context, bin string, p *pkgTests, phases []string, id, scratch string, timeout time.Duration, t *TestsResult) bool {
	for _, run := range phases {
		x := r.runTestBinary(ctx, timeout, bin, p, run, id, "", "TMPDIR="+scratch)
		t.Run = run
		if run == "" {
			t.Run = "(all)"
		}
		t.Time += SecondsOf(x.dur)
		switch {
		case x.cancelled:
			return false
		case x.timedOut || strings.Contains(x.out, "panic: test timed out after"):
			t.Verdict, t.Error = VerdictTimeout, "tests timed out"
			return true
		case x.err != nil:
			t.Failed = failedTests(x.out)
			t.KilledBy = killer(t.Failed)
			t.Verdict = VerdictKilled
			if t.KilledBy == "" {
				if strings.Contains(x.out, "no such mutant in this build") || strings.Contains(x.out, "always active") {
					t.Verdict = VerdictError
				}
				t.Error = "tests failed without a --- FAIL line: " + tail(x.out, 1000)
			}
			return true
		}
	}
	t.Verdict = VerdictSurvived
	return true
}

// runTestBinary runs a test binary in its package folder, as go test does,
// with mutant id active.
func (r *Runner) runTestBinary(ctx context.Context, timeout time.Duration, bin string, p *pkgTests, run, id, profile string, env ...string) execResult {
	args := []string{bin, "-test.failfast", "-test.paniconexit0", "-test.count=1",
		"-test.timeout=" + (timeout + 30*time.Second).String()}
	if run != "" {
		args = append(args, "-test.run="+run)
	}
	if profile != "" {
		args = append(args, "-test.coverprofile="+profile)
	}
	env = append(env, MutantEnv+"="+id)
	return r.exec(ctx, timeout, p.dir, filepath.Dir(bin), args, env...)
}

type execResult struct {
	out       string
	dur       time.Duration
	err       error
	timedOut  bool
	cancelled bool
	stopped   bool // by its watch
}

func (x execResult) failure() error {
	if x.timedOut {
		return errors.New("timed out")
	}
	if x.err == nil {
		return errors.New("unexpected verdict")
	}
	return x.err
}

// exec runs argv in dir, in a session of its own, under timeout, with env
// added to the environment. Its output goes to a file in scratch (not a
// pipe: a leftover grandchild holding a pipe would delay the end), and go's
// own temporary files go to scratch too (GOTMPDIR), so that they are
// removed with it. When the timeout passes or ctx is cancelled, and again
// once the command has ended, every process of its session is killed: go's
// children, the test binary, and what the tests started, even in process
// groups of their own (the pool starts stdio servers in their own group).
func (r *Runner) exec(ctx context.Context, timeout time.Duration, dir, scratch string, argv []string, env ...string) execResult {
	return r.execWatch(ctx, timeout, dir, scratch, argv, nil, env...)
}

// execWatch is exec, with watch (when not nil) given the output every
// 50 ms: when it returns true the command is stopped (x.stopped).
func (r *Runner) execWatch(ctx context.Context, timeout time.Duration, dir, scratch string, argv []string, watch func(string) bool, env ...string) execResult {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	wctx, stop := context.WithCancel(tctx)
	defer stop()
	outFile, err := os.CreateTemp(scratch, "output-*.txt")
	if err != nil {
		return execResult{err: err}
	}
	defer os.Remove(outFile.Name())
	defer outFile.Close()
	cmd := exec.CommandContext(wctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOTMPDIR="+scratch), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	cmd.Stdout = outFile
	cmd.Stderr = outFile
	cmd.Cancel = func() error {
		killSession(cmd.Process.Pid)
		return nil
	}
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	var stopped atomic.Bool
	err = cmd.Start()
	if err == nil {
		if watch != nil {
			go func() {
				t := time.NewTicker(50 * time.Millisecond)
				defer t.Stop()
				for {
					select {
					case <-wctx.Done():
						return
					case <-t.C:
						if raw, err := os.ReadFile(outFile.Name()); err == nil && watch(string(raw)) {
							stopped.Store(true)
							stop()
							return
						}
					}
				}
			}()
		}
		err = cmd.Wait()
		stop()
		killSession(cmd.Process.Pid)
	}
	x := execResult{dur: time.Since(start), err: err, stopped: stopped.Load()}
	if raw, rerr := os.ReadFile(outFile.Name()); rerr == nil {
		x.out = string(raw)
	}
	switch {
	case ctx.Err() != nil:
		x.cancelled, x.stopped = true, false
	case x.stopped:
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

// clipValue shortens a value of a difference for the report.
func clipValue(s string) string {
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

// CheckResult is the outcome of compiling mutants without running them.
type CheckResult struct {
	// Broken maps each mutant that does not compile to the error.
	Broken map[string]string
	// Own maps each mutant built alone to why.
	Own map[string]string
	// Hosted counts the mutants of the schemata build.
	Hosted int
}

// Check compiles the mutated packages (no link, no run): the schemata, and
// each mutant it cannot host alone. A quick check of a catalogue.
func (r *Runner) Check(ctx context.Context, ms []Mutant) (*CheckResult, error) {
	if err := Resolve(r.cfg.Root, ms); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(r.cfg.TempDir, "mcpparity-mutate-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bs, err := r.buildSchemata(ctx, filepath.Join(tmp, "schemata"), ms, true)
	if err != nil {
		return nil, err
	}
	res := &CheckResult{Broken: bs.broken, Own: bs.own, Hosted: len(bs.s.IDs)}
	var mu sync.Mutex
	jobs := make(chan Mutant)
	var wg sync.WaitGroup
	var firstErr error
	for w := 0; w < r.cfg.Workers; w++ {
		wg.Go(func() {
			for m := range jobs {
				dir, err := os.MkdirTemp(tmp, "own-")
				var broken string
				if err == nil {
					_, broken, err = r.buildOwn(ctx, dir, m, true)
					_ = os.RemoveAll(dir)
				}
				mu.Lock()
				if err != nil && firstErr == nil && ctx.Err() == nil {
					firstErr = err
				}
				if broken != "" {
					res.Broken[m.ID] = broken
				}
				mu.Unlock()
			}
		})
	}
	for _, m := range ms {
		if _, own := bs.own[m.ID]; !own || ctx.Err() != nil {
			continue
		}
		jobs <- m
	}
	close(jobs)
	wg.Wait()
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, firstErr
}

// Build builds the schemata of ms into dir, to run mutants by hand:
// dir/mcpparity (the harness) and dir/<package>.test, with MutantEnv
// naming the mutant. It returns what Check returns; the mutants built
// alone are not in dir.
func (r *Runner) Build(ctx context.Context, ms []Mutant, dir string) (*CheckResult, error) {
	if err := Resolve(r.cfg.Root, ms); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(r.cfg.TempDir, "mcpparity-mutate-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bs, err := r.buildSchemata(ctx, tmp, ms, false)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	moves := map[string]string{bs.harness: filepath.Join(dir, filepath.Base(r.cfg.Harness))}
	for _, bin := range bs.tests {
		moves[bin] = filepath.Join(dir, filepath.Base(bin))
	}
	for from, to := range moves {
		if err := os.Rename(from, to); err != nil {
			return nil, err
		}
	}
	return &CheckResult{Broken: bs.broken, Own: bs.own, Hosted: len(bs.s.IDs)}, nil
}
