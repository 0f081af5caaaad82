// Package childproc is how the harness and the processes it starts deal
// with each other: a command started as the leader of a process group of
// its own, whose whole group is ended (a server started through a
// launcher, npx or uvx, leaves its real server running when only the
// launcher is killed), and the files through which stdio replays report
// to the harness (reportdir.go).
package childproc

import "os/exec"

// Kill kills cmd's group and cmd itself, once started.
func Kill(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	killGroup(cmd.Process.Pid)
	_ = cmd.Process.Kill()
}
