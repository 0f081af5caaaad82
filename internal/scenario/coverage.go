package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/mcpparity/mcpparity/docs"
)

func validClause(id string) bool { return slices.Contains(docs.Clauses(), id) }

// IsSpecRule reports whether id is a rule of the specification.
func IsSpecRule(id string) bool { return slices.Contains(docs.Rules(), id) }

// RuleScenarios names, for each clause and for each rule, the scenarios
// with a step that tests it (a step of clause C4.2 tests rule C4), in the
// scenarios' order.
func RuleScenarios(scenarios []*Scenario) map[string][]string {
	out := map[string][]string{}
	add := func(id, scenario string) {
		if !slices.Contains(out[id], scenario) {
			out[id] = append(out[id], scenario)
		}
	}
	for _, s := range scenarios {
		var walk func(st Step)
		walk = func(st Step) {
			for _, c := range st.Rules {
				add(c, s.ID())
				add(docs.Rule(c), s.ID())
			}
			for _, sub := range st.Parallel {
				walk(sub)
			}
		}
		for _, st := range s.Steps {
			walk(st)
		}
	}
	return out
}

// CoverageTable is docs/rules-coverage.md: for each clause, the scenario
// steps that test it, from the steps' own rules; a clause without a step is
// an error.
func CoverageTable(scenarios []*Scenario) (string, error) {
	steps := map[string][]string{} // rule → "scenario\x00step"
	for _, s := range scenarios {
		var walk func(st Step, prefix string)
		walk = func(st Step, prefix string) {
			for _, r := range st.Rules {
				steps[r] = append(steps[r], s.Name+"\x00"+prefix+st.Name)
			}
			for _, sub := range st.Parallel {
				walk(sub, st.Name+" › ")
			}
		}
		for _, st := range s.Steps {
			walk(st, "")
		}
	}
	var b strings.Builder
	b.WriteString("# Clauses and the scenario steps that test them\n\n")
	b.WriteString("Made from the `rules` of every scenario step (`scenarios/*.json`), for every clause of " +
		"[rules.md](rules.md) and [contract.md](contract.md); " +
		"`go test ./internal/scenario -run TestRulesCoverage -update` rewrites it, " +
		"and the test fails when it is stale or a clause has no step. A mutant of a rule must make one of its steps diverge " +
		"(`mcpparity mutate`).\n\n")
	b.WriteString("| clause | scenario steps |\n|---|---|\n")
	var missing []string
	for _, r := range docs.Clauses() {
		list := steps[r]
		if len(list) == 0 {
			missing = append(missing, r)
			continue
		}
		var parts []string
		last := ""
		for _, sc := range list {
			scenario, step, _ := strings.Cut(sc, "\x00")
			step = strings.ReplaceAll(step, "|", `\|`)
			if scenario != last {
				parts = append(parts, fmt.Sprintf("`%s`: %s", scenario, step))
				last = scenario
				continue
			}
			parts[len(parts)-1] += "; " + step
		}
		fmt.Fprintf(&b, "| %s | %s |\n", r, strings.Join(parts, " · "))
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("no scenario step tests %s", strings.Join(missing, ", "))
	}
	return b.String(), nil
}
