package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
)

// TestObserveReplaysWaitsForStdioProcesses: a stdio server still running
// when the replays are observed (a target that exits before its children)
// is waited for, so its counts are its own, not zeros; one that does not
// end in time is a failure of its own.
func TestObserveReplaysWaitsForStdioProcesses(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	fx, err := fixtures.Embedded("sdk/stdio.json") // its first line is the initialize
	if err != nil {
		t.Fatal(err)
	}
	s := &scenario.Scenario{Name: "x", Servers: map[string]scenario.ServerSpec{"late": {Replay: "sdk/stdio.json", Stdio: true}}}
	r, err := startServers(s, []string{exe}, dir, dir, target.Waits{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	start := func() (io.WriteCloser, *exec.Cmd) {
		argv := r.cmds["late"]
		cmd := exec.Command(argv[0], argv[1:]...)
		in, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		var line bytes.Buffer
		if err := json.Compact(&line, fx.Stdio[0].Message); err != nil {
			t.Fatal(err)
		}
		if _, err := in.Write(append(line.Bytes(), '\n')); err != nil {
			t.Fatal(err)
		}
		return in, cmd
	}
	in, _ := start()
	if err := r.waitReceived(context.Background(), map[string]map[string]int{"late": {"initialize": 1}}); err != nil {
		t.Fatal(err)
	}
	// The server ends a moment after the observation starts.
	go func() { time.Sleep(100 * time.Millisecond); in.Close() }()
	obs, failures, err := r.observeReplays(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if got := obs["late"].Sessions; got != 1 || len(failures) > 0 {
		t.Fatalf("sessions %d, failures %v; want the late server's one session and no failure", got, failures)
	}

	// A server that outlives the bound: a failure, and it is ended.
	r.waits.ReplaySettle = 50 * time.Millisecond
	_, cmd := start()
	if err := r.waitStarted(context.Background(), map[string]int{"late": 2}); err != nil {
		t.Fatal(err)
	}
	_, failures, err = r.observeReplays(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(failures) != 1 || !strings.Contains(failures[0], "outlived the target") {
		t.Fatalf("failures %v, want one naming the server that outlived the target", failures)
	}
	if err := cmd.Wait(); err == nil {
		t.Fatal("the server that outlived the target was not ended")
	}
}
