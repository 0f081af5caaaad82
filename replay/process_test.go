//go:build linux

package replay

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func stdioFixturePath(t *testing.T) string {
	abs, err := filepath.Abs("testdata/stdio.json")
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// waitExit waits for a started command, with a deadline.
func waitExit(t *testing.T, cmd *exec.Cmd, d time.Duration) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return err
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the replay did not end within %v", d)
		return nil
	}
}

// TestStdioReportDespiteClosedStderr: a client that closes the replay's
// stderr before its stdin (mcp-go does) does not cost the report, and the
// replay is not killed by SIGPIPE.
func TestStdioReportDespiteClosedStderr(t *testing.T) {
	for i := 0; i < 3; i++ {
		report := filepath.Join(t.TempDir(), "report.json")
		cmd := replayCmd(t, "--stdio", "--fixture", stdioFixturePath(t), "--report", report)
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stdout = io.Discard
		errR, errW, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = errW
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		errW.Close()
		errR.Close() // the client stops reading stderr first
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope"}}`+"\n")
		stdin.Close()
		err = waitExit(t, cmd, 20*time.Second)
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			t.Fatalf("run %d: the replay died of %v", i, ws.Signal())
		}
		if code := cmd.ProcessState.ExitCode(); code != 1 { // the unmatched call is a problem
			t.Errorf("run %d: exit %d (%v), want 1", i, code, err)
		}
		rep := readReport(t, report)
		if len(rep.Unmatched) != 1 {
			t.Errorf("run %d: report %+v", i, rep)
		}
	}
}

// TestStdioEndsAtEOFDuringDelay: the end of stdin ends the replay at once,
// even while a delay fault holds an answer.
func TestStdioEndsAtEOFDuringDelay(t *testing.T) {
	report := filepath.Join(t.TempDir(), "report.json")
	cmd := replayCmd(t, "--stdio", "--fixture", stdioFixturePath(t), "--fault", "delay:1h", "--report", report)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = io.Discard, io.Discard
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`+"\n")
	time.Sleep(100 * time.Millisecond) // the call is held
	stdin.Close()
	start := time.Now()
	waitExit(t, cmd, 10*time.Second)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("ended %v after stdin closed", d)
	}
	if _, err := os.Stat(report); err != nil {
		t.Errorf("no report: %v", err)
	}
}

// alive reports whether pid is a live process (not gone, not a zombie).
func alive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state ...: the state follows the last ')'.
	s := string(data)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}

// replayPid waits for the pid file of the one replay that reports to dir.
func replayPid(t *testing.T, dir string) int {
	var pid int
	waitFor(t, "the replay's pid file", func() bool {
		files, _ := filepath.Glob(filepath.Join(dir, "*.pid"))
		if len(files) == 1 {
			pid, _ = strconv.Atoi(strings.TrimSuffix(filepath.Base(files[0]), ".pid"))
		}
		return pid > 0
	})
	return pid
}

// TestStdioEndsWithItsParent: a replay whose parent is killed ends too,
// though its stdin is still open (the test holds it) and a delay fault
// holds an answer. The parent is `mcpparity spawn`, a launcher.
func TestStdioEndsWithItsParent(t *testing.T) {
	// The orphaned replay becomes the test's child, which reaps it.
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	reports := t.TempDir()
	replay := replayCmd(t, "--stdio", "--fixture", stdioFixturePath(t), "--fault", "delay:1h", "--report-dir", reports)
	parent := exec.Command(replay.Path, append([]string{"spawn", "--"}, replay.Args...)...)
	// A pipe of the test's own (exec would close a StdinPipe when the
	// parent is waited for).
	inR, stdin, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	// Files, not writers: Wait must not wait for the replay's end, which
	// holds them.
	parent.Stdin, parent.Stderr = inR, os.Stderr
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	inR.Close()
	pid := replayPid(t, reports)
	reaped := false
	defer func() {
		if !reaped {
			syscall.Kill(pid, syscall.SIGKILL)
			var ws syscall.WaitStatus
			syscall.Wait4(pid, &ws, 0, nil)
		}
	}()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`+"\n")
	time.Sleep(200 * time.Millisecond) // the replay serves, the call is held
	if !alive(pid) {
		t.Fatal("the replay ended before its parent")
	}
	parent.Process.Kill()
	parent.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for alive(pid) {
		if time.Now().After(deadline) {
			t.Fatal("the replay outlived its parent by 10 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, 0, nil); err == nil {
		reaped = true
	}
	if ws.Signaled() {
		t.Errorf("the replay died of %v, want an exit after its report", ws.Signal())
	}
	if _, err := os.Stat(filepath.Join(reports, strconv.Itoa(pid)+".json")); err != nil {
		t.Errorf("no report: %v", err)
	}
}
