package suite

import (
	"io/fs"

	"github.com/mcpparity/mcpparity/golden"
	mutcfg "github.com/mcpparity/mcpparity/mutations/config"
	"github.com/mcpparity/mcpparity/scenarios"
)

// EmbeddedScenarios are the scenarios built into the binary.
func EmbeddedScenarios() ([]*Scenario, error) { return LoadScenarios(scenarios.Files, ".") }

// EmbeddedMutations are the sixteen config mutations built into the binary.
func EmbeddedMutations() ([]*Mutation, error) { return LoadMutations(mutcfg.Files, ".") }

// EmbeddedGolden reads the golden files built into the binary.
func EmbeddedGolden(scenario string) ([]byte, error) {
	return fs.ReadFile(golden.Files, scenario+".golden")
}
