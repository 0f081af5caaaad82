//go:build linux

package replay

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// replayCmd runs this test binary as `mcpparity replay args…`.
func replayCmd(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), envMain+"=1")
	return cmd
}

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
