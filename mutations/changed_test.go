package mutations

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const coverageDoc = "# Rules and scenarios\n\n" +
	"| rule | scenarios | notes |\n" +
	"|---|---|---|\n" +
	"| C1 | `02-config`, `16-config-edges`: stored without enabled | x |\n" +
	"| **P2** | `07-routes`: save while connecting; tools | 03-status is not one |\n" +
	"| `P10` | `06-stdio`, `13-deadlines` | |\n" +
	"| P11 | — | |\n" +
	"| P17 | `11-catalog` |\n" +
	"| P2 | `15-concurrency` | a second row |\n" +
	"| rule | 99-not-a-rule | |\n" +
	"\nP3 is in `13-deadlines` too (prose, not a row).\n"

func TestParseRuleScenarios(t *testing.T) {
	got, err := parseRuleScenarios(bufio.NewScanner(strings.NewReader(coverageDoc)))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"C1":  {"02-config", "16-config-edges"},
		"P2":  {"07-routes", "15-concurrency"},
		"P10": {"06-stdio", "13-deadlines"},
		"P11": {},
		"P17": {"11-catalog"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestSelectChanged(t *testing.T) {
	all := []Mutant{
		{ID: "C1-a", Rule: "C1", File: "impl/config.go"},
		{ID: "C1-b", Rule: "C1", File: "impl/store.go"},
		{ID: "P2-a", Rule: "P2", File: "impl/pool.go"},
		{ID: "P7-a", Rule: "P7", File: "impl/names.go"},
		{ID: "P11-a", Rule: "P11", File: "impl/flatten.go"},
	}
	scenarios := map[string][]string{"P2": {"07-routes"}, "P7": {"01-pure"}}
	ids := func(ms []Mutant) []string {
		var out []string
		for _, m := range ms {
			out = append(out, m.ID)
		}
		return out
	}
	for _, c := range []struct {
		changed []string
		want    []string
	}{
		{[]string{"impl/store.go"}, []string{"C1-a", "C1-b"}}, // a file of one mutant: the whole rule
		{[]string{"golden/07-routes.golden"}, []string{"P2-a"}},
		{[]string{"scenarios/01-pure.json", "README.md"}, []string{"P7-a"}},
		{[]string{"mutations/rules/P11.json"}, []string{"P11-a"}},
		{[]string{"docs/contract.md", "scenarios/02-config.json"}, nil},
		{nil, nil},
	} {
		if got := ids(SelectChanged(all, all, c.changed, scenarios, "mutations/rules")); !reflect.DeepEqual(got, c.want) {
			t.Errorf("changed %v: %v, want %v", c.changed, got, c.want)
		}
	}
	// A selection keeps its own mutants only; the rule's files come from
	// the whole catalogue.
	if got := ids(SelectChanged(all[:1], all, []string{"impl/store.go"}, nil, "mutations/rules")); !reflect.DeepEqual(got, []string{"C1-a"}) {
		t.Errorf("selection: %v", got)
	}
}

func TestChangedFiles(t *testing.T) {
	needGit(t)
	root := writeModule(t, map[string]string{"a.go": "package a\n", "sub/b.txt": "b\n", "go.mod": "module x\n"})
	gitInit(t, root)
	if err := os.WriteFile(filepath.Join(root, "sub", "b.txt"), []byte("changed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	got, err := ChangedFiles(t.Context(), root, "HEAD")
	if err != nil || !reflect.DeepEqual(got, []string{"sub/b.txt"}) {
		t.Errorf("uncommitted change: %v %v", got, err)
	}
	git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-am", "b")
	if got, err := ChangedFiles(t.Context(), root, "HEAD~1"); err != nil || !reflect.DeepEqual(got, []string{"sub/b.txt"}) {
		t.Errorf("since HEAD~1: %v %v", got, err)
	}
	if got, err := ChangedFiles(t.Context(), root, "HEAD"); err != nil || len(got) != 0 {
		t.Errorf("nothing changed: %v %v", got, err)
	}
	if _, err := ChangedFiles(t.Context(), root, "no-such-rev"); err == nil || !strings.Contains(err.Error(), "no-such-rev") {
		t.Errorf("unknown revision: %v", err)
	}
	if _, err := ChangedFiles(t.Context(), root, "--output=/tmp/x"); err == nil {
		t.Error("a revision that is an option was accepted")
	}
	if _, err := RuleScenarios(root); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no %s: %v", RulesCoverageDoc, err)
	}
}

// TestRealRulesCoverage reads the repository's docs/rules-coverage.md:
// rows of rules naming scenarios that exist.
func TestRealRulesCoverage(t *testing.T) {
	root := repoRoot(t)
	got, err := RuleScenarios(root)
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("no " + RulesCoverageDoc)
	}
	if err != nil {
		t.Fatal(err)
	}
	if len(got) == 0 {
		t.Fatalf("no rule row read from %s", RulesCoverageDoc)
	}
	for _, rule := range Rules() {
		for _, s := range got[rule] {
			if _, err := os.Stat(filepath.Join(root, "scenarios", s+".json")); err != nil {
				t.Errorf("%s: scenario %s: %v", rule, s, err)
			}
		}
	}
}
