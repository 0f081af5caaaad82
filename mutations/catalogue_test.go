package mutations

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

// repoRoot is the module root, two levels up from this package's tests.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod at %s", root)
	}
	return root
}

func loadReal(t *testing.T) []catalogue.Mutant {
	t.Helper()
	root := repoRoot(t)
	ms, err := catalogue.LoadCatalogue(os.DirFS(root), "mutations/rules")
	if err != nil {
		t.Fatal(err)
	}
	return ms
}

// TestCatalogueCoversEveryRule checks the real catalogue: every rule has
// at least two mutants, 50 or more in all, ordered C1…C8 then P1…P17.
func TestCatalogueCoversEveryRule(t *testing.T) {
	ms := loadReal(t)
	if len(ms) < 50 {
		t.Errorf("%d mutants, want at least 50", len(ms))
	}
	count := map[string]int{}
	for _, m := range ms {
		count[m.Rule]++
	}
	for _, r := range catalogue.Rules() {
		if count[r] < 2 {
			t.Errorf("rule %s has %d mutant(s), want at least 2", r, count[r])
		}
	}
	last := 0
	for _, m := range ms {
		if rank := catalogue.RuleRank(m.Rule); rank < last {
			t.Fatalf("mutant %s (%s) out of rule order", m.ID, m.Rule)
		} else {
			last = rank
		}
	}
}

// TestCatalogueIsCurrent checks that no mutant of the real catalogue is
// stale against the sources of this tree.
func TestCatalogueIsCurrent(t *testing.T) {
	ms := loadReal(t)
	if err := catalogue.Resolve(repoRoot(t), ms); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		if m.Offset < 0 || m.Line < 1 {
			t.Errorf("%s: not resolved (offset %d, line %d)", m.ID, m.Offset, m.Line)
		}
	}
}

const sampleSrc = "package p\n\nfunc A() int { return 1 }\n\nfunc B() int { return 1 }\n"

func sampleFS(mutants string) fstest.MapFS {
	return fstest.MapFS{
		"rules/C1.json": {Data: []byte(`{"rule":"C1","summary":"s","mutants":[` + mutants + `]}`)},
	}
}

func TestLoadCatalogue(t *testing.T) {
	fsys := fstest.MapFS{
		"rules/P2.json":  {Data: []byte(`{"rule":"P2","mutants":[{"id":"p2-a","file":"p/p.go","original":"A","replacement":"Z","why":"w"}]}`)},
		"rules/P10.json": {Data: []byte(`{"rule":"P10","mutants":[{"id":"p10-a","file":"p/p.go","original":"B","replacement":"Z","why":"w"}]}`)},
		"rules/C3.json": {Data: []byte(`{"rule":"C3","mutants":[{"id":"c3-a","file":"p/p.go","original":"A","replacement":"Z","why":"w","run":"^TestA$"},
			{"id":"c3-b","file":"p/p.go","original":"B","replacement":"Z","why":"w"}]}`)},
	}
	ms, err := catalogue.LoadCatalogue(fsys, "rules")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID+"@"+m.Rule)
		if m.Offset != -1 {
			t.Errorf("%s: offset %d before Resolve", m.ID, m.Offset)
		}
	}
	// C before P, P2 before P10, file order within a rule.
	if got, want := strings.Join(ids, " "), "c3-a@C3 c3-b@C3 p2-a@P2 p10-a@P10"; got != want {
		t.Errorf("order %q, want %q", got, want)
	}
	if ms[0].Run != "^TestA$" {
		t.Errorf("run %q", ms[0].Run)
	}
}

