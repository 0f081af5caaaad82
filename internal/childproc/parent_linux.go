package childproc

import (
	"os/exec"
	"syscall"
)

// DieWithParent makes cmd, when started, get SIGKILL when this process
// dies, so that a killed harness leaves nothing behind.
func DieWithParent(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
}
