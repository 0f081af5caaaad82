package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/internal/verdict"
	"github.com/mcpparity/mcpparity/mutations"
	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

func mutate(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	code = dispatch(context.Background(), args, &out, &errs)
	return code, out.String(), errs.String()
}

// A small module with a catalogue of its own: two rules, one mutant each.
func writeCatalogueModule(t *testing.T, withScenarios bool) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no git")
		}
		t.Skip("no git")
	}
	root := t.TempDir()
	files := map[string]string{
		"go.mod":                  "module example.com/m\n\ngo 1.26\n",
		"impl/a.go":               "package impl\n\nfunc A() int { return 1 }\n",
		"impl/b.go":               "package impl\n\nfunc B() int { return 2 }\n",
		"golden/02-b.golden":      "[]\n",
		"mutations/rules/C1.json": `{"rule":"C1","summary":"a","mutants":[{"id":"C1-a","file":"impl/a.go","original":"return 1","replacement":"return 0","why":"a"}]}`,
		"mutations/rules/P2.json": `{"rule":"P2","summary":"b","mutants":[{"id":"P2-b","file":"impl/b.go","original":"return 2","replacement":"return 0","why":"b"}]}`,
	}
	if withScenarios {
		files["scenarios/01-a.json"] = `{"steps":[{"name":"status","kind":"request","rules":["C1.1"],"method":"GET","path":"/api/mcp"}]}`
		files["scenarios/02-b.json"] = `{"steps":[{"name":"a step","kind":"request","rules":["P2.1"],"method":"GET","path":"/api/mcp"}]}`
	}
	for name, src := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "m"}} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return root
}

