package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// need skips without the commands, except under CI=true, where they are
// installed (.ci/run) and their absence is a failure.
func need(t *testing.T, why string, commands ...string) {
	t.Helper()
	for _, c := range commands {
		if _, err := exec.LookPath(c); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not on PATH (CI=true: .ci/run installs it): %s", c, why)
			}
			t.Skipf("%s is not on PATH: %s", c, why)
		}
	}
}

// runIn runs the binary with args in dir, bounded, and returns its exit
// code and combined output.
func runIn(t *testing.T, dir, bin string, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	case err != nil:
		t.Fatalf("%s %q: %v\n%s", bin, args, err, out)
	}
	return 0, string(out)
}

// TestInitSuiteWithTheBinaryAlone: the built binary, copied into a
// temporary folder and run from another one (no source tree to read),
// writes example suites, one a copy of the embedded fixture and one
// recorded with npx when it is there, and check passes on both beside the
// embedded scenarios.
func TestInitSuiteWithTheBinaryAlone(t *testing.T) {
	root := t.TempDir()
	bin := filepath.Join(root, "bin", "mcpparity")
	data, err := os.ReadFile(builtBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(root, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	if code, out := runIn(t, work, bin, "init-suite", "--copy", "copied"); code != 0 || !strings.Contains(out, "wrote "+filepath.Join(work, "copied", "golden", "01-everything.golden")) {
		t.Fatalf("init-suite --copy: exit %d\n%s", code, out)
	}
	code, out := runIn(t, work, bin, "init-suite", "recorded")
	if code != 0 {
		t.Fatalf("init-suite: exit %d\n%s", code, out)
	}
	if _, err := exec.LookPath("npx"); err == nil && (!strings.Contains(out, "recording npx -y") || strings.Contains(out, "copying the embedded fixture")) {
		t.Errorf("init-suite with npx on PATH did not record server-everything:\n%s", out)
	}
	if code, out = runIn(t, work, bin, "init-suite", "copied"); code != 2 || !strings.Contains(out, "is not empty") {
		t.Errorf("init-suite into a suite: exit %d\n%s", code, out)
	}
	code, out = runIn(t, work, bin, "check", "--suite", "copied", "--suite", "recorded")
	if code != 0 || !strings.Contains(out, "pass     copied:01-everything") || !strings.Contains(out, "pass     recorded:01-everything") {
		t.Fatalf("check --suite: exit %d\n%s", code, out)
	}
}

// blobCalls is the call script of the suite recorded from server-everything:
// among others, a call whose result embeds a blob resource, which no
// embedded scenario makes.
const blobCalls = `{
  "upstreamCmd": "npx -y @modelcontextprotocol/server-everything",
  "calls": [
    {"tool": "echo", "args": {"message": "suite"}},
    {"tool": "get-resource-reference", "args": {"resourceType": "Blob", "resourceId": 2}},
    {"tool": "get-resource-reference", "args": {"resourceType": "Text", "resourceId": 1}}
  ]
}
`

// TestSuiteOfServerEverything: a suite built in a temporary folder from
// server-everything, recorded with npx, its starting scenario and its
// golden file written by golden, passes check against the reference and
// against the TypeScript port; a mutant of the port that only this
// scenario sees survives the embedded scenarios and is killed with
// --suite.
func TestSuiteOfServerEverything(t *testing.T) {
	need(t, "server-everything is recorded through npx", "npx")
	bin := builtBinary(t)
	root := t.TempDir()
	dir := makeSuite(t, filepath.Join(root, "everything-suite"), map[string]string{"scenarios/calls-everything.json": blobCalls})
	work := filepath.Join(root, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	recordAndGolden(t, work, bin, dir)
	golden, err := os.ReadFile(filepath.Join(dir, "golden", "01-everything.golden"))
	if err != nil || !strings.Contains(string(golden), `\"blob\":`) {
		t.Fatalf("the golden file holds no blob resource: %v\n%s", err, golden)
	}
	const id = "everything-suite:01-everything"
	if code, out := runIn(t, work, bin, "check", "--suite", dir); code != 0 || !strings.Contains(out, "pass     "+id) {
		t.Fatalf("check --suite against ref: exit %d\n%s", code, out)
	}
	t.Run("typescript", func(t *testing.T) { typescriptSuite(t, bin, dir, id) })
}

// typescriptSuite checks the suite against the TypeScript port, then the
// port's mutant testdata/suite-mutants with and without it.
func typescriptSuite(t *testing.T, bin, dir, id string) {
	need(t, "the TypeScript port runs on Node.js", "node", "npm")
	port := portCopy(t)
	target := filepath.Join(port, "target.yaml")
	if code, out := runIn(t, port, bin, "check", "--target-file", target, "--run", "^10-everything$"); code != 0 {
		t.Skipf("the TypeScript port does not pass the embedded scenario 10-everything (it is being brought to the current specification), so the suite cannot judge it yet:\n%.600s", out)
	}
	if code, out := runIn(t, port, bin, "check", "--target-file", target, "--suite", dir, "--no-builtin"); code != 0 || !strings.Contains(out, "pass     "+id) {
		t.Fatalf("check --suite against the port: exit %d\n%s", code, out)
	}
	mutants := filepath.Join(port, "mutants")
	if err := os.RemoveAll(mutants); err != nil {
		t.Fatal(err)
	}
	copyTree(t, "testdata/suite-mutants", mutants)
	report := filepath.Join(t.TempDir(), "mutate.json")
	code, out := runIn(t, port, bin, "mutate-target", "--target-file", target, "--json", report)
	if rep := readMutateReport(t, report); code != 1 || rep.Summary.Survived != 1 {
		t.Errorf("mutate-target without the suite: exit %d, %+v, want the mutant to survive\n%s", code, rep.Summary, out)
	}
	code, out = runIn(t, port, bin, "mutate-target", "--target-file", target, "--suite", dir, "--json", report)
	if rep := readMutateReport(t, report); code != 0 || rep.Summary.Killed != 1 || rep.Results[0].Scenario != id {
		t.Errorf("mutate-target --suite: exit %d, %+v, want the mutant killed by %s\n%s", code, rep, id, out)
	}
}

type mutateReport struct {
	Summary struct{ Total, Killed, Survived int }
	Results []struct{ ID, Verdict, Scenario string }
}

func readMutateReport(t *testing.T, path string) mutateReport {
	t.Helper()
	var rep mutateReport
	data, err := os.ReadFile(path)
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err != nil {
		t.Errorf("mutate report: %v", err)
	}
	return rep
}

// portCopy copies the TypeScript port's sources into a temporary folder
// (the port's own folder is built by the ports tests, maybe at the same
// time), with the port's node_modules linked, or installed there when the
// port has none, and bundles it.
func portCopy(t *testing.T) string {
	t.Helper()
	src := filepath.Join(repoRoot, "ports", "typescript")
	dst := filepath.Join(t.TempDir(), "typescript")
	for _, p := range []string{"src", "bundle.mjs", "package.json", "package-lock.json", "tsconfig.json", "target.yaml"} {
		info, err := os.Stat(filepath.Join(src, p))
		if err != nil {
			t.Fatal(err)
		}
		if info.IsDir() {
			copyTree(t, filepath.Join(src, p), filepath.Join(dst, p))
			continue
		}
		data, err := os.ReadFile(filepath.Join(src, p))
		if err == nil {
			err = os.WriteFile(filepath.Join(dst, p), data, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	steps := [][]string{{"node", "bundle.mjs"}}
	modules, err := filepath.Abs(filepath.Join(src, "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(modules); err != nil {
		steps = append([][]string{{"npm", "ci", "--no-audit", "--no-fund"}}, steps...)
	} else if err := os.Symlink(modules, filepath.Join(dst, "node_modules")); err != nil {
		t.Fatal(err)
	}
	for _, argv := range steps {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
		cmd.Dir = dst
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%q: %v\n%s", argv, err, out)
		}
	}
	return dst
}

// recordAndGolden runs record, then golden, on the suite dir from work.
func recordAndGolden(t *testing.T, work, bin, dir string) {
	t.Helper()
	for _, args := range [][]string{{"record-suite", "--suite", dir}, {"golden", "--suite", dir}} {
		if code, out := runIn(t, work, bin, args...); code != 0 {
			t.Fatalf("%q: exit %d\n%s", args, code, out)
		}
	}
}
