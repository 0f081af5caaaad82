package mutations

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpparity/mcpparity/internal/verdict"
	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

// Parts of a mutant's trial.
const (
	partSuite = iota
	partTests
)

// session is what the trials of one Run share.
type session struct {
	reporter
	tmp  string
	bins *built // the schemata build: with no mutant active, the unmutated code
	base *baseline
}

// mutantTrial is one rule or operator mutant: judged by the suite (check
// against the mutated reference) and by its package's tests, two parts,
// from the schemata build or from a build of its own.
type mutantTrial struct {
	s     *session
	m     catalogue.Mutant
	res   Result
	kinds []int     // partSuite, partTests
	pkg   *pkgTests // its package's tests (nil: none)
	own   *ownBuild // nil when the schemata host it
}

type ownBuild struct {
	once   sync.Once
	dir    string
	b      *built
	broken string
	err    error
}

// plan makes the trials of ms: a mutant that does not compile has no
// part, the others the suite's and, when its package has tests, theirs.
func (s *session) plan(bs *schemataBuild, ms []catalogue.Mutant) []trial {
	ts := make([]trial, len(ms))
	for i, m := range ms {
		t := &mutantTrial{s: s, m: m, res: Result{
			Index: m.Index, ID: m.ID, Rule: m.Rule, File: m.File, Line: m.Line, Why: m.Why, Operator: m.Operator,
			Build: buildSchemata,
		}}
		ts[i] = t
		if why, ok := bs.own[m.ID]; ok {
			t.res.Build, t.res.BuildNote = buildOwn, why
			t.own = &ownBuild{dir: filepath.Join(s.tmp, "own-"+strconv.Itoa(m.Index))}
		}
		if why, ok := bs.broken[m.ID]; ok {
			t.res.Verdict, t.res.Error = verdict.NotViable, why
			t.res.Tests = TestsResult{Verdict: verdict.NotViable, Error: why}
			continue
		}
		t.kinds = []int{partSuite}
		if p, ok := s.base.tests[path.Dir(m.File)]; ok && !s.r.cfg.NoTests {
			t.kinds, t.pkg = append(t.kinds, partTests), p
		}
	}
	return ts
}

func (t *mutantTrial) parts() int { return len(t.kinds) }

// cost: with coverage, the baseline time of what the part runs.
func (t *mutantTrial) cost(part int) time.Duration {
	c := t.s.base.cover
	if c == nil {
		return 0
	}
	if t.kinds[part] == partSuite {
		if d, ok := c.suiteTime[t.m.ID]; ok {
			return d
		}
		return t.s.base.check // outside every block: the whole check
	}
	if d, ok := c.testsTime[t.m.ID]; ok {
		return d
	}
	return t.pkg.run
}

func (t *mutantTrial) run(ctx context.Context, part int) bool {
	bins := t.s.bins
	if t.own != nil {
		if bins = t.ownBinaries(ctx); bins == nil {
			if ctx.Err() != nil {
				return false
			}
			v, msg := t.own.failure()
			if t.kinds[part] == partSuite {
				t.res.Verdict, t.res.Error = v, msg
			} else {
				t.res.Tests = TestsResult{Verdict: v, Error: msg}
			}
			return true
		}
	}
	if t.kinds[part] == partSuite {
		return t.runSuite(ctx, bins.harness)
	}
	return t.runTests(ctx, bins.tests[path.Dir(t.m.File)])
}

func (t *mutantTrial) unsure(part int) bool {
	if t.own != nil && t.own.b == nil {
		return false // no binaries to run it again
	}
	if t.kinds[part] == partSuite {
		return t.res.unsure()
	}
	return t.res.Tests.unsure()
}

func (t *mutantTrial) confirm(ctx context.Context, part int) bool {
	bins := t.s.bins
	if t.own != nil {
		bins = t.own.b
	}
	if t.kinds[part] == partSuite {
		return t.confirmSuite(ctx, bins.harness)
	}
	return t.confirmTests(ctx, bins.tests[path.Dir(t.m.File)])
}

func (t *mutantTrial) done(run, confirm time.Duration) {
	t.res.ConfirmTime = secondsOf(confirm)
	t.res.Time = secondsOf(run + confirm)
	if t.own != nil {
		_ = os.RemoveAll(t.own.dir)
	}
	t.s.emit(t.res)
}

// ownBinaries builds the mutant's own binaries once; nil when the build
// failed (t.own says why) or was cancelled.
func (t *mutantTrial) ownBinaries(ctx context.Context) *built {
	o := t.own
	o.once.Do(func() {
		if err := os.MkdirAll(o.dir, 0o755); err != nil {
			o.err = err
			return
		}
		o.b, o.broken, o.err = t.s.r.buildOwn(ctx, o.dir, t.m, false)
		if o.b == nil && o.broken == "" && o.err == nil {
			o.err = errors.New("own build failed")
		}
	})
	if ctx.Err() != nil {
		return nil
	}
	return o.b
}

