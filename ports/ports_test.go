// Package ports holds the tests that judge the ports of the pool (the
// TypeScript one: ports/typescript) the way their users do: by
// mcpparity check against their target file, and by their own mutants.
package ports

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// typescript is the TypeScript port's folder.
const typescript = "typescript"

// needNode skips without node and npm, except under CI=true where they are
// installed (.ci/run) and their absence is a failure.
func needNode(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not on PATH (CI=true: .ci/run installs Node.js)", tool)
			}
			t.Skipf("%s is not on PATH: the TypeScript port needs Node.js", tool)
		}
	}
}

// buildPort builds the port when its bundle is missing (npm ci, then the
// build script), bounded: the npm registry may be slow.
func buildPort(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(typescript, "dist", "main.js")); err == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	for _, args := range [][]string{{"ci", "--no-audit", "--no-fund"}, {"run", "build"}} {
		cmd := exec.CommandContext(ctx, "npm", args...)
		cmd.Dir = typescript
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm %v: %v\n%s", args, err, out)
		}
	}
}

// harness builds the mcpparity binary.
func harness(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "mcpparity")
	cmd := exec.Command("go", "build", "-o", bin, "../cmd/mcpparity")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestTypeScriptPortPasses: check against the port exits 0, its accepted
// deviations listed with their reasons.
func TestTypeScriptPortPasses(t *testing.T) {
	needNode(t)
	buildPort(t)
	bin := harness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "check", "--target-file", filepath.Join(typescript, "target.yaml"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("check against the TypeScript port: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestTypeScriptPortMutants: every mutant of the port's own catalogue
// (ports/typescript/mutants) is killed by check: the suite catches a
// divergence written in TypeScript, not only in Go.
func TestTypeScriptPortMutants(t *testing.T) {
	needNode(t)
	buildPort(t)
	bin := harness(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	report := filepath.Join(t.TempDir(), "mutants.json")
	cmd := exec.CommandContext(ctx, bin, "mutate", "--target-file", filepath.Join(typescript, "target.yaml"), "--json", report)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("mutate --target-file: %v\n%s", err, out)
	}
	var rep struct {
		Summary struct{ Total, Killed int }
	}
	data, err := os.ReadFile(report)
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err != nil || rep.Summary.Total == 0 || rep.Summary.Killed != rep.Summary.Total {
		t.Fatalf("report: %+v %v\n%s", rep.Summary, err, out)
	}
	t.Logf("%d TypeScript mutants, all killed by check\n%s", rep.Summary.Total, out)
}
