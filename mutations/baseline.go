package mutations

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/mcpparity/mcpparity/internal/verdict"
	"github.com/mcpparity/mcpparity/mutations/catalogue"
	"github.com/mcpparity/mcpparity/mutations/schemata"
)

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

// probeID is a mutant id no build holds.
const probeID = "mcpparity-probe-no-such-mutant"

// baselineBound bounds an unmutated run: it has no measure to bound it, so
// a generous fixed bound.
const baselineBound = 20 * time.Minute

// baseline runs the unmutated check and tests once: they must pass, and
// their times set the timeouts. It also proves that the harness build
// hosts the schemata and finds whether check offers --failfast. With cov
// (the coverage build), each scenario and each test then runs alone, to
// learn what it reaches.
func (r *Runner) baseline(ctx context.Context, tmp string, b, cov *built, ms []catalogue.Mutant) (*baseline, error) {
	scratch, err := os.MkdirTemp(tmp, "baseline-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	base := &baseline{tests: map[string]*pkgTests{}}
	if base.failfast, err = r.probe(ctx, scratch, b.harness); err != nil {
		return nil, err
	}
	scenarios, err := r.measure(ctx, scratch, b, base)
	if err != nil {
		return nil, err
	}
	base.checkTimeout = r.lim.timeout(base.check)
	if cov == nil {
		return base, nil
	}
	start := time.Now()
	dir := filepath.Join(tmp, "coverage")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if base.cover, err = r.measureCoverage(ctx, dir, cov, scenarios, base.tests, ms); err != nil {
		return nil, err
	}
	base.coverTime = time.Since(start)
	return base, nil
}

// probe proves that the harness build hosts the schemata (an unknown id
// must stop it) and tells whether check offers --failfast.
func (r *Runner) probe(ctx context.Context, scratch, harness string) (failfast bool, err error) {
	x := r.exec(ctx, time.Minute, r.cfg.Root, scratch, []string{harness}, schemata.MutantEnv+"="+probeID)
	if x.cancelled {
		return false, ctx.Err()
	}
	if !strings.Contains(x.out, "no such mutant in this build") {
		return false, fmt.Errorf("the harness build does not hold the schemata: %s=%s did not stop it:\n%s", schemata.MutantEnv, probeID, tail(x.out, 1000))
	}
	help := r.exec(ctx, time.Minute, r.cfg.Root, scratch, append(append([]string{harness}, r.cfg.CheckArgs...), "--help"), schemata.MutantEnv+"=")
	return regexp.MustCompile(`(?m)^\s*--?failfast\b`).MatchString(help.out), nil
}

// measure runs the unmutated check and each package's tests side by side,
// and each that fails once more, one at a time (deadlines can fail under
// load: other jobs on the machine). It returns the check's scenarios.
func (r *Runner) measure(ctx context.Context, scratch string, b *built, base *baseline) ([]string, error) {
	var scenarios []string
	runs := []func() error{func() (err error) {
		scenarios, base.check, err = r.baselineCheck(ctx, scratch, b.harness, base.failfast)
		return err
	}}
	for p, bin := range b.tests {
		t := &pkgTests{dir: filepath.Join(r.cfg.Root, filepath.FromSlash(p)), name: "./" + p}
		if rt, err := ruleTests(t.dir); err == nil {
			t.ruleTests = rt
		}
		base.tests[p] = t
		runs = append(runs, func() error { return r.baselineTests(ctx, bin, t) })
	}
	errs := make([]error, len(runs))
	pool(ctx, len(runs), len(runs), func(i int) { errs[i] = runs[i]() })
	var failed []int
	for i, err := range errs {
		if err != nil && ctx.Err() == nil {
			failed = append(failed, i)
		}
	}
	if len(failed) > 0 {
		r.say("baseline: %v; once more, one run at a time", firstLine(errs[failed[0]].Error()))
		pool(ctx, 1, len(failed), func(k int) { errs[failed[k]] = runs[failed[k]]() })
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return scenarios, nil
}

// baselineCheck runs the unmutated check: it must pass.
func (r *Runner) baselineCheck(ctx context.Context, scratch, harness string, failfast bool) ([]string, time.Duration, error) {
	dir, err := os.MkdirTemp(scratch, "check-")
	if err != nil {
		return nil, 0, err
	}
	x, out := r.check(ctx, baselineBound, dir, harness, "", "", failfast, false)
	switch {
	case x.cancelled:
		return nil, x.dur, ctx.Err()
	case x.err != nil || x.timedOut || out.Verdict != verdict.Survived:
		return nil, x.dur, &BaselineError{What: "check", Output: x.out, Err: x.failure()}
	}
	return out.Scenarios, x.dur, nil
}

// baselineTests runs a package's unmutated tests: they must pass.
func (r *Runner) baselineTests(ctx context.Context, bin string, t *pkgTests) error {
	x := r.runTestBinary(ctx, baselineBound, bin, t, "", "", "")
	switch {
	case x.cancelled:
		return ctx.Err()
	case x.err != nil || x.timedOut:
		return &BaselineError{What: "tests " + t.name, Output: x.out, Err: x.failure()}
	}
	t.run = x.dur
	t.timeout = r.lim.timeout(x.dur)
	return nil
}

// record adds the baselines to the report and says them.
func (s *session) recordBaseline() {
	base, rep, r := s.base, s.rep, s.r
	rep.Baselines = append(rep.Baselines, Baseline{Name: "check", Seconds: secondsOf(base.check), Timeout: secondsOf(base.checkTimeout)})
	var pkgs []string
	for p := range base.tests {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	var line strings.Builder
	for _, p := range pkgs {
		t := base.tests[p]
		rep.Baselines = append(rep.Baselines, Baseline{Name: "tests " + t.name, Seconds: secondsOf(t.run), Timeout: secondsOf(t.timeout)})
		fmt.Fprintf(&line, "; tests %s %.1fs, timeout %.0fs", t.name, t.run.Seconds(), t.timeout.Seconds())
	}
	ff := "without --failfast (check does not offer it)"
	if base.failfast {
		ff = "with --failfast"
	}
	r.say("baseline: check %.1fs (%s), timeout %.0fs%s", base.check.Seconds(), ff, base.checkTimeout.Seconds(), line.String())
	if base.cover != nil {
		rep.Baselines = append(rep.Baselines, Baseline{Name: "coverage", Seconds: secondsOf(base.coverTime)})
		r.say("coverage: every scenario and test alone, %.1fs: a mutant runs the ones that reach it", base.coverTime.Seconds())
	}
}
