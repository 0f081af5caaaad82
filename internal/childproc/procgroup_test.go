//go:build linux

package childproc

import (
	"os/exec"
	"testing"
	"time"
)

// TestKillEndsTheGroup: a shell that started a child in the background is
// killed with its child, as a launcher with its real server.
func TestKillEndsTheGroup(t *testing.T) {
	cmd := exec.Command("sh", "-c", "sleep 30 & wait")
	Own(cmd)
	DieWithParent(cmd)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	if !Alive(pgid) {
		t.Fatal("the group is not alive once started")
	}
	Kill(cmd)
	_ = cmd.Wait()
	deadline := time.Now().Add(10 * time.Second)
	for Alive(pgid) {
		if time.Now().After(deadline) {
			t.Fatal("a process of the group outlived Kill")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