// failure is the verdict of a mutant whose own build failed.
func (o *ownBuild) failure() (verdict.Verdict, string) {
	if o.broken != "" {
		return verdict.NotViable, o.broken
	}
	return verdict.Error, o.err.Error()
}

// scratch makes a folder of the run's temporary one.
func (t *mutantTrial) scratch(prefix string) (string, error) {
	return os.MkdirTemp(t.s.tmp, prefix)
}

// suiteFilter is the --run filter of the scenarios that reach the mutant
// (coverage; "" for all), covered false when none does.
func (t *mutantTrial) suiteFilter() (string, bool) {
	if t.s.base.cover == nil {
		return "", true
	}
	return t.s.base.cover.suiteFilter(t.m)
}

// checkTimeout bounds a check of the mutant: from the baseline times of
// the scenarios that reach it when coverage knows them, else of the whole
// check.
func (t *mutantTrial) checkTimeout() time.Duration {
	base := t.s.base
	if base.cover != nil {
		if d, ok := base.cover.suiteTime[t.m.ID]; ok {
			return min(base.checkTimeout, t.s.r.lim.timeout(d))
		}
	}
	return base.checkTimeout
}

// testsTimeout is checkTimeout for the mutant's tests.
func (t *mutantTrial) testsTimeout() time.Duration {
	if c := t.s.base.cover; c != nil {
		if d, ok := c.testsTime[t.m.ID]; ok {
			return min(t.pkg.timeout, t.s.r.lim.timeout(d))
		}
	}
	return t.pkg.timeout
}

// runSuite judges the mutant by check; false when cancelled.
func (t *mutantTrial) runSuite(ctx context.Context, harness string) bool {
	run, covered := t.suiteFilter()
	if !covered {
		t.res.Verdict = verdict.NotCovered
		return true
	}
	scratch, err := t.scratch("check-")
	if err != nil {
		t.res.Verdict, t.res.Error = verdict.Error, err.Error()
		return true
	}
	defer os.RemoveAll(scratch)
	x, o := t.s.r.check(ctx, t.checkTimeout(), scratch, harness, t.m.ID, run, t.s.base.failfast, true)
	if x.cancelled {
		return false
	}
	t.res.setSuite(o, x.dur)
	return true
}

// confirmSuite checks a verdict seen among other runs, alone: a kill by a
// difference with its scenario alone; then, if that passes (or for a
// crash, a timeout, a check that could not run), the whole check again. A
// timeout or a check that could not run, alone, is settled against the
// unmutated check. False when cancelled.
func (t *mutantTrial) confirmSuite(ctx context.Context, harness string) bool {
	scratch, err := t.scratch("confirm-")
	if err != nil {
		t.res.Verdict, t.res.Error = verdict.Error, err.Error()
		return true
	}
	defer os.RemoveAll(scratch)
	// The suite's fields only: the tests' are confirmed meanwhile.
	first := suiteSeen{t.res.Verdict, t.res.Scenario, t.res.Reason, t.res.summary()}
	if first.verdict == verdict.Killed && first.scenario != "" {
		x, again := t.s.r.checkOnce(ctx, t.s.base.checkTimeout, scratch, harness, t.m.ID, "", runOnly(first.scenario), nil)
		if x.cancelled {
			return false
		}
		t.res.CheckTime += secondsOf(x.dur)
		if again.Verdict == verdict.Killed && again.Scenario != "" {
			t.res.setSuite(again, 0)
			return true
		}
	}
	x, o := t.checkAlone(ctx, scratch, harness)
	if x.cancelled {
		return false
	}
	t.res.CheckTime += secondsOf(x.dur)
	if settled(o.Reason) {
		var ok bool
		if o, ok = t.settleSuite(ctx, scratch, o); !ok {
			return false
		}
	}
	t.res.setSuite(o, 0)
	if t.res.Verdict != first.verdict || t.res.Scenario != first.scenario || t.res.Reason != first.reason {
		t.res.Note = fmt.Sprintf("among other runs: %s; alone: %s", first.summary, t.res.summary())
	}
	return true
}

// suiteSeen is the suite's verdict seen among other runs.
type suiteSeen struct {
	verdict                   verdict.Verdict
	scenario, reason, summary string
}

// checkAlone runs the mutant's check again; once more when it could not
// run (a port chosen by one process and taken by another is one cause).
func (t *mutantTrial) checkAlone(ctx context.Context, scratch, harness string) (execResult, suiteOutcome) {
	run, _ := t.suiteFilter()
	x, o := t.s.r.check(ctx, t.checkTimeout(), scratch, harness, t.m.ID, run, t.s.base.failfast, true)
	if (o.Verdict == verdict.Error || strings.HasPrefix(o.Reason, reasonCannotRun)) && !x.cancelled {
		t.res.CheckTime += secondsOf(x.dur)
		x, o = t.s.r.check(ctx, t.checkTimeout(), scratch, harness, t.m.ID, run, t.s.base.failfast, true)
	}
	return x, o
}

