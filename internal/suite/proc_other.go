//go:build !linux

package suite

import "syscall"

// dieWithHarness is Linux only; elsewhere a killed harness may leave its
// target running.
func dieWithHarness(*syscall.SysProcAttr) {}

// groupAlive reports whether a process of the group pgid exists.
func groupAlive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
