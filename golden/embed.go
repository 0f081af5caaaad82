// Package golden embeds the golden observations: one file per scenario,
// <scenario>.golden, shared by the eras, and <scenario>.<era>.golden
// where an era's observations differ from it; written by
// `go test ./internal/runner -update` or `mcpparity record`.
package golden

import "embed"

// files holds the golden files (and this source file).
//
//go:embed *
var files embed.FS