func TestLoadCatalogueRejects(t *testing.T) {
	cases := map[string]string{
		"duplicate id":   `{"id":"a","file":"p/p.go","original":"A","replacement":"Z","why":"w"},{"id":"a","file":"p/p.go","original":"B","replacement":"Z","why":"w"}`,
		"no id":          `{"file":"p/p.go","original":"A","replacement":"Z","why":"w"}`,
		"no why":         `{"id":"a","file":"p/p.go","original":"A","replacement":"Z"}`,
		"same text":      `{"id":"a","file":"p/p.go","original":"A","replacement":"A","why":"w"}`,
		"test file":      `{"id":"a","file":"p/p_test.go","original":"A","replacement":"Z","why":"w"}`,
		"absolute":       `{"id":"a","file":"/p/p.go","original":"A","replacement":"Z","why":"w"}`,
		"escape":         `{"id":"a","file":"../p.go","original":"A","replacement":"Z","why":"w"}`,
		"other rule":     `{"id":"a","rule":"C2","file":"p/p.go","original":"A","replacement":"Z","why":"w"}`,
		"unknown field":  `{"id":"a","file":"p/p.go","original":"A","replacement":"Z","why":"w","orignal":"x"}`,
		"bad run":        `{"id":"a","file":"p/p.go","original":"A","replacement":"Z","why":"w","run":"("}`,
		"empty original": `{"id":"a","file":"p/p.go","original":"","replacement":"Z","why":"w"}`,
	}
	for name, ms := range cases {
		t.Run(name, func(t *testing.T) {
			if _, err := catalogue.LoadCatalogue(sampleFS(ms), "rules"); err == nil {
				t.Error("loaded")
			}
		})
	}
	bad := fstest.MapFS{"rules/X1.json": {Data: []byte(`{"rule":"X1","mutants":[]}`)}}
	if _, err := catalogue.LoadCatalogue(bad, "rules"); err == nil {
		t.Error("unknown rule X1 loaded")
	}
	if _, err := catalogue.LoadCatalogue(fstest.MapFS{}, "rules"); err == nil {
		t.Error("empty catalogue loaded")
	}
}

func writeSample(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "p", "p.go"), []byte(sampleSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

func TestResolveStale(t *testing.T) {
	root := writeSample(t)
	ms := []catalogue.Mutant{
		{ID: "once", File: "p/p.go", Original: "func B() int { return 1 }", Replacement: "func B() int { return 2 }", Offset: -1},
		{ID: "zero", File: "p/p.go", Original: "return 3", Replacement: "return 4", Offset: -1},
		{ID: "several", File: "p/p.go", Original: "return 1", Replacement: "return 2", Offset: -1},
		{ID: "overlapping", File: "p/p.go", Original: "n", Replacement: "m", Offset: -1},
		{ID: "nofile", File: "p/q.go", Original: "x", Replacement: "y", Offset: -1},
	}
	err := catalogue.Resolve(root, ms)
	var se *catalogue.StaleError
	if !errors.As(err, &se) {
		t.Fatalf("err %v, want a *StaleError", err)
	}
	got := map[string]int{}
	for _, s := range se.Stale {
		got[s.ID] = s.Count
	}
	if len(got) != 4 || got["zero"] != 0 || got["several"] != 2 || got["overlapping"] < 2 || got["nofile"] != -1 {
		t.Errorf("stale %v", got)
	}
	for _, want := range []string{"zero: p/p.go: original snippet not found", "several: p/p.go: original snippet found 2 times"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if ms[0].Offset != strings.Index(sampleSrc, "func B") || ms[0].Line != 5 {
		t.Errorf("once: offset %d line %d", ms[0].Offset, ms[0].Line)
	}
	out, err := ms[0].Apply([]byte(sampleSrc))
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(sampleSrc, "func B() int { return 1 }", "func B() int { return 2 }", 1); string(out) != want {
		t.Errorf("applied:\n%s", out)
	}
	if _, err := ms[0].Apply([]byte("package p\n")); err == nil {
		t.Error("applied to a changed source")
	}
}

func TestSelect(t *testing.T) {
	ms := []catalogue.Mutant{{ID: "C1-a", Rule: "C1"}, {ID: "C1-b", Rule: "C1"}, {ID: "P1-a", Rule: "P1"}, {ID: "P10-a", Rule: "P10"}}
	got, err := catalogue.Select(ms, []string{"P1", "C1-b"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "C1-b" || got[1].ID != "P1-a" {
		t.Errorf("selected %v", got)
	}
	if _, err := catalogue.Select(ms, []string{"P2"}); err == nil {
		t.Error("P2 selected nothing without an error")
	}
	if all, _ := catalogue.Select(ms, nil); len(all) != 4 {
		t.Error("no ids must select all")
	}
}

// TestCatalogueCompiles compiles impl with every mutant of the real
// catalogue (the schemata, and the mutants built alone), no tests run.
func TestCatalogueCompiles(t *testing.T) {
	ms := loadReal(t)
	r, err := NewRunner(Config{Root: repoRoot(t), TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	res, err := r.Compile(t.Context(), ms)
	if err != nil {
		t.Fatal(err)
	}
	for id, msg := range res.Broken {
		t.Errorf("%s does not compile:\n%s", id, msg)
	}
	if res.Hosted < len(ms)-len(res.Own) || len(res.Own) > 5 {
		t.Errorf("%d hosted, %d built alone (%v) of %d", res.Hosted, len(res.Own), res.Own, len(ms))
	}
}
