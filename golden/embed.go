// Package golden embeds the golden observations: one file per scenario,
// <scenario>.golden, written by `go test ./internal/runner -update` or
// `mcpparity record`.
package golden

import "embed"

// files holds the golden files (and this source file).
//
//go:embed *
var files embed.FS