func TestMutateChanged(t *testing.T) {
	root := writeCatalogueModule(t, true)
	if code, out, errs := mutate(t, "mutate", "--root", root, "--changed", "HEAD", "--list"); code != 0 || !strings.Contains(out, "0 mutant(s)") || !strings.Contains(errs, "0 file(s) changed") {
		t.Errorf("nothing changed: exit %d\n%s%s", code, out, errs)
	}
	// A golden file of P2's scenario changes: P2's mutant only.
	if err := os.WriteFile(filepath.Join(root, "golden", "02-b.golden"), []byte("[1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := mutate(t, "mutate", "--root", root, "--changed", "HEAD", "--list")
	if code != 0 || !strings.Contains(out, "P2-b") || strings.Contains(out, "C1-a") || !strings.Contains(out, "1 mutant(s)") {
		t.Errorf("golden of P2 changed: exit %d\n%s%s", code, out, errs)
	}
	// A source file of C1's mutant too.
	if err := os.WriteFile(filepath.Join(root, "impl", "a.go"), []byte("package impl\n\n// A is one.\nfunc A() int { return 1 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := mutate(t, "mutate", "--root", root, "--changed", "HEAD", "--list"); code != 0 || !strings.Contains(out, "C1-a") || !strings.Contains(out, "2 mutant(s)") {
		t.Errorf("impl/a.go changed too: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := mutate(t, "mutate", "--root", root, "--changed", "no-such-revision", "--list"); code != 2 || !strings.Contains(errs, "no-such-revision") {
		t.Errorf("bad revision: exit %d %s", code, errs)
	}
}

func TestMutateChangedWithoutScenarios(t *testing.T) {
	root := writeCatalogueModule(t, false)
	if err := os.WriteFile(filepath.Join(root, "golden", "02-b.golden"), []byte("[1]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, errs := mutate(t, "mutate", "--root", root, "--changed", "HEAD", "--list")
	if code != 0 || !strings.Contains(out, "0 mutant(s)") || !strings.Contains(errs, "no scenarios/") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
}

func TestMutateFlags(t *testing.T) {
	root := writeCatalogueModule(t, true)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--list"}, 0, "2 mutant(s) (shard 1/1 of 2 selected)"},
		{[]string{"--list", "--rule", "P2"}, 0, "1 mutant(s)"},
		{[]string{"--list", "--shard", "2/2"}, 0, "P2-b"},
		{[]string{"--rule", "P9"}, 2, "no mutant for P9"},
		{[]string{"--shard", "3/2"}, 2, "shard"},
		{[]string{"--coverage", "maybe"}, 2, "--coverage"},
		{[]string{"extra"}, 2, "unexpected argument"},
	} {
		code, out, errs := mutate(t, append([]string{"mutate", "--root", root}, c.args...)...)
		if code != c.code || !strings.Contains(out+errs, c.want) {
			t.Errorf("%v: exit %d, want %d with %q\n%s%s", c.args, code, c.code, c.want, out, errs)
		}
	}
}

// TestMutateMerge joins two shard reports: their table, and the suite's
// exit code.
func TestMutateMerge(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, k int, res mutations.Result) string {
		r := &mutations.Report{Version: mutations.ReportVersion, Mode: mutations.ModeRules, Selected: 2,
			Started: time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC), Shards: []catalogue.Shard{{K: k, N: 2}}, Results: []mutations.Result{res}}
		p := filepath.Join(dir, name)
		if err := r.WriteFile(p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	a := write("a.json", 1, mutations.Result{Index: 0, ID: "C1-a", Rule: "C1", Verdict: verdict.Killed, KilledBy: "02-config [0].status"})
	b := write("b.json", 2, mutations.Result{Index: 1, ID: "P2-b", Rule: "P2", Verdict: verdict.Survived,
		Tests: mutations.TestsResult{Verdict: verdict.Killed, KilledBy: "TestP2"}})
	code, out, errs := mutate(t, "mutate-merge", a, b, "--json", filepath.Join(dir, "all.json"))
	if code != 1 || !strings.Contains(out, "2 mutants; suite: 1 killed, 1 survived") || !strings.Contains(out, "impl tests: killed by TestP2 (only the Go reference is protected)") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	if _, err := mutations.ReadReportFile(filepath.Join(dir, "all.json")); err != nil {
		t.Error(err)
	}
	if code, _, errs := mutate(t, "mutate-merge", a); code != 2 || !strings.Contains(errs, "missing shard(s) 2/2") {
		t.Errorf("one shard: exit %d %s", code, errs)
	}
}

// TestMutateFuzz: with --fuzz-every, a mutant check kills is also fuzzed
// against the reference, and the search finds it; an equivalent one (the
// go-sdk's content blocks escape their markup themselves, whatever the
// encoder) leaves the search with nothing. Both in the JSON report.
func TestMutateFuzz(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the schemata and fuzzes")
	}
	report := filepath.Join(t.TempDir(), "report.json")
	code, out, errs := mutate(t, "mutate", "--root", repoRoot, "--catalogue", "mutations/batches/bg2",
		"--rule", "BG2-P13-prefix-counted-in-cap,BG2-J1-html-not-escaped", "--no-tests",
		"--fuzz", "20s", "--fuzz-every", "--json", report)
	if code != 1 {
		t.Fatalf("exit %d, want 1 (the equivalent mutant survives)\n%s%s", code, out, errs)
	}
	rep, err := mutations.ReadReportFile(report)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	for _, r := range rep.Results {
		if r.Fuzz == nil || r.Fuzz.Error != "" {
			t.Fatalf("%s: fuzz %+v\n%s", r.ID, r.Fuzz, out)
		}
		found[r.ID] = r.Fuzz.Found
	}
	if !found["BG2-P13-prefix-counted-in-cap"] || found["BG2-J1-html-not-escaped"] {
		t.Fatalf("found %v, want the cap's mutant only\n%s", found, out)
	}
	if !strings.Contains(out, "fuzz: 2 mutant(s) fuzzed, 1 found; of the 1 the suite did not kill, 0 found") {
		t.Errorf("the table's fuzz lines:\n%s", out)
	}
}
