package mutations

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/verdict"
	"github.com/mcpparity/mcpparity/mutations/schemata"
)

// suiteOutcome is check's verdict on one mutant.
type suiteOutcome struct {
	Verdict  verdict.Verdict
	Reason   string
	KilledBy string
	Scenario string
	Path     string
	Want     string
	Got      string
	Error    string
	// Scenarios lists every scenario of check's JSON.
	Scenarios []string
	// why is check's whole reason when it could not run.
	why string
}

// setSuite puts o, check's verdict, in r; d is added to its check time.
func (r *Result) setSuite(o suiteOutcome, d time.Duration) {
	r.Verdict, r.Reason, r.KilledBy, r.Error = o.Verdict, o.Reason, o.KilledBy, o.Error
	r.Scenario, r.Path, r.Want, r.Got = o.Scenario, o.Path, o.Want, o.Got
	r.CheckTime += secondsOf(d)
}

// seen is what the run showed, to settle.
func (o suiteOutcome) seen() runSeen {
	detail := o.why
	if detail == "" {
		detail = o.summary()
	}
	return runSeen{passed: o.Verdict == verdict.Survived, timedOut: o.Reason == reasonTimeout, detail: detail}
}

func (o suiteOutcome) summary() string {
	r := Result{Verdict: o.Verdict, Reason: o.Reason, KilledBy: o.KilledBy, Error: o.Error}
	return r.summary()
}

// kill fills o with the first difference of a failing scenario of check's
// report; false when there is none.
func kill(rep *report.Report, o *suiteOutcome) bool {
	for _, res := range rep.Results {
		if res.Verdict != verdict.Fail {
			continue
		}
		for _, d := range res.Diffs {
			if !d.Accepted {
				o.Verdict = verdict.Killed
				o.Scenario, o.Path, o.Want, o.Got = res.Scenario, d.Path, clipValue(d.Want), clipValue(d.Got)
				o.KilledBy = res.Scenario + " " + d.Path
				return true
			}
		}
	}
	return false
}

// couldNotRun is the reason check gives for its exit 2: each scenario's
// error, else the end of its output; first is the first of them.
func couldNotRun(rep *report.Report, code int, out string) (first, all string) {
	var why []string
	for _, res := range rep.Results {
		if res.Verdict == "error" {
			why = append(why, res.Scenario+": "+res.Err)
		}
	}
	if len(why) == 0 {
		why = append(why, tail(out, 600))
	}
	return clipValue(firstLine(why[0])), fmt.Sprintf("check could not run (exit %d): %s", code, strings.Join(why, "; "))
}

// scenarioLine is check's progress line of a failed or broken scenario.
var scenarioLine = regexp.MustCompile(`(?m)^(fail|error)\s+(\S+)\s`)

// check runs the harness's check with mutant id active ("" for none) in
// scratch, and reads its verdict; run, when set, is its --run filter. With
// early, check stops at its first failing scenario: with --failfast when
// it offers it, else the runner stops it at the first failing scenario's
// progress line and runs that scenario alone, for its JSON.
func (r *Runner) check(ctx context.Context, timeout time.Duration, scratch, harness, id, run string, failfast, early bool) (execResult, suiteOutcome) {
	var watch func(string) bool
	if early && !failfast {
		watch = func(out string) bool { return scenarioLine.MatchString(out) }
	}
	var filter []string
	if run != "" {
		filter = []string{"--run", run}
	}
	extra := filter
	if early && failfast {
		extra = append([]string{"--failfast"}, filter...)
	}
	x, o := r.checkOnce(ctx, timeout, scratch, harness, id, "", extra, watch)
	if !x.stopped {
		return x, o
	}
	m := scenarioLine.FindStringSubmatch(x.out)
	first := x.dur
	x, o = r.checkOnce(ctx, timeout, scratch, harness, id, "", runOnly(m[2]), nil)
	x.dur += first
	if o.Verdict == verdict.Survived && !x.cancelled {
		// The scenario passed alone: the whole check decides.
		second := x.dur
		x, o = r.checkOnce(ctx, timeout, scratch, harness, id, "", filter, nil)
		x.dur += second
	}
	return x, o
}

