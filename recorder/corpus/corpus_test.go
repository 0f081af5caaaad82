package corpus_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/cmd/mcpparity/cli"
	"github.com/mcpparity/mcpparity/cmd/mcpparity/harnesstest"
)

// TestMain: record re-executes the test binary (os.Executable) as the
// stdio recorder in front of each stdio server.
func TestMain(m *testing.M) { harnesstest.Main(m) }

// paths returns this folder (the suite), absolute, and the repository root.
func paths(t *testing.T) (suiteDir, repo string) {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	return dir, filepath.Dir(filepath.Dir(dir))
}

// need skips when path is missing, naming what to install or build,
// except under CI=true, where .ci/run installs and builds everything.
func need(t *testing.T, path, what string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing: %s (CI=true: .ci/run installs it)", path, what)
		}
		t.Skipf("%s is missing: %s", path, what)
	}
}

// run runs one harness command line in process; it returns the exit code
// and stdout and stderr together.
func run(t *testing.T, args ...string) (int, string) {
	t.Helper()
	var out bytes.Buffer
	code := cli.Dispatch(context.Background(), args, strings.NewReader(""), &out, &out)
	return code, out.String()
}

// TestRecordDrift records every recording of the suite again from the live
// servers and compares it with the stored fixture, twice: the second run
// finds server-memory's file the first one left.
func TestRecordDrift(t *testing.T) {
	dir, _ := paths(t)
	servers := filepath.Join(dir, "servers")
	need(t, filepath.Join(servers, "npm", "node_modules"), "npm ci in servers/npm")
	need(t, filepath.Join(servers, "python", ".venv", "bin", "python"), "the venv of servers/python (python3 -m venv .venv && .venv/bin/pip install --require-hashes -r requirements.txt)")
	need(t, filepath.Join(servers, "mcp-go", "bin", "server"), "the mcp-go server (go build -o bin/server . in servers/mcp-go)")
	need(t, filepath.Join(servers, "rmcp", "target", "release", "mcpparity-rmcp-server"), "the rmcp server (cargo build --release --locked in servers/rmcp)")
	for i := 1; i <= 2; i++ {
		code, out := run(t, "record-suite", "--drift", "--suite", dir)
		if code != 0 {
			t.Fatalf("record-suite --drift, run %d: exit %d\n%s", i, code, out)
		}
		t.Logf("record-suite --drift, run %d:\n%s", i, out)
	}
}

// TestCheck gates the reference and both ports (when built) on the suite.
func TestCheck(t *testing.T) {
	dir, repo := paths(t)
	scenarios, err := filepath.Glob(filepath.Join(dir, "scenarios", "[0-9]*.json"))
	if err != nil || len(scenarios) == 0 {
		t.Fatalf("no scenarios in %s: %v", dir, err)
	}
	for _, target := range append([]cli.Port{{Name: "ref"}}, cli.Ports...) {
		t.Run(target.Name, func(t *testing.T) {
			args := []string{"check", "--suite", dir, "--no-builtin"}
			if target.TargetFile != "" {
				need(t, filepath.Join(repo, target.Built), "build the port")
				args = append(args, "--target-file", filepath.Join(repo, target.TargetFile))
			}
			code, out := run(t, args...)
			if code != 0 || strings.Count(out, "\npass     corpus:") != len(scenarios) {
				t.Fatalf("check: exit %d, want %d scenarios passed\n%s", code, len(scenarios), out)
			}
		})
	}
}

// TestChangedGolden: a copy of the suite with one value of one golden file
// changed fails check against the reference, naming that scenario.
func TestChangedGolden(t *testing.T) {
	dir, _ := paths(t)
	copyDir := filepath.Join(t.TempDir(), "corpus")
	for _, sub := range []string{"scenarios", "fixtures", "golden"} {
		if err := os.CopyFS(filepath.Join(copyDir, sub), os.DirFS(filepath.Join(dir, sub))); err != nil {
			t.Fatal(err)
		}
	}
	const scenario = "11-mcpgo"
	golden := filepath.Join(copyDir, "golden", scenario+".golden")
	data, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	var steps []map[string]any
	if err := json.Unmarshal(data, &steps); err != nil {
		t.Fatal(err)
	}
	changed := false
	for _, st := range steps {
		if body, ok := st["body"].(map[string]any); ok && st["step"] == "call echo" {
			body["output"], changed = "changed by the test", true
		}
	}
	if !changed {
		t.Fatalf("%s has no step \"call echo\"", golden)
	}
	data, err = json.MarshalIndent(steps, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(golden, append(data, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out := run(t, "check", "--suite", copyDir, "--no-builtin")
	failed := regexp.MustCompile(`(?m)^fail +corpus:` + scenario + `\b`)
	if code != 1 || !failed.MatchString(out) || strings.Count(out, "\nfail ") != 1 {
		t.Fatalf("check with a changed golden file: exit %d, want 1 and only corpus:%s failed\n%s", code, scenario, out)
	}
}
