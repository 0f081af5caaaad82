// Package procgroup starts a command as the leader of a process group of
// its own and ends the whole group: a server started through a launcher
// (npx, uvx) leaves its real server running when only the launcher is
// killed.
package procgroup

import "os/exec"

// Kill kills cmd's group and cmd itself, once started.
func Kill(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	killGroup(cmd.Process.Pid)
	_ = cmd.Process.Kill()
}
