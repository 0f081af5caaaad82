package scenario

import (
	"github.com/mcpparity/mcpparity/golden"
	"github.com/mcpparity/mcpparity/scenarios"
)

// EmbeddedScenarios are the scenarios built into the binary.
func EmbeddedScenarios() ([]*Scenario, error) { return LoadScenarios(scenarios.Files, ".") }

// EmbeddedChanges are the sixteen config changes built into the binary.
func EmbeddedChanges() ([]*Change, error) { return loadChanges(scenarios.Files, "changes") }

// EmbeddedGolden reads the golden files built into the binary.
func EmbeddedGolden(scenario, era string) ([]byte, error) {
	return golden.Read("", scenario, era)
}
