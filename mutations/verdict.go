package mutations

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Verdict is a mutant's outcome, by the suite (check) or by its package's
// tests.
type Verdict string

// Verdicts. Only killed, survived and not covered judge a mutant; timeout
// and error are the harness's problem, not viable is no mutant at all.
//
// A kill that names no difference — a crash, a hang, a check that could
// not run — is the mutant's doing only when the unmutated build does not
// do the same: a hang and a check that could not run, seen alone, are
// compared with the unmutated run under the same bound (settle); a Go
// crash of check is the mutated reference's, which runs in its process.
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
	// reasonCannotRun starts the reason of a check that could not run
	// (exit 2) alone, while the unmutated check runs: the mutated
	// reference refuses to start, say.
	reasonCannotRun = "could not run: "
)

// settled reports whether a kill of that reason holds only once compared
// with the unmutated run (settle).
func settled(reason string) bool {
	return reason == ReasonTimeout || strings.HasPrefix(reason, reasonCannotRun)
}

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
// few runs at once — a kill (whatever its reason), a check that failed
// without a verdict. A timeout only comes of a confirmation.
func (r *Result) unsure() bool {
	return r.Verdict == VerdictKilled || r.Verdict == VerdictError
}

// unsure is Result.unsure for the tests' verdict: a kill.
func (t *TestsResult) unsure() bool { return t.Verdict == VerdictKilled }

// runSeen is what a run alone showed, to settle.
type runSeen struct {
	passed, timedOut bool
	detail           string // why it did not pass
}

// settle decides whose problem a run alone is that went past its bound or
// could not run, from the unmutated run under the same filter and bound:
// when that passes, the mutant's — killed, with reason; else the
// harness's — timeout when both went past the bound, else error.
func settle(reason string, mutated, unmutated runSeen, bound time.Duration) (v Verdict, why, msg string) {
	if unmutated.passed {
		return VerdictKilled, reason, ""
	}
	b := bound.Round(time.Second)
	switch {
	case mutated.timedOut && unmutated.timedOut:
		return VerdictTimeout, "", fmt.Sprintf("past its bound of %v, and so was the unmutated run: the bound is too short for this machine", b)
	case mutated.timedOut:
		return VerdictError, "", fmt.Sprintf("past its bound of %v; the unmutated run under that bound did not pass: %s", b, unmutated.detail)
	}
	return VerdictError, "", fmt.Sprintf("%s; the unmutated run did not pass either: %s", mutated.detail, unmutated.detail)
}

// verdictText is a verdict with its reason: "killed (crash: panic: …)".
func verdictText(v Verdict, reason string) string {
	if reason == "" {
		return string(v)
	}
	return string(v) + " (" + reason + ")"
}
