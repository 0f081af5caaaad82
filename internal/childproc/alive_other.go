//go:build unix && !linux

package childproc

import "syscall"

// Alive reports whether a process of the group pgid exists.
func Alive(pgid int) bool { return syscall.Kill(-pgid, 0) == nil }
