package mutations

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

func TestSelectChanged(t *testing.T) {
	all := []catalogue.Mutant{
		{ID: "C1-a", Rule: "C1", File: "impl/config.go"},
		{ID: "C1-b", Rule: "C1", File: "impl/store.go"},
		{ID: "P2-a", Rule: "P2", File: "impl/pool.go"},
		{ID: "P7-a", Rule: "P7", File: "impl/names.go"},
		{ID: "P11-a", Rule: "P11", File: "impl/flatten.go"},
	}
	scenarios := map[string][]string{"P2": {"07-routes"}, "P7": {"01-pure"}}
	ids := func(ms []catalogue.Mutant) []string {
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
		if got := ids(catalogue.SelectChanged(all, all, c.changed, scenarios, "mutations/rules")); !reflect.DeepEqual(got, c.want) {
			t.Errorf("changed %v: %v, want %v", c.changed, got, c.want)
		}
	}
	// A selection keeps its own mutants only; the rule's files come from
	// the whole catalogue.
	if got := ids(catalogue.SelectChanged(all[:1], all, []string{"impl/store.go"}, nil, "mutations/rules")); !reflect.DeepEqual(got, []string{"C1-a"}) {
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
	got, err := catalogue.ChangedFiles(t.Context(), root, "HEAD")
	if err != nil || !reflect.DeepEqual(got, []string{"sub/b.txt"}) {
		t.Errorf("uncommitted change: %v %v", got, err)
	}
	git("-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-am", "b")
	if got, err := catalogue.ChangedFiles(t.Context(), root, "HEAD~1"); err != nil || !reflect.DeepEqual(got, []string{"sub/b.txt"}) {
		t.Errorf("since HEAD~1: %v %v", got, err)
	}
	if got, err := catalogue.ChangedFiles(t.Context(), root, "HEAD"); err != nil || len(got) != 0 {
		t.Errorf("nothing changed: %v %v", got, err)
	}
	if _, err := catalogue.ChangedFiles(t.Context(), root, "no-such-rev"); err == nil || !strings.Contains(err.Error(), "no-such-rev") {
		t.Errorf("unknown revision: %v", err)
	}
	if _, err := catalogue.ChangedFiles(t.Context(), root, "--output=/tmp/x"); err == nil {
		t.Error("a revision that is an option was accepted")
	}
	if _, err := catalogue.RuleScenarios(root); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no %s: %v", catalogue.ScenariosDir, err)
	}
}

// TestRealRuleScenarios reads the repository's scenarios: every rule is
// tested by scenarios that exist.
func TestRealRuleScenarios(t *testing.T) {
	root := repoRoot(t)
	got, err := catalogue.RuleScenarios(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range catalogue.Rules() {
		if len(got[rule]) == 0 {
			t.Errorf("%s: no scenario", rule)
		}
		for _, s := range got[rule] {
			if _, err := os.Stat(filepath.Join(root, catalogue.ScenariosDir, s+".json")); err != nil {
				t.Errorf("%s: scenario %s: %v", rule, s, err)
			}
		}
	}
	// A step names clauses (P2.1, H1.3): the rule and the clause both map.
	if !slices.Contains(got["P2"], "07-routes") || !slices.Contains(got["P2.1"], "07-routes") || !slices.Contains(got["H1"], "12-contract-errors") {
		t.Errorf("P2 %v, P2.1 %v, H1 %v", got["P2"], got["P2.1"], got["H1"])
	}
}
