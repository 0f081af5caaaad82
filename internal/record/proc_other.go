//go:build !unix

package record

import "os/exec"

func ownGroup(*exec.Cmd) {}

func endGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
