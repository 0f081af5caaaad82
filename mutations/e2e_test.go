package mutations

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// A throwaway module: one function, one test, so that the runner's tests do
// not depend on impl's suite.
var tinyFiles = map[string]string{
	"go.mod": "module example.com/tiny\n\ngo 1.26\n",
	"tiny/tiny.go": `package tiny

// Add is tested.
func Add(a, b int) int {
	return a + b
}

// Greeting is not.
func Greeting() string {
	return "hello"
}
`,
	"tiny/tiny_test.go": `package tiny

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Fatalf("Add(2, 3) = %d", got)
	}
}

func TestOther(t *testing.T) {}

// TestSpawn leaves a process behind, in a group of its own: the runner
// must end it anyway.
func TestSpawn(t *testing.T) {
	dir := os.Getenv("TINY_PIDS")
	if dir == "" {
		return
	}
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/"+strconv.Itoa(cmd.Process.Pid), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
`,
}

func writeTiny(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	for name, src := range tinyFiles {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// treeState is every file's hash under root, and git status when root is a
// git work tree.
func treeState(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			b.WriteString("dir " + p + "\n")
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b.WriteString(p + " " + info.ModTime().String() + " ")
		fmt.Fprintf(&b, "%x\n", sha256.Sum256(raw))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err == nil {
		out, err := exec.Command("git", "-C", root, "status", "--porcelain", "--ignored").CombinedOutput()
		if err != nil {
			t.Fatalf("git status: %v\n%s", err, out)
		}
		b.WriteString("git status:\n" + string(out))
	}
	return b.String()
}

func gitInit(t *testing.T, root string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Log("no git: hashes only")
		return
	}
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "tiny"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

func tinyMutant(id, original, replacement string) Mutant {
	return Mutant{ID: id, Rule: "C1", File: "tiny/tiny.go", Original: original, Replacement: replacement, Why: id, Offset: -1}
}

// processesUnder lists the processes of this user whose executable lies
// under dir (Linux /proc; nil elsewhere).
func processesUnder(dir string) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && strings.HasPrefix(exe, dir) {
			out = append(out, e.Name()+" "+exe)
		}
	}
	return out
}

func emptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in the temporary folder: %s", e.Name())
	}
}

