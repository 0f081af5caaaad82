package scenario_test

import (
	"path/filepath"
	"testing"

	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/sebdah/goldie/v2"
)

// TestRulesCoverage keeps docs/rules-coverage.md equal to the table made
// from the scenarios' step rules, and every rule tested by some step.
func TestRulesCoverage(t *testing.T) {
	scs, err := scenario.EmbeddedScenarios()
	if err != nil {
		t.Fatal(err)
	}
	table, err := scenario.CoverageTable(scs)
	if err != nil {
		t.Fatal(err)
	}
	dir, err := filepath.Abs("../../docs")
	if err != nil {
		t.Fatal(err)
	}
	g := goldie.New(t, goldie.WithFixtureDir(dir), goldie.WithNameSuffix(".md"))
	g.Assert(t, "rules-coverage", []byte(table))
}
