// Package verdict holds the one verdict type of the harness: a scenario's
// outcome against a target (check, matrix, diff) and a mutant's outcome
// (mutate), as their reports and JSON give them.
package verdict

// Verdict is an outcome, its JSON text as it is.
type Verdict string

// Verdicts of a scenario against a target.
const (
	Pass     Verdict = "pass"     // equal to the golden observations
	Accepted Verdict = "accepted" // differs only where the target declared it may
	Fail     Verdict = "fail"     // a divergence
	Skipped  Verdict = "skipped"  // not run: an earlier failure stopped the check (FailFast)
)

// Error is a verdict of both: the harness or the target could not run a
// scenario; the harness could not judge a mutant (check could not run
// without a crash, exited 1 naming nothing, a file could not be made).
const Error Verdict = "error"

// Verdicts of a mutant, by the suite (check) or by its package's tests.
// Only killed, survived and not covered judge a mutant; timeout and error
// are the harness's problem, not viable is no mutant at all.
//
// A kill that names no difference — a crash, a hang, a check that could
// not run — is the mutant's doing only when the unmutated build does not
// do the same: a hang and a check that could not run, seen alone, are
// compared with the unmutated run under the same bound.
const (
	// Killed: the run failed naming where (a scenario's difference, a
	// failing test), or the mutated reference crashed or hung (its reason).
	Killed Verdict = "killed"
	// Survived: the run passed; a rule is not checked.
	Survived Verdict = "survived"
	// Timeout: past its bound alone, and so was the unmutated run under
	// the same bound: the bound is too short for the machine.
	Timeout Verdict = "timeout"
	// NotViable: the mutant does not compile (or parse, or build):
	// reported apart, left out of the score.
	NotViable Verdict = "not viable"
	// NotCovered: the baseline never reached its place (coverage): a
	// survivor, not run.
	NotCovered Verdict = "not covered"
)