// runOnly is the --run filter of one scenario.
func runOnly(scenario string) []string {
	return []string{"--run", "^" + regexp.QuoteMeta(scenario) + "$"}
}

// checkOnce runs check once with extra arguments; coverDir, when set,
// receives coverage counters (a build with -cover); watch, when set, is
// given the output as it grows and stops the run when it returns true;
// env is added to check's environment (after MutantEnv: a later value of
// the same variable wins).
func (r *Runner) checkOnce(ctx context.Context, timeout time.Duration, scratch, harness, id, coverDir string, extra []string, watch func(string) bool, env ...string) (execResult, suiteOutcome) {
	reportFile := filepath.Join(scratch, "check.json")
	_ = os.Remove(reportFile)
	args := append(append(append([]string{harness}, r.cfg.CheckArgs...), "--json", reportFile), extra...)
	env = append([]string{schemata.MutantEnv + "=" + id, "TMPDIR=" + scratch}, env...)
	if coverDir != "" {
		env = append(env, "GOCOVERDIR="+coverDir)
	}
	x := r.execWatch(ctx, timeout, r.cfg.Root, scratch, args, watch, env...)
	if x.cancelled || x.stopped {
		return x, suiteOutcome{}
	}
	return x, r.outcome(x, reportFile)
}

// outcome reads check's verdict from its exit code and its JSON report:
// killed when it exits 1 naming a difference, when the mutated code it runs
// in process crashed it (no JSON, a Go crash in its output), when it goes
// past its bound or could not run (both settled by the confirmation);
// survived when it exits 0; else error.
func (r *Runner) outcome(x execResult, reportFile string) suiteOutcome {
	var o suiteOutcome
	if x.timedOut {
		o.Verdict, o.Reason = verdict.Killed, reasonTimeout
		return o
	}
	code := x.exitCode()
	if code < 0 {
		o.Verdict, o.Error = verdict.Error, x.err.Error()
		return o
	}
	rep, rerr := report.ReadJSON(reportFile)
	for _, res := range rep.Results {
		o.Scenarios = append(o.Scenarios, res.Scenario)
	}
	switch {
	case code == 0:
		o.Verdict = verdict.Survived
	case code == 1 && kill(rep, &o):
	case code == 1:
		o.Verdict = verdict.Error
		o.Error = "check exited 1 but its JSON names no failing scenario with a difference"
		if rerr != nil {
			o.Error += " (" + rerr.Error() + ")"
		}
		o.Error += ": " + tail(x.out, 600)
	case r.inProcess && rerr != nil && crashOf(x.out) != "":
		o.Verdict, o.Reason = verdict.Killed, reasonCrash+crashOf(x.out)
	default:
		first, all := couldNotRun(rep, code, x.out)
		o.Verdict, o.Reason, o.why = verdict.Killed, reasonCannotRun+first, all
	}
	return o
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
	env = append(env, schemata.MutantEnv+"="+id)
	return r.exec(ctx, timeout, p.dir, filepath.Dir(bin), args, env...)
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
		t.Time += secondsOf(x.dur)
		if x.cancelled {
			return false
		}
		if x.timedOut || x.err != nil || strings.Contains(x.out, "panic: test timed out after") {
			testsFailed(x, t)
			return true
		}
	}
	t.Verdict = verdict.Survived
	return true
}

// testsFailed reads the verdict of a test run that failed: killed, by the
// first failing test (its most specific subtest), by a timeout or by a
// crash outside any test; error when the build refused the mutant.
func testsFailed(x execResult, t *TestsResult) {
	t.Verdict = verdict.Killed
	if x.timedOut || strings.Contains(x.out, "panic: test timed out after") {
		t.Reason = reasonTimeout
		return
	}
	t.Failed = failedTests(x.out)
	t.KilledBy = killer(t.Failed)
	switch {
	case t.KilledBy != "":
	case strings.Contains(x.out, "no such mutant in this build") || strings.Contains(x.out, "always active"):
		t.Verdict, t.Error = verdict.Error, "the build refused the mutant: "+tail(x.out, 1000)
	case crashOf(x.out) != "":
		t.Reason = reasonCrash + crashOf(x.out)
	default:
		t.Error = "tests failed without a --- FAIL line: " + tail(x.out, 1000)
	}
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
