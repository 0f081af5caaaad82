package cli

import (
	"context"
	"encoding/xml"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
	"github.com/mcpparity/mcpparity/internal/verdict"
	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

// divergeVar picks the rule mutant that the divergent reference is built
// with; the default changes P7 (sanitize no longer trims "_").
const divergeVar = "MCPPARITY_DIVERGE"

const defaultDivergence = "P7-no-trim"

// buildDivergent builds cmd/mcpparity with one rule mutant of the
// catalogue applied through -overlay (the tree is not touched): a real
// second target whose only difference from the reference is that rule.
func buildDivergent(t *testing.T, mutantID string) string {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	all, err := catalogue.LoadCatalogue(os.DirFS(root), "mutations/rules")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := catalogue.Select(all, []string{mutantID})
	if err != nil {
		t.Fatal(err)
	}
	if err := catalogue.Resolve(root, ms); err != nil {
		t.Fatal(err)
	}
	m := ms[0]
	src, err := os.ReadFile(filepath.Join(root, m.File))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	mutated := filepath.Join(dir, filepath.Base(m.File))
	out := append(append(append([]byte{}, src[:m.Offset]...), m.Replacement...), src[m.Offset+len(m.Original):]...)
	if err := os.WriteFile(mutated, out, 0o644); err != nil {
		t.Fatal(err)
	}
	overlay := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(overlay, []byte(`{"Replace":{"`+filepath.Join(root, m.File)+`":"`+mutated+`"}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "mcpparity-divergent")
	cmd := exec.Command("go", "build", "-overlay", overlay, "-o", bin, "./cmd/mcpparity")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -overlay: %v\n%s", err, b)
	}
	return bin
}

// TestGateRefBinaryPasses runs the suite against the unmutated reference
// started as a command: the cmd target and its store contract give parity.
func TestGateRefBinaryPasses(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary")
	}
	bin := buildRef(t)
	results := gateCheck(t, bin)
	for _, r := range results {
		if r.Verdict != verdict.Pass && !r.NotInEra() {
			t.Errorf("%s: %s %s %+v", r.Scenario, r.Verdict, r.Err, r.Diffs)
		}
	}
}

// TestGateDivergentFails: the reference with one rule changed must fail
// the check, with the scenario and the field named. MCPPARITY_DIVERGE picks
// another mutant (then any divergence will do).
func TestGateDivergentFails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries")
	}
	cases := []struct{ mutant, scenario, path, got string }{
		// P7 without trimming: "My Server!" is exposed as mcp__My_Server___….
		{defaultDivergence, "01-pure", "[0].body.tools[0].name", "mcp__My_Server___audio"},
		// P2: an attempt dropped while connecting is not cancelled, so its
		// process lives on.
		{"P2-attempt-not-cancelled", "07-routes", "[4].processes.slow.alive", "1"},
	}
	if v := os.Getenv(divergeVar); v != "" {
		cases = []struct{ mutant, scenario, path, got string }{{mutant: v}}
	}
	for _, c := range cases {
		t.Run(c.mutant, func(t *testing.T) {
			results := gateCheck(t, buildDivergent(t, c.mutant))
			diverged, errored := report.Failed(results)
			if !diverged || errored {
				t.Fatalf("want a divergence and no harness error, got:\n%s", details(results))
			}
			if c.scenario == "" {
				return
			}
			for _, r := range results {
				for _, d := range r.Diffs {
					if r.Scenario == c.scenario && d.Path == c.path && strings.Contains(d.Got, c.got) {
						return
					}
				}
			}
			t.Errorf("no divergence named %s %s (got %s):\n%s", c.scenario, c.path, c.got, details(results))
		})
	}
}

// TestGateCommandExitCodes runs the mcpparity binary itself: check exits 0
// on parity, 1 on divergence with the scenario and field in its output and
// a JUnit file that parses, 2 when the target cannot start.
func TestGateCommandExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds binaries")
	}
	ref := buildRef(t)
	div := buildDivergent(t, defaultDivergence)
	junit := filepath.Join(t.TempDir(), "junit.xml")
	// The divergent binary with its divergence declared as accepted.
	targetFile := filepath.Join(t.TempDir(), "target.yaml")
	yaml := "target: \"cmd:" + div + " serve-ref --addr {addr} --state {state} --workspace {workspace}\"\n" +
		"deviations:\n  - scenario: 01-pure\n    path: \"*\"\n    reason: sanitize differs on purpose\n"
	if err := os.WriteFile(targetFile, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		args   []string
		code   int
		output []string
	}{
		{"parity", []string{"check", "--run", "0[1-4]", "--target", "cmd:" + ref + " serve-ref --addr {addr} --state {state} --workspace {workspace}"}, 0, []string{"4 passed, 0 failed"}},
		{"divergence", []string{"check", "--run", "01", "--junit", junit, "--target", "cmd:" + div + " serve-ref --addr {addr} --state {state} --workspace {workspace}"}, 1, []string{"01-pure [0 tools].body.tools[0].name: DIFF", "mcp__My_Server___audio"}},
		{"accepted deviation", []string{"check", "--run", "01", "--target-file", targetFile}, 0, []string{"accepted (sanitize differs on purpose)", "0 passed, 0 failed, 1 accepted"}},
		// Fail fast: the divergence still exits 1, what did not finish is
		// skipped, never an error.
		{"fail fast", []string{"check", "--failfast", "--parallel", "1", "--run", "0[1-3]", "--target", "cmd:" + div + " serve-ref --addr {addr} --state {state} --workspace {workspace}"}, 1, []string{"fail     01-pure", "skipped  02-config", "skipped  03-status", "0 passed, 1 failed, 0 accepted, 0 errors, 2 skipped"}},
		{"diff of the same behaviour", []string{"diff", "--run", "0[34]", "--a", "ref", "--b", "cmd:" + ref + " serve-ref --addr {addr} --state {state} --workspace {workspace}"}, 0, []string{"same     03-status", "same     04-tools"}},
		{"diff of a divergence", []string{"diff", "--run", "01", "--b", "cmd:" + div + " serve-ref --addr {addr} --state {state} --workspace {workspace}"}, 1, []string{"differ   01-pure", "[0].body.tools[0].name", "mcp__My_Server___audio"}},
		{"target does not start", []string{"check", "--run", "02", "--target", "cmd:/nonexistent/facade --listen {addr}"}, 2, []string{"target did not start"}},
		{"bad flag", []string{"check", "--nope"}, 2, nil},
		{"bad target", []string{"check", "--target", "ftp:x"}, 2, []string{"unknown target"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(ref, c.args...)
			out, err := cmd.CombinedOutput()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != c.code {
				t.Fatalf("exit %d, want %d\n%s", code, c.code, out)
			}
			for _, want := range c.output {
				if !strings.Contains(string(out), want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
	data, err := os.ReadFile(junit)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Failures int `xml:"failures,attr"`
			Cases    []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Body string `xml:",chardata"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(data, &doc); err != nil {
		t.Fatalf("JUnit file does not parse: %v", err)
	}
	if len(doc.Suites) != 1 || doc.Suites[0].Failures != 1 || doc.Suites[0].Cases[0].Failure == nil ||
		!strings.Contains(doc.Suites[0].Cases[0].Failure.Body, "[0 tools].body.tools[0].name") {
		t.Errorf("JUnit does not report the divergence: %s", data)
	}
}

func buildRef(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "mcpparity")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/mcpparity")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return bin
}

// gateCheck runs every scenario against bin started as serve-ref.
func gateCheck(t *testing.T, bin string) []report.Result {
	t.Helper()
	target, err := target.ParseTarget("cmd:" + bin + " serve-ref --addr {addr} --state {state} --workspace {workspace}")
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, target)
	scs, err := scenario.EmbeddedScenarios()
	if err != nil {
		t.Fatal(err)
	}
	return runner.Check(context.Background(), cfg, scs, scenario.EmbeddedGolden, nil, nil)
}

// testConfig runs target with the embedded config changes, this test
// binary as the harness (TestMain makes it serve stdio replays).
func testConfig(t *testing.T, target target.Target) runner.Config {
	t.Helper()
	changes, err := scenario.EmbeddedChanges()
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return runner.Config{Target: target, Harness: []string{exe}, Changes: changes}
}

// details is the results as check prints them: each scenario's verdict and
// differences.
func details(results []report.Result) string {
	var b strings.Builder
	report.WriteDetails(&b, results)
	return b.String()
}
