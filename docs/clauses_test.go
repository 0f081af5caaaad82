package docs

import "testing"

// Every clause is defined once, and every rule of the pool has clauses.
func TestClauses(t *testing.T) {
	cl := Clauses()
	seen := map[string]bool{}
	for _, c := range cl {
		if seen[c] {
			t.Errorf("clause %s is defined twice", c)
		}
		seen[c] = true
	}
	for _, want := range []string{"C1.1", "C8.6", "P1.1", "P17.6", "J1.1", "T1.1", "S1.1", "H1.1", "H4.4"} {
		if !seen[want] {
			t.Errorf("clause %s is missing from %v", want, cl)
		}
	}
	rules := map[string]bool{}
	for _, c := range cl {
		rules[Rule(c)] = true
	}
	for _, r := range []string{"C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9", "P10", "P11", "P12", "P13", "P14", "P15", "P16", "P17"} {
		if !rules[r] {
			t.Errorf("rule %s has no clause", r)
		}
	}
}
