package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestCheckUnreachableURLFailsAtOnce: a url: target that refuses
// connections is said to be so once, naming the connection error, and no
// scenario runs.
func TestCheckUnreachableURLFailsAtOnce(t *testing.T) {
	var out, errs bytes.Buffer
	code := dispatch(context.Background(), []string{"check", "--target", "url:http://127.0.0.1:1"}, &out, &errs)
	if code != exitCannotRun {
		t.Fatalf("exit %d, want %d\n%s%s", code, exitCannotRun, out.String(), errs.String())
	}
	if n := strings.Count(errs.String(), "connection refused"); n != 1 || out.Len() != 0 {
		t.Fatalf("want one line naming the refused connection and no scenario, got stdout %q stderr %q", out.String(), errs.String())
	}
}

// TestCheckOutputPathsFirst: report folders are made before the run; a
// path that cannot be written fails before any scenario runs.
func TestCheckOutputPathsFirst(t *testing.T) {
	dir := t.TempDir()
	var out, errs bytes.Buffer
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	code := dispatch(context.Background(), []string{"check", "--run", "03-status", "--junit", filepath.Join(file, "x.xml")}, &out, &errs)
	if code != exitCannotRun || out.Len() != 0 || !strings.Contains(errs.String(), "--junit") {
		t.Fatalf("exit %d, stdout %q, stderr %q: want exit 2 before any scenario, naming --junit", code, out.String(), errs.String())
	}
	out.Reset()
	errs.Reset()
	junit := filepath.Join(dir, "new", "deeper", "junit.xml")
	report := filepath.Join(dir, "md", "summary.md")
	js := filepath.Join(dir, "json", "r.json")
	code = dispatch(context.Background(), []string{"check", "--run", "03-status", "--junit", junit, "--report", report, "--json", js}, &out, &errs)
	if code != exitParity {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errs.String())
	}
	for _, p := range []string{junit, report, js} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", p, err)
		}
	}
	// Each result is printed once: the progress line is the table.
	if n := strings.Count(out.String(), "03-status"); n != 1 {
		t.Errorf("03-status printed %d times:\n%s", n, out.String())
	}
	var rep struct {
		Results []struct{ Scenario, Verdict string }
	}
	data, _ := os.ReadFile(js)
	if err := json.Unmarshal(data, &rep); err != nil || len(rep.Results) != 1 || rep.Results[0].Verdict != "pass" {
		t.Errorf("JSON report: %v %s", err, data)
	}
}

// TestHelp: --help prints the usage on stdout with the shared header and
// exits 0; check's lists its exit codes.
func TestHelp(t *testing.T) {
	for _, sub := range []string{"check", "diff", "serve-ref"} {
		for _, flag := range []string{"--help", "-h", "-help"} {
			var out, errs bytes.Buffer
			code := dispatch(context.Background(), []string{sub, flag}, &out, &errs)
			if code != 0 || !strings.HasPrefix(out.String(), "usage: mcpparity "+sub+" ") || errs.Len() != 0 {
				t.Errorf("%s %s: exit %d, stdout %q, stderr %q", sub, flag, code, out.String(), errs.String())
			}
		}
	}
	var out bytes.Buffer
	dispatch(context.Background(), []string{"check", "--help"}, &out, &out)
	for _, want := range []string{"exit codes:", "0  parity", "1  divergence", "2  could not run"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check --help lacks %q", want)
		}
	}
	out.Reset()
	if code := dispatch(context.Background(), []string{"--help"}, &out, &out); code != 0 || !strings.Contains(out.String(), "check") {
		t.Errorf("mcpparity --help: exit %d\n%s", code, out.String())
	}
}

// TestKilledCheckLeavesNothing: after kill -9 of check, its cmd target and
// the servers that target started end with it.
func TestKilledCheckLeavesNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("runs check as a process")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	mark := "MCPPARITY_TEST_MARK=" + strconv.FormatInt(time.Now().UnixNano(), 36)
	cmd := exec.Command(exe, "check", "--run", "07-routes",
		"--target", "cmd:"+exe+" serve-ref --addr {addr} --state {state} --workspace {workspace}")
	cmd.Env = append(os.Environ(), mark)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// 07-routes starts stdio servers held in their handshake: wait for one.
	deadline := time.Now().Add(60 * time.Second)
	for len(marked(mark)) < 3 {
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			t.Fatalf("the check did not start its target and servers: %v", marked(mark))
		}
		time.Sleep(10 * time.Millisecond)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	deadline = time.Now().Add(20 * time.Second)
	for {
		left := marked(mark)
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			var names []string
			for _, pid := range left {
				cmdline, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
				names = append(names, fmt.Sprintf("%d %s", pid, bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("processes left behind by a killed check:\n%s", strings.Join(names, "\n"))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// marked lists the processes whose environment holds mark.
func marked(mark string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && bytes.Contains(env, []byte(mark)) {
			if stat, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && bytes.Contains(stat, []byte(") Z ")) {
				continue // a zombie has ended
			}
			out = append(out, pid)
		}
	}
	return out
}

// TestEraRefused: an era that is not one of the two, on the command line
// or in a target file (its own, a deviation's, or set through env), is
// refused before anything runs, naming what was given.
func TestEraRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ file, want string }{
		{"", `mcpparity check: --era: MCPPARITY_ERA="2026": want 2025-11-25 (the default) or 2026-07-28`},
		{"target: ref\nera: \"2026\"\n", `era.yaml: MCPPARITY_ERA="2026"`},
		{"target: ref\nenv:\n  MCPPARITY_ERA: 2026-07-28\n", "env sets MCPPARITY_ERA: the era is set by era (or check's --era)"},
		{"target: ref\ndeviations:\n  - {scenario: x, path: y, reason: z, era: \"1\"}\n", `deviations[0]: era: MCPPARITY_ERA="1"`},
	} {
		args := []string{"check", "--era", "2026"}
		if c.file != "" {
			f := filepath.Join(dir, "era.yaml")
			if err := os.WriteFile(f, []byte(c.file), 0o644); err != nil {
				t.Fatal(err)
			}
			args = []string{"check", "--target-file", f}
		}
		code, out, errs := run(args...)
		if code != exitCannotRun || !strings.Contains(errs, c.want) || strings.Contains(out, "passed") {
			t.Errorf("%q: exit %d, stdout %q, stderr %q, want %q", c.file, code, out, errs, c.want)
		}
	}
}
