package suite

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
)

// SpawnMain is the launcher of the "grandchild" stdio replays: it runs
// args as its child, on its own stdin, stdout and stderr, and exits with
// the child's code, as npx runs node. Ending only this process leaves the
// child running: a target must end the whole process group (P2).
func SpawnMain(args []string, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: mcpparity spawn COMMAND [ARG...]")
		return 2
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() >= 0 {
			return ee.ExitCode()
		}
		fmt.Fprintln(stderr, "mcpparity spawn:", err)
		return 1
	}
	return 0
}
