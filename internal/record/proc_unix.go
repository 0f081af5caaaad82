//go:build unix

package record

import (
	"os/exec"
	"syscall"
)

// ownGroup starts a command in a process group of its own, so that
// endGroup also ends its children (npx leaves node running otherwise).
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

func endGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
