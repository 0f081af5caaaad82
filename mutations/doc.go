// Package mutations is the mutation runner of the harness: it proves that
// the conformance suite is strong, by mutating each rule of the reference
// pool (impl/) and expecting `mcpparity check` against the mutated
// reference to fail. impl's own tests give a second verdict.
//
// Two kinds of mutants run the same way:
//
//   - rule mutants: data, in rules/*.json (one file per rule C1…C8,
//     P1…P17): a file, the exact original snippet, its replacement and why.
//     A stale mutant (snippet found zero or several times) is an error,
//     reported before anything runs.
//   - operator mutants: generated from the Go syntax tree of a package's
//     non-test files (negated comparisons, moved boundaries, changed integer
//     constants, emptied strings, removed calls).
//
// The mutants come from package catalogue. Every mutant is compiled into
// one overlay build (package schemata; the working tree is never touched), and MutantEnv picks the
// active one when a process starts. Each is judged by check (killed: exit 1
// with a difference named, or a crash, a hang or a failed start of the
// mutated reference; survived: exit 0; not viable: it does not compile;
// timeout and error: the harness's problem, verdict.go) and by its
// package's tests. The scheduler (scheduler.go) runs every mutant, then
// confirms the kills seen among many runs with few.
package mutations
