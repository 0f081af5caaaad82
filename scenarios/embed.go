// Package scenarios embeds the conformance scenarios (one JSON file each,
// see internal/suite.Scenario) and the call script shared by the scenarios
// and the recorder.
package scenarios

import "embed"

// Files holds the scenario files and calls.json.
//
//go:embed *.json
var Files embed.FS
