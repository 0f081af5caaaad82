//go:build !linux

package childproc

import "os/exec"

// DieWithParent is Linux only; elsewhere a killed harness may leave cmd
// running.
func DieWithParent(*exec.Cmd) {}
