package mutations

import (
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/mcpparity/mcpparity/internal/verdict"
)

// Reasons of a kill that names no difference.
const (
	// reasonTimeout: the run went past its bound alone, while the
	// unmutated run passes under the same bound: the mutant hangs it.
	reasonTimeout = "timeout"
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
	return reason == reasonTimeout || strings.HasPrefix(reason, reasonCannotRun)
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
	return r.Verdict == verdict.Killed || r.Verdict == verdict.Error
}

// unsure is Result.unsure for the tests' verdict: a kill.
func (t *TestsResult) unsure() bool { return t.Verdict == verdict.Killed }

// runSeen is what a run alone showed, to settle.
type runSeen struct {
	passed, timedOut bool
	detail           string // why it did not pass
}

// settle decides whose problem a run alone is that went past its bound or
// could not run, from the unmutated run under the same filter and bound:
// when that passes, the mutant's — killed, with reason; else the
// harness's — timeout when both went past the bound, else error.
func settle(reason string, mutated, unmutated runSeen, bound time.Duration) (v verdict.Verdict, why, msg string) {
	if unmutated.passed {
		return verdict.Killed, reason, ""
	}
	b := bound.Round(time.Second)
	switch {
	case mutated.timedOut && unmutated.timedOut:
		return verdict.Timeout, "", fmt.Sprintf("past its bound of %v, and so was the unmutated run: the bound is too short for this machine", b)
	case mutated.timedOut:
		return verdict.Error, "", fmt.Sprintf("past its bound of %v; the unmutated run under that bound did not pass: %s", b, unmutated.detail)
	}
	return verdict.Error, "", fmt.Sprintf("%s; the unmutated run did not pass either: %s", mutated.detail, unmutated.detail)
}

// verdictText is a verdict with its reason: "killed (crash: panic: …)".
func verdictText(v verdict.Verdict, reason string) string {
	if reason == "" {
		return string(v)
	}
	return string(v) + " (" + reason + ")"
}
