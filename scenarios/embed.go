// Package scenarios embeds the conformance scenarios (one JSON file each,
// see internal/scenario.Scenario), the call script shared by the scenarios and
// the recorder, and the sixteen config changes (changes/*.json, see
// internal/scenario.Change).
package scenarios

import "embed"

// Files holds the scenario files, the call scripts and changes/*.json.
//
//go:embed *.json changes/*.json
var Files embed.FS