// settleSuite settles o against the unmutated check, with the same filter
// and bound. False when cancelled.
func (t *mutantTrial) settleSuite(ctx context.Context, scratch string, o suiteOutcome) (suiteOutcome, bool) {
	run, _ := t.suiteFilter()
	bound := t.checkTimeout()
	x, u := t.s.r.check(ctx, bound, scratch, t.s.bins.harness, "", run, t.s.base.failfast, true)
	if x.cancelled {
		return o, false
	}
	t.res.CheckTime += secondsOf(x.dur)
	o.Verdict, o.Reason, o.Error = settle(o.Reason, o.seen(), u.seen(), bound)
	return o, true
}

// runTests judges the mutant by its package's tests: with coverage, the
// tests that reach it; else first the tests naming its rule, then, if they
// pass, the whole package. False when cancelled.
func (t *mutantTrial) runTests(ctx context.Context, bin string) bool {
	tr := &t.res.Tests
	phases, covered := t.testPlan()
	if !covered {
		tr.Verdict = verdict.NotCovered
		return true
	}
	scratch, err := t.scratch("tests-")
	if err != nil {
		tr.Verdict, tr.Error = verdict.Error, err.Error()
		return true
	}
	defer os.RemoveAll(scratch)
	return t.s.r.testPhases(ctx, bin, t.pkg, phases, t.m.ID, scratch, t.testsTimeout(), tr)
}

// testPlan returns the -run filters of the mutant's test runs, in order.
func (t *mutantTrial) testPlan() (phases []string, covered bool) {
	tr := &t.res.Tests
	if c := t.s.base.cover; c != nil {
		// The tests that reach the mutant, and no other.
		filter, covered := c.testsFilter(t.m)
		tr.Filter = filter
		return []string{filter}, covered
	}
	filter := t.m.Run
	if filter == "" && !t.s.r.cfg.NoFilter {
		filter = runFilter(t.pkg.ruleTests[t.m.Rule])
	}
	tr.Filter = filter
	phases = []string{filter}
	if filter != "" {
		phases = append(phases, "") // a survivor of the filtered run must survive the whole package
	}
	return phases, true
}

// confirmTests checks a kill by the tests seen among other runs, as
// confirmSuite: the failing test alone, then, if it passes, every run
// again; a timeout that holds is settled against the unmutated tests.
// False when cancelled.
func (t *mutantTrial) confirmTests(ctx context.Context, bin string) bool {
	tr := &t.res.Tests
	scratch, err := t.scratch("confirm-")
	if err != nil {
		tr.Verdict, tr.Error = verdict.Error, err.Error()
		return true
	}
	defer os.RemoveAll(scratch)
	r := t.s.r
	again := TestsResult{Filter: tr.Filter, Time: tr.Time}
	if tr.Verdict == verdict.Killed && tr.KilledBy != "" {
		top, _, _ := strings.Cut(tr.KilledBy, "/")
		if !r.testPhases(ctx, bin, t.pkg, []string{"^" + regexp.QuoteMeta(top) + "$"}, t.m.ID, scratch, t.pkg.timeout, &again) {
			return false
		}
		if again.Verdict == verdict.Killed && again.KilledBy != "" {
			tr.Time = again.Time
			return true
		}
	}
	first := tr.short()
	phases, _ := t.testPlan()
	again = TestsResult{Filter: tr.Filter, Time: again.Time}
	if !r.testPhases(ctx, bin, t.pkg, phases, t.m.ID, scratch, t.testsTimeout(), &again) {
		return false
	}
	if again.Reason == reasonTimeout && !t.settleTests(ctx, scratch, phases, &again) {
		return false
	}
	*tr = again
	if tr.short() != first {
		tr.Note = "among other runs: " + first + "; alone: " + tr.short()
	}
	return true
}

// settleTests applies the timeout rule to tr: the unmutated tests, with
// the same filters and bound. False when cancelled.
func (t *mutantTrial) settleTests(ctx context.Context, scratch string, phases []string, tr *TestsResult) bool {
	u := TestsResult{}
	bound := t.testsTimeout()
	if !t.s.r.testPhases(ctx, t.s.bins.tests[path.Dir(t.m.File)], t.pkg, phases, "", scratch, bound, &u) {
		return false
	}
	tr.Time += u.Time
	unmutated := runSeen{passed: u.Verdict == verdict.Survived, timedOut: u.Reason == reasonTimeout, detail: strings.TrimSpace(u.short() + " " + u.Error)}
	tr.Verdict, tr.Reason, tr.Error = settle(reasonTimeout, runSeen{timedOut: true}, unmutated, bound)
	return true
}
