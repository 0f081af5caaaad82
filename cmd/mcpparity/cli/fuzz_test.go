package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/scenario"
)

// TestFuzzCommand: fuzz against the reference finds nothing (exit 0);
// against a build of the reference that keeps its store elsewhere (it
// reads no seeded store and writes where the harness does not look) it
// finds a divergence, shrinks it and writes it as a scenario that loads,
// with its golden file (exit 1), and the JSON report says so.
func TestFuzzCommand(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	code, out, errs := run("fuzz", "--target", "ref", "--seed", "3", "--sequences", "3", "--steps", "6", "--suite", dir)
	if code != 0 || !strings.Contains(out, "no divergence found") || !strings.Contains(out, "3 sequence(s)") {
		t.Errorf("ref: exit %d\n%s%s", code, out, errs)
	}
	elsewhere := "cmd:" + exe + " serve-ref --addr {addr} --state {workspace}/elsewhere --workspace {workspace}"
	report := filepath.Join(dir, "report.json")
	code, out, errs = run("fuzz", "--target", elsewhere, "--seed", "1", "--sequences", "20", "--steps", "8", "--suite", dir, "--json", report, "--shrink", "40")
	if code != 1 || !strings.Contains(out, "written: ") || !strings.Contains(out, "reproduce: mcpparity fuzz --target cmd:") {
		t.Fatalf("elsewhere: exit %d\n%s%s", code, out, errs)
	}
	scs, err := scenario.LoadScenarios(os.DirFS(dir), "scenarios")
	if err != nil || len(scs) != 1 {
		t.Fatalf("scenarios written: %d, %v", len(scs), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "golden", scs[0].Name+".golden")); err != nil {
		t.Error(err)
	}
	var rep struct {
		Finding *struct {
			Scenario string         `json:"scenario"`
			Diffs    []compare.Diff `json:"diffs"`
		} `json:"finding"`
	}
	raw, err := os.ReadFile(report)
	if err != nil || json.Unmarshal(raw, &rep) != nil || rep.Finding == nil || len(rep.Finding.Diffs) == 0 ||
		rep.Finding.Scenario != filepath.Join(dir, "scenarios", scs[0].Name+".json") {
		t.Errorf("report %s: %v", raw, err)
	}
}
