// Package ports holds the tests that judge the ports of the pool
// (ports/typescript, ports/rust) the way their users do: by mcpparity
// check against their target file, and by their own mutants.
package ports

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/impl"
)

// typescript is the TypeScript port's folder.
const typescript = "typescript"

// needNode skips without node and npm, except under CI=true where they are
// installed (.ci/run) and their absence is a failure.
func needNode(t testing.TB) {
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

var (
	buildOnce   sync.Once
	buildErr    error
	harnessOnce sync.Once
	builtBin    string
	harnessErr  error
)

// prepare builds, once per test binary, the TypeScript port (npm ci when
// its node_modules is missing, then the bundle of src/, so that dist/ is
// never stale; the type check is the build script's, which .ci/run runs)
// and the mcpparity binary. It returns the binary. Bounded: the npm
// registry may be slow.
func prepare(tb testing.TB) string {
	tb.Helper()
	buildOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		var steps [][]string
		if _, err := os.Stat(filepath.Join(typescript, "node_modules")); err != nil {
			steps = append(steps, []string{"npm", "ci", "--no-audit", "--no-fund"})
		}
		steps = append(steps, []string{"node", "bundle.mjs"})
		for _, argv := range steps {
			cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
			cmd.Dir = typescript
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("%v: %v\n%s", argv, err, out)
				return
			}
		}
	})
	if buildErr != nil {
		tb.Fatal(buildErr)
	}
	return harness(tb)
}

// harness builds, once per test binary, the mcpparity binary and returns it.
func harness(tb testing.TB) string {
	tb.Helper()
	harnessOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		builtBin = filepath.Join(binDir, "mcpparity")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", builtBin, "../cmd/mcpparity")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			harnessErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if harnessErr != nil {
		tb.Fatal(harnessErr)
	}
	return builtBin
}

// binDir holds the mcpparity binary of this test run.
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcpparity-ports-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// bounded is a context that ends after d, or a minute before the test's
// own deadline (go test -timeout) when that comes first, so that a run too
// slow for the deadline fails with its output instead of a panic.
func bounded(t *testing.T, d time.Duration) (context.Context, context.CancelFunc) {
	if end, ok := t.Deadline(); ok {
		d = min(d, time.Until(end)-time.Minute)
	}
	return context.WithTimeout(context.Background(), d)
}

// mutateWorkers is the --workers of the mutate runs of these tests: one
// check per CPU. The default, four per CPU, is no faster for a port's
// catalogue (the TypeScript port's 96 mutants: 252 s with 8, 251 s with 2,
// on 2 cores) and only loads the machine for the packages tested beside.
func mutateWorkers() string { return strconv.Itoa(runtime.NumCPU()) }

// command runs the harness under ctx; at ctx's end it gets SIGTERM, on
// which it stops its targets and their servers, and SIGKILL 30 s later.
func command(ctx context.Context, bin string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	cmd.WaitDelay = 30 * time.Second
	return cmd
}

// ended says why a command of a test failed: its error, or the end of its
// context.
func ended(ctx context.Context, err error) string {
	if ctx.Err() != nil {
		return fmt.Sprintf("%v (%v: the whole run needs more time, as make test gives it: go test -timeout 20m)", err, ctx.Err())
	}
	return err.Error()
}

// TestTypeScriptPortPasses: check against the port exits 0 in each era,
// its accepted deviations listed with their reasons.
func TestTypeScriptPortPasses(t *testing.T) {
	needNode(t)
	bin := prepare(t)
	checkEachEra(t, bin, filepath.Join(typescript, "target.yaml"))
}

// checkEachEra runs check against a port's target file in each era: it
// must exit 0; its output is logged.
func checkEachEra(t *testing.T, bin, file string) {
	t.Helper()
	for _, era := range impl.Eras {
		ctx, cancel := bounded(t, 10*time.Minute)
		out, err := command(ctx, bin, "check", "--era", era, "--target-file", file).CombinedOutput()
		why := ""
		if err != nil {
			why = ended(ctx, err)
		}
		cancel()
		if err != nil {
			t.Fatalf("check --target-file %s in era %s: %s\n%s", file, era, why, out)
		}
		t.Logf("era %s:\n%s", era, out)
	}
}

// TestTypeScriptPortMutants: every mutant of the port's own catalogue
// (ports/typescript/mutants) is killed by check: the suite catches a
// divergence written in TypeScript, not only in Go.
func TestTypeScriptPortMutants(t *testing.T) {
	needNode(t)
	bin := prepare(t)
	ctx, cancel := bounded(t, 15*time.Minute)
	defer cancel()
	report := filepath.Join(t.TempDir(), "mutants.json")
	out, err := command(ctx, bin, "mutate-target", "--target-file", filepath.Join(typescript, "target.yaml"), "--workers", mutateWorkers(), "--json", report).CombinedOutput()
	if err != nil {
		t.Fatalf("mutate-target --target-file: %s\n%s", ended(ctx, err), out)
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

// BenchmarkCheck times the whole check against the reference (in the
// harness's process, and as a process of its own) and against each port,
// side by side in one run (docs/ports.md); a port whose toolchain or build
// is missing is skipped with the reason:
//
//	go test -run XXX -bench BenchmarkCheck -benchtime=3x -count=3 ./ports
func BenchmarkCheck(b *testing.B) {
	for _, tc := range []struct {
		name, flag, value string
		need              func(testing.TB) string
	}{
		{"ref", "--target", "ref", harness},
		// The reference as a process of its own: what any port pays for
		// running apart from the harness (a start per scenario, HTTP).
		{"ref-process", "--target", "cmd:" + filepath.Join(binDir, "mcpparity") + " serve-ref --addr {addr} --state {state} --workspace {workspace}", harness},
		{"typescript", "--target-file", filepath.Join(typescript, "target.yaml"), func(tb testing.TB) string {
			needNode(tb)
			return prepare(tb)
		}},
		{"rust", "--target-file", filepath.Join(rust, "target.yaml"), func(tb testing.TB) string {
			prepareRust(tb)
			return harness(tb)
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			bin := tc.need(b)
			for b.Loop() {
				ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
				out, err := exec.CommandContext(ctx, bin, "check", tc.flag, tc.value).CombinedOutput()
				cancel()
				if err != nil {
					b.Fatalf("check %s %s: %v\n%s", tc.flag, tc.value, err, out)
				}
			}
		})
	}
}
