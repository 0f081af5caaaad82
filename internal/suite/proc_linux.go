package suite

import "syscall"

// dieWithHarness makes a target started as a command get SIGKILL when the
// harness dies, so that a killed check leaves no target behind.
func dieWithHarness(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGKILL }
