//go:build linux

package replay

import (
	"os"

	"golang.org/x/sys/unix"
)

// endWithParent asks the kernel for SIGTERM when the parent dies
// (PR_SET_PDEATHSIG), so that a stdio replay never outlives the client
// that started it, even one killed before it could close stdin. The
// "parent" is the thread that forked this process: a parent thread that
// exits while its process lives sends the signal too (Go and Node fork
// from threads that live as long as their process). It reports false when
// the parent died already, before the request took effect.
func endWithParent() bool {
	ppid := os.Getppid()
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGTERM), 0, 0, 0); err != nil {
		return true // the end of stdin still ends the replay
	}
	return os.Getppid() == ppid
}
