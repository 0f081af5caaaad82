package cli

import (
	"context"
	"errors"
	"os/exec"
)

func init() {
	register("spawn", "run a command as a child and wait for it, as a launcher does (stdio scenarios)", runSpawn)
}

// runSpawn is the launcher of the "grandchild" stdio replays: it runs its
// arguments as its child, on its own stdin, stdout and stderr, and exits
// with the child's code, as npx runs node. Ending only this process leaves
// the child running: a target must end the whole process group (P2).
func runSpawn(_ context.Context, c *call) int {
	c.flags("[--] COMMAND [ARG...]", `
The exit code is the command's.`)
	argv, code, done := c.parseArgs(false)
	if done {
		return code
	}
	if len(argv) == 0 {
		return c.badUsage("no command given")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.stdin, c.stdout, c.stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() >= 0 {
			return ee.ExitCode()
		}
		return c.fail(1, err)
	}
	return 0
}
