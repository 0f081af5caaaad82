package catalogue

import (
	"strings"
	"testing"
	"testing/fstest"
)

func TestLoadSwitchCatalogue(t *testing.T) {
	fsys := fstest.MapFS{"m.json": {Data: []byte(`[
  {"id": "RS-P12.2-a", "rule": "P12", "clause": "P12.2", "description": "the cap is fixed"},
  {"id": "RS-C1.1-b", "rule": "C1", "description": "disabled by default", "survives": "no scenario"},
  {"id": "RS-H1.5-c", "rule": "H1", "description": "off by one", "equivalent": "no server tells"}
]`)}}
	c, err := LoadSwitchCatalogue(fsys, "m.json")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Mutants) != 2 || c.Mutants[0].ID != "RS-P12.2-a" || c.Mutants[0].Rule != "P12" || c.Mutants[0].Why != "the cap is fixed" {
		t.Errorf("mutants: %+v", c.Mutants)
	}
	if c.Clauses["RS-P12.2-a"] != "P12.2" || c.Clauses["RS-C1.1-b"] != "" {
		t.Errorf("clauses: %v", c.Clauses)
	}
	if c.Notes["RS-C1.1-b"] != "known survivor: no scenario" {
		t.Errorf("notes: %v", c.Notes)
	}
	if len(c.Equivalent) != 1 || c.Equivalent[0].Why != "no server tells" {
		t.Errorf("equivalent: %+v", c.Equivalent)
	}
}

func TestLoadSwitchCatalogueRefuses(t *testing.T) {
	for _, tc := range []struct{ json, want string }{
		{`[]`, "no mutant"},
		{`[{"id": "a", "rule": "P12", "description": "x"}, {"id": "a", "rule": "P12", "description": "y"}]`, "id already used"},
		{`[{"id": "a", "rule": "Z9", "description": "x"}]`, `unknown rule "Z9"`},
		{`[{"id": "a", "rule": "P12", "clause": "P11.1", "description": "x"}]`, "is not one of rule P12"},
		{`[{"id": "a", "rule": "P12", "clause": "P12.9", "description": "x"}]`, `unknown clause "P12.9"`},
		{`[{"id": "a", "rule": "P12", "description": " "}]`, "no description"},
		{`[{"id": "a b", "rule": "P12", "description": "x"}]`, "white space"},
		{`[{"id": "a", "rule": "P12", "description": "x", "file": "f"}]`, "unknown field"},
	} {
		_, err := LoadSwitchCatalogue(fstest.MapFS{"m.json": {Data: []byte(tc.json)}}, "m.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.json, err, tc.want)
		}
	}
}
