package suite

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// ContractRule tags the steps that test the contract's own behaviour
// (docs/contract.md) rather than a rule of the pool.
const ContractRule = "contract"

var rulePattern = regexp.MustCompile(`^(C[1-8]|P1[0-7]|P[1-9])$`)

// IsPoolRule reports whether id is a rule of docs/rules.md (C1…C8, P1…P17).
func IsPoolRule(id string) bool { return rulePattern.MatchString(id) }

func validRule(r string) bool { return r == ContractRule || IsPoolRule(r) }

// PoolRules lists the rules of docs/rules.md in order: C1…C8, P1…P17.
func PoolRules() []string {
	var out []string
	for i := 1; i <= 8; i++ {
		out = append(out, "C"+strconv.Itoa(i))
	}
	for i := 1; i <= 17; i++ {
		out = append(out, "P"+strconv.Itoa(i))
	}
	return out
}

// AllRules lists PoolRules, then ContractRule.
func AllRules() []string { return append(PoolRules(), ContractRule) }

// RuleScenarios names, for each rule, the scenarios with a step that tests
// it, in the scenarios' order.
func RuleScenarios(scenarios []*Scenario) map[string][]string {
	out := map[string][]string{}
	for _, s := range scenarios {
		var walk func(st Step)
		walk = func(st Step) {
			for _, r := range st.Rules {
				if !slices.Contains(out[r], s.Name) {
					out[r] = append(out[r], s.Name)
				}
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

// CoverageTable is docs/rules-coverage.md: for each rule, the scenario
// steps that test it, from the steps' own rules.
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
	b.WriteString("# Rules and the scenario steps that test them\n\n")
	b.WriteString("Made from the `rules` of every scenario step (`scenarios/*.json`); " +
		"`go test ./internal/suite -run TestRulesCoverage -update` rewrites it, " +
		"and the test fails when it is stale. A mutant of a rule must make one of its steps diverge " +
		"(`mcpparity mutate`).\n\n")
	b.WriteString("| rule | scenario steps |\n|---|---|\n")
	var missing []string
	for _, r := range AllRules() {
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
