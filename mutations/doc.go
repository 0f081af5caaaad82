// Package mutations is the mutation runner of the harness: it proves that
// the test suite of the reference pool (impl/) is strong, by mutating each of
// its rules and expecting the suite to fail.
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
// Each mutant is compiled through `go test -overlay` (the mutated file is
// written to a temporary folder, the working tree is never touched), then
// its tests run with -failfast under a timeout derived from a baseline run.
// Verdicts: killed (a test failed), survived (every test passed), timeout
// (reported apart, not counted as killed) and error (the mutant does not
// build).
package mutations
