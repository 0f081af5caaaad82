package catalogue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/mcpparity/mcpparity/docs"
	"github.com/mcpparity/mcpparity/impl"
)

// BuildSwitch is the build of a mutant compiled into its target: none of
// its own; the target's switch variable (docs/targets.md, section 6)
// selects it in the one build of the target.
const BuildSwitch = "switch"

// switchEntry is one mutant of a switch catalogue: a JSON list in one
// file, each mutant compiled into the target and selected by the value of
// its switch variable.
type switchEntry struct {
	ID          string `json:"id"`
	Rule        string `json:"rule"`
	Clause      string `json:"clause,omitempty"`
	Description string `json:"description"`
	// Equivalent, when set, says why no server the fixtures come from can
	// tell the mutant from the target: it is left out of the run.
	Equivalent string `json:"equivalent,omitempty"`
	// Survives, when set, names the scenario the suite lacks to kill the
	// mutant: it is run and judged like any, the note kept with it.
	Survives string `json:"survives,omitempty"`
	// Era, when set, is the era whose check judges the mutant (a mutant
	// of the 2026-07-28 era's clauses acts in that era only).
	Era string `json:"era,omitempty"`
}

// A SwitchCatalogue is the mutants of a switch catalogue: those to run,
// and the equivalent ones left out, each with its reason.
type SwitchCatalogue struct {
	Mutants    []Mutant
	Equivalent []Mutant
	// Clauses are the mutants' clauses, by id: their first check runs the
	// scenarios of the clause rather than those of the whole rule.
	Clauses map[string]string
	// Notes are the Survives notes, by mutant id.
	Notes map[string]string
	// Eras are the eras of the mutants judged in one, by mutant id.
	Eras map[string]string
}

// LoadSwitchCatalogue reads a switch catalogue (file, in fsys). A mutant's
// Why is its description (an equivalent one's: why it is equivalent).
func LoadSwitchCatalogue(fsys fs.FS, file string) (*SwitchCatalogue, error) {
	raw, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, err
	}
	var entries []switchEntry
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&entries); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	c := &SwitchCatalogue{Clauses: map[string]string{}, Notes: map[string]string{}, Eras: map[string]string{}}
	seen := map[string]bool{}
	var errs []error
	for i, e := range entries {
		if err := e.validate(seen); err != nil {
			errs = append(errs, fmt.Errorf("%s: mutant #%d (%s): %w", file, i+1, e.ID, err))
			continue
		}
		seen[e.ID] = true
		m := Mutant{ID: e.ID, Rule: e.Rule, Why: e.Description}
		if e.Clause != "" {
			c.Clauses[e.ID] = e.Clause
		}
		if e.Era != "" {
			c.Eras[e.ID] = e.Era
		}
		if e.Equivalent != "" {
			m.Why = e.Equivalent
			c.Equivalent = append(c.Equivalent, m)
			continue
		}
		if e.Survives != "" {
			c.Notes[e.ID] = "known survivor: " + e.Survives
		}
		c.Mutants = append(c.Mutants, m)
	}
	if len(entries) == 0 {
		errs = append(errs, fmt.Errorf("%s: no mutant", file))
	}
	return c, errors.Join(errs...)
}

// validate reports what is wrong with an entry: a missing or repeated id, a
// rule or clause that docs/ does not have, no description.
func (e switchEntry) validate(seen map[string]bool) error {
	clauses := docs.Clauses()
	rule := func(c string) bool { return docs.Rule(c) == e.Rule }
	switch {
	case e.ID == "" || strings.ContainsAny(e.ID, " \t\n="):
		return fmt.Errorf("id %q: empty or with white space or '='", e.ID)
	case seen[e.ID]:
		return errors.New("id already used")
	case !slices.ContainsFunc(clauses, rule):
		return fmt.Errorf("unknown rule %q", e.Rule)
	case e.Clause != "" && docs.Rule(e.Clause) != e.Rule:
		return fmt.Errorf("clause %q is not one of rule %s", e.Clause, e.Rule)
	case e.Clause != "" && !slices.Contains(clauses, e.Clause):
		return fmt.Errorf("unknown clause %q", e.Clause)
	case strings.TrimSpace(e.Description) == "":
		return errors.New("no description")
	}
	if _, err := impl.ParseEra(e.Era); err != nil {
		return fmt.Errorf("era: %w", err)
	}
	return nil
}
