//go:build unix

package childproc

import (
	"os/exec"
	"syscall"
)

// Own makes cmd, when started, the leader of a new process group.
func Own(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

// Signal sends sig to the group led by cmd (started with Own).
func Signal(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, sig)
	}
}

func killGroup(pgid int) { _ = syscall.Kill(-pgid, syscall.SIGKILL) }
