//go:build !unix

package childproc

import (
	"os/exec"
	"syscall"
)

// Own does nothing where there are no process groups.
func Own(*exec.Cmd) {}

// Signal sends sig to cmd alone where there are no process groups.
func Signal(cmd *exec.Cmd, sig syscall.Signal) {
	if cmd.Process != nil {
		_ = cmd.Process.Signal(sig)
	}
}

func killGroup(int) {}