// checkSpawned checks that every process the tiny tests left behind
// (their pids are files in dir) is gone or a zombie.
func checkSpawned(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Error("TestSpawn never ran")
	}
	for _, e := range entries {
		raw, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone
		}
		s := string(raw)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 0 && f[0] != "Z" && f[0] != "X" {
			t.Errorf("process %s left behind: %s", e.Name(), s)
			_ = syscall.Kill(atoi(e.Name()), syscall.SIGKILL)
		}
	}
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	if _, err := exec.LookPath("sleep"); err == nil {
		pids := t.TempDir()
		t.Setenv("TINY_PIDS", pids)
		defer checkSpawned(t, pids)
	}
	for _, mode := range []string{ExecBinary, ExecGoTest} {
		t.Run(mode, func(t *testing.T) {
			root := writeTiny(t)
			gitInit(t, root)
			before := treeState(t, root)
			tmp := t.TempDir()
			var progress bytes.Buffer
			r, err := NewRunner(Config{Root: root, Workers: 2, Floor: 5 * time.Second, Multiplier: 2, Exec: mode, TempDir: tmp, Progress: &progress})
			if err != nil {
				t.Fatal(err)
			}
			survivor := tinyMutant("survived", `return "hello"`, `return "bye"`)
			survivor.Run = "^TestAdd$" // passes filtered, then the whole package must run
			ms := []Mutant{
				tinyMutant("killed", "return a + b", "return a - b"),
				survivor,
				tinyMutant("timeout", "return a + b\n", "for {\n\t}\n"),
				tinyMutant("error", "return a + b", `return a + "b"`),
			}
			if mode == ExecGoTest {
				ms = ms[:2] // the timeout and build-error paths are the same
			}
			rep, err := r.Run(context.Background(), ms)
			if err != nil {
				t.Fatal(err)
			}
			rep.Mode = ModeRules
			want := map[string]Verdict{"killed": VerdictKilled, "survived": VerdictSurvived, "timeout": VerdictTimeout, "error": VerdictError}
			if len(rep.Results) != len(ms) {
				t.Fatalf("%d results for %d mutants", len(rep.Results), len(ms))
			}
			for i, res := range rep.Results {
				if res.ID != ms[i].ID || res.Index != i {
					t.Errorf("result %d is %s (index %d)", i, res.ID, res.Index)
				}
				if res.Verdict != want[res.ID] {
					t.Errorf("%s: verdict %s, want %s (error %q)", res.ID, res.Verdict, want[res.ID], res.Error)
				}
			}
			if k := rep.Results[0]; k.KilledBy != "TestAdd" || k.Line != 5 || k.File != "tiny/tiny.go" {
				t.Errorf("killed: by %q at %s:%d", k.KilledBy, k.File, k.Line)
			}
			if s := rep.Results[1]; s.Run != "(all)" {
				t.Errorf("survivor's last run %q, want the whole package", s.Run)
			}
			if rep.ExitCode(0) != 1 {
				t.Errorf("exit %d with a survivor", rep.ExitCode(0))
			}
			if len(rep.Baselines) != 1 || rep.Baselines[0].Package != "./tiny" || rep.Baselines[0].RunTimeout < 5 {
				t.Errorf("baselines %+v", rep.Baselines)
			}
			if n := strings.Count(progress.String(), "\n"); n != len(ms)+1 || !strings.HasPrefix(progress.String(), "baseline ./tiny: build ") {
				t.Errorf("%d progress lines for %d mutants:\n%s", n, len(ms), progress.String())
			}
			if after := treeState(t, root); after != before {
				t.Errorf("the tree changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			emptyDir(t, tmp)
			if ps := processesUnder(tmp); len(ps) > 0 {
				t.Errorf("processes left: %v", ps)
			}
		})
	}
}

func TestEndToEndAllKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	root := writeTiny(t)
	r, err := NewRunner(Config{Root: root, Workers: 1, Floor: 5 * time.Second, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Run(context.Background(), []Mutant{tinyMutant("killed", "return a + b", "return a * b")})
	if err != nil {
		t.Fatal(err)
	}
	rep.Mode = ModeRules
	if rep.ExitCode(0) != 0 || rep.Summary.Killed != 1 {
		t.Errorf("exit %d, summary %+v", rep.ExitCode(0), rep.Summary)
	}
}

func TestStaleBeforeAnythingRuns(t *testing.T) {
	root := writeTiny(t)
	tmp := t.TempDir()
	r, err := NewRunner(Config{Root: root, TempDir: tmp, Go: "/nonexistent/go"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(context.Background(), []Mutant{
		tinyMutant("fine", "return a + b", "return a - b"),
		tinyMutant("gone", "return a / b", "return a - b"),
	})
	var se *StaleError
	if !errors.As(err, &se) || len(se.Stale) != 1 || se.Stale[0].ID != "gone" {
		t.Fatalf("err %v, want the stale mutant before any go command", err)
	}
	emptyDir(t, tmp)
}

func TestFailingBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	root := writeTiny(t)
	p := filepath.Join(root, "tiny", "tiny_test.go")
	src, _ := os.ReadFile(p)
	if err := os.WriteFile(p, bytes.Replace(src, []byte("!= 5"), []byte("!= 6"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(Config{Root: root, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(context.Background(), []Mutant{tinyMutant("killed", "return a + b", "return a - b")})
	var be *BaselineError
	if !errors.As(err, &be) || !strings.Contains(be.Output, "--- FAIL: TestAdd") {
		t.Fatalf("err %v, want a baseline error", err)
	}
}

// TestCancel interrupts a run while a mutant's test binary loops: the
// process is killed, the temporary files removed, the tree unchanged, and
// the partial report says so.
func TestCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	root := writeTiny(t)
	gitInit(t, root)
	before := treeState(t, root)
	tmp := t.TempDir()
	r, err := NewRunner(Config{Root: root, Workers: 2, Floor: 5 * time.Minute, TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	ms := []Mutant{
		tinyMutant("killed", "return a + b", "return a - b"),
		tinyMutant("loop", "return a + b\n", "for {\n\t}\n"),
		tinyMutant("loop2", "return \"hello\"\n", "for {\n\t}\n"),
	}
	ms[2].Run = "^TestAdd$" // passes filtered, loops in the whole run
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		// Cancel once a mutant's test binary (pkg.test) is running.
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			for _, p := range processesUnder(tmp) {
				if strings.HasSuffix(p, "pkg.test") {
					time.Sleep(300 * time.Millisecond)
					cancel()
					return
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		cancel()
	})
	start := time.Now()
	rep, err := r.Run(ctx, ms)
	wg.Wait()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if rep == nil || !rep.Interrupted {
		t.Fatalf("report %+v, want an interrupted one", rep)
	}
	if time.Since(start) > 90*time.Second {
		t.Errorf("cancellation took %v", time.Since(start))
	}
	for _, res := range rep.Results {
		if res.ID != "killed" {
			t.Errorf("%s got verdict %s after cancellation", res.ID, res.Verdict)
		}
	}
	if rep.Pending < 2 || rep.ExitCode(0) != 130 {
		t.Errorf("pending %d, exit %d", rep.Pending, rep.ExitCode(0))
	}
	var table bytes.Buffer
	rep.Mode = ModeRules
	if err := rep.WriteTable(&table); err != nil || !strings.Contains(table.String(), "INTERRUPTED") {
		t.Errorf("partial table:\n%s", table.String())
	}
	if ps := processesUnder(tmp); len(ps) > 0 {
		t.Errorf("processes left: %v", ps)
	}
	emptyDir(t, tmp)
	if after := treeState(t, root); after != before {
		t.Errorf("the tree changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}
