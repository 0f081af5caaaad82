package ports

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// rust is the Rust port's folder; its binary is built by cargo
// (.ci/run: cargo build --release --locked).
const rust = "rust"

var rustBinary = filepath.Join(rust, "target", "release", "mcpparity-rust")

var (
	rustOnce sync.Once
	rustErr  error
)

// skipOrFail skips with the reason, except under CI=true, where .ci/run
// provides what is missing and its absence is a failure.
func skipOrFail(tb testing.TB, format string, args ...any) {
	tb.Helper()
	if os.Getenv("CI") == "true" {
		tb.Fatalf(format+" (CI=true: .ci/run builds the Rust port)", args...)
	}
	tb.Skipf(format, args...)
}

// prepareRust needs cargo and the port's release binary; when both are
// there it runs cargo build once per test binary, so that a stale binary
// is rebuilt (a no-op when it is current). Bounded.
func prepareRust(tb testing.TB) {
	tb.Helper()
	if _, err := exec.LookPath("cargo"); err != nil {
		skipOrFail(tb, "cargo is not on PATH: the Rust port needs a Rust toolchain")
	}
	if _, err := os.Stat(rustBinary); err != nil {
		skipOrFail(tb, "%s is not built: run cargo build --release --locked in ports/rust", rustBinary)
	}
	rustOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "cargo", "build", "--release", "--locked", "--quiet")
		cmd.Dir = rust
		if out, err := cmd.CombinedOutput(); err != nil {
			rustErr = &buildError{err: err, out: out}
		}
	})
	if rustErr != nil {
		tb.Fatal(rustErr)
	}
}

type buildError struct {
	err error
	out []byte
}

func (e *buildError) Error() string { return "cargo build: " + e.err.Error() + "\n" + string(e.out) }

// TestRustPortPasses: check against the Rust port exits 0 in each era,
// its accepted deviations (transport and timeout texts of hyper and
// tokio) listed with their reasons.
func TestRustPortPasses(t *testing.T) {
	prepareRust(t)
	bin := harness(t)
	checkEachEra(t, bin, filepath.Join(rust, "target.yaml"))
}

// TestRustPortMutants: mutate-target --target-file judges every compiled-in mutant
// of the port (ports/rust/mutants.json) by check: each is killed, but for
// those the catalogue says survive (a scenario the suite lacks, named
// there), which must survive: one killed means its note is stale.
func TestRustPortMutants(t *testing.T) {
	prepareRust(t)
	bin := harness(t)
	ctx, cancel := bounded(t, 15*time.Minute)
	defer cancel()
	report := filepath.Join(t.TempDir(), "mutants.json")
	// Exit 1 with the known survivors: the report decides.
	out, err := command(ctx, bin, "mutate-target", "--target-file", filepath.Join(rust, "target.yaml"), "--workers", mutateWorkers(), "--json", report).CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("mutate-target --target-file: %s\n%s", ended(ctx, err), out)
	}
	known := knownSurvivors(t)
	var rep struct {
		Summary struct{ Total, Killed int }
		Results []struct{ ID, Verdict string }
	}
	data, err := os.ReadFile(report)
	if err == nil {
		err = json.Unmarshal(data, &rep)
	}
	if err != nil || rep.Summary.Total == 0 {
		t.Fatalf("report: %+v %v\n%s", rep.Summary, err, out)
	}
	for _, r := range rep.Results {
		if want := map[bool]string{true: "survived", false: "killed"}[known[r.ID]]; r.Verdict != want {
			t.Errorf("%s: %s, want %s", r.ID, r.Verdict, want)
		}
	}
	if t.Failed() {
		t.Logf("%s", out)
		return
	}
	t.Logf("%d Rust mutants: %d killed, the %d others survivors the catalogue names\n%s",
		rep.Summary.Total, rep.Summary.Killed, rep.Summary.Total-rep.Summary.Killed, out)
}

// knownSurvivors are the ids of ports/rust/mutants.json marked survives.
func knownSurvivors(t *testing.T) map[string]bool {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(rust, "mutants.json"))
	if err != nil {
		t.Fatal(err)
	}
	var entries []struct{ ID, Survives string }
	if err := json.Unmarshal(data, &entries); err != nil {
		t.Fatal(err)
	}
	known := map[string]bool{}
	for _, e := range entries {
		if e.Survives != "" {
			known[e.ID] = true
		}
	}
	return known
}
