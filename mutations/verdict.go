package mutations

import (
	"fmt"
	"regexp"
	"time"
)

// Verdict is a mutant's outcome, by the suite (check) or by its package's
// tests.
type Verdict string

// Verdicts. Only killed, survived and not covered judge a mutant; timeout
// and error are the harness's problem, not viable is no mutant at all.
const (
	// VerdictKilled: the run failed naming where (a scenario's difference,
	// a failing test), or the mutated reference crashed or hung (Reason).
	VerdictKilled Verdict = "killed"
	// VerdictSurvived: the run passed; a rule is not checked.
	VerdictSurvived Verdict = "survived"
	// VerdictTimeout: past its bound alone, and so was the unmutated run
	// under the same bound: the bound is too short for the machine.
	VerdictTimeout Verdict = "timeout"
	// VerdictError: the harness could not judge (check could not run
	// without a crash, exited 1 naming nothing, a file could not be made).
	VerdictError Verdict = "error"
	// VerdictNotViable: the mutant does not compile (or parse, or build):
	// reported apart, left out of the score.
	VerdictNotViable Verdict = "not viable"
	// VerdictNotCovered: the baseline never reached its place (coverage):
	// a survivor, not run.
	VerdictNotCovered Verdict = "not covered"
)

// Reasons of a kill that names no difference.
const (
	// ReasonTimeout: the run went past its bound alone, while the
	// unmutated run passes under the same bound: the mutant hangs it.
	ReasonTimeout = "timeout"
	// reasonCrash starts the reason of a run that died of a Go crash (an
	// unrecovered panic, a fatal runtime error) in the mutated code.
	reasonCrash = "crash: "
)

var (
	crashLine = regexp.MustCompile(`(?m)^(?:panic: |fatal error: ).*$`)
	traceLine = regexp.MustCompile(`(?m)^goroutine \d+ \[`)
)

// crashOf returns the first line of the Go crash in a process's output
// ("panic: …", "fatal error: …", with the goroutine trace that the runtime
// prints when it ends the process), or "".
func crashOf(out string) string {
	if !traceLine.MatchString(out) {
		return ""
	}
	return clipValue(crashLine.FindString(out))
}

// unsure: a verdict seen among other runs holds only once confirmed with
// few runs at once — a kill (a crash or a hang included), a check that
// could not run. A timeout only comes of a confirmation.
func (r *Result) unsure() bool {
	return r.Verdict == VerdictKilled || r.Verdict == VerdictError
}

// unsure is Result.unsure for the tests' verdict: a kill.
func (t *TestsResult) unsure() bool { return t.Verdict == VerdictKilled }

// settleTimeout applies the timeout rule to a run that went past its
// bound alone, from the unmutated run under the same bound: when it
// passes, the mutant hangs the reference and is killed (ReasonTimeout);
// when it goes past the bound too, the bound is the harness's problem
// (timeout); when it fails otherwise (detail), so is the run (error).
func settleTimeout(passed, timedOut bool, detail string, bound time.Duration) (v Verdict, reason, msg string) {
	b := bound.Round(time.Second)
	switch {
	case passed:
		return VerdictKilled, ReasonTimeout, ""
	case timedOut:
		return VerdictTimeout, "", fmt.Sprintf("past its bound of %v, and so was the unmutated run: the bound is too short for this machine", b)
	}
	return VerdictError, "", fmt.Sprintf("past its bound of %v; the unmutated run under that bound did not pass: %s", b, detail)
}

// verdictText is a verdict with its reason: "killed (crash: panic: …)".
func verdictText(v Verdict, reason string) string {
	if reason == "" {
		return string(v)
	}
	return string(v) + " (" + reason + ")"
}
