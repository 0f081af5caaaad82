package cli

import (
	"context"
	"errors"
	"io"
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
	fs := c.flags("[--exit-at-eof] [--] COMMAND [ARG...]", `
The exit code is the command's (0 with --exit-at-eof).`)
	atEOF := fs.Bool("exit-at-eof", false, "exit as soon as stdin ends, once the child's stdin is closed, without waiting for the child (which lives on in the process group)")
	argv, code, done := c.parseArgs(false)
	if done {
		return code
	}
	if len(argv) == 0 {
		return c.badUsage("no command given")
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stdout, cmd.Stderr = c.stdout, c.stderr
	if *atEOF {
		return c.leaveAtEOF(cmd)
	}
	cmd.Stdin = c.stdin
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() >= 0 {
			return ee.ExitCode()
		}
		return c.fail(1, err)
	}
	return 0
}

// leaveAtEOF starts cmd on a copy of stdin and returns once stdin ended
// and the child's input was closed: a leader that exits on its own while
// its child lingers (P2.2 ends the group all the same).
func (c *call) leaveAtEOF(cmd *exec.Cmd) int {
	in, err := cmd.StdinPipe()
	if err != nil {
		return c.fail(1, err)
	}
	if err := cmd.Start(); err != nil {
		return c.fail(1, err)
	}
	_, _ = io.Copy(in, c.stdin)
	in.Close()
	return 0
}
