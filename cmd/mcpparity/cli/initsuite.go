package cli

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/scripted"
)

func init() {
	register("init-suite", "write an example suite folder that passes against the reference", runInitSuite)
}

// exampleName is the example suite's recording: server-everything.
const exampleName = "everything"

const initSuiteNotes = `
The suite holds one recording, fixtures/everything/stdio.json: the
TypeScript server-everything recorded with npx (` + scripted.EverythingCommand + `)
when npx is on PATH, else (or with --copy, or when that recording fails) a
copy of the embedded everything/stdio.json; its call script
scenarios/calls-everything.json, the scenario 01-everything.json that lists
and calls its tools, and that scenario's golden file, written by the
reference. Then: mcpparity check --suite DIR [--target-file F].
exit codes: 0 written, 1 the reference does not pass its own scenario, 2
bad arguments, a folder that is not empty, a harness error`

func runInitSuite(ctx context.Context, c *call) int {
	fs := c.flags("[--copy] DIR", initSuiteNotes)
	copyOnly := fs.Bool("copy", false, "copy the embedded fixture instead of recording server-everything with npx")
	args, code, done := c.parseArgs(true)
	if done {
		return code
	}
	if len(args) != 1 {
		return c.badUsage("want one folder, got %d argument(s)", len(args))
	}
	dir, err := filepath.Abs(args[0])
	if err != nil {
		return c.fail(2, err)
	}
	if entries, err := os.ReadDir(dir); err == nil && len(entries) > 0 {
		return c.failf(2, "%s is not empty: init-suite writes a new suite", dir)
	}
	calls, err := scripted.Script(scripted.EverythingSet)
	if err != nil {
		return c.fail(2, err)
	}
	r := scripted.SuiteRecording{Dir: dir, Name: exampleName, Script: scripted.SuiteScript{UpstreamCmd: scripted.EverythingCommand, Calls: calls,
		SDKModule: scripted.EverythingModule, SDKVersion: scripted.EverythingVersion}}
	res, err := c.exampleRecording(ctx, r, *copyOnly)
	if err != nil {
		return c.fail(2, err)
	}
	fmt.Fprintf(c.stdout, "wrote %s (server %s, %d tool(s)), %s and %s\n", res.Fixture, res.Manifest.Server, res.Manifest.ToolCount, res.Script, res.Scenario)
	return c.exampleGolden(ctx, dir)
}

// exampleRecording records server-everything into the suite with npx, or
// copies the embedded fixture (without npx, with --copy, or when the
// recording fails: said on stderr).
func (c *call) exampleRecording(ctx context.Context, r scripted.SuiteRecording, copyOnly bool) (*scripted.Recorded, error) {
	if !copyOnly {
		if _, err := exec.LookPath("npx"); err != nil {
			c.logf("npx is not on PATH: copying the embedded fixture %s", scripted.EverythingSet.File)
		} else {
			exe, err := os.Executable()
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(c.stdout, "recording %s (the first start downloads it)\n", scripted.EverythingCommand)
			res, err := scripted.Into(ctx, r, []string{exe})
			if err == nil || ctx.Err() != nil {
				return res, err
			}
			c.logf("recording with npx failed (%v): copying the embedded fixture %s", err, scripted.EverythingSet.File)
		}
	}
	data, err := fixtures.Recordings.ReadFile("recordings/" + scripted.EverythingSet.File)
	if err != nil {
		return nil, err
	}
	return scripted.Place(r, data)
}

// exampleGolden writes the example suite's golden file.
func (c *call) exampleGolden(ctx context.Context, dir string) int {
	arg := dir
	if _, err := scenario.ParseSuite(dir); err != nil {
		arg = "example=" + dir // a folder whose name is not a suite name
	}
	cfg, scs, code := c.goldenSetup(&suiteFlags{dirs: listFlag{arg}}, nil, "")
	if code != 0 {
		return code
	}
	err := runner.MakeGolden(ctx, *cfg, scs, func(ch runner.GoldenChange) {
		if ch.Err != nil {
			c.logf("%s: %v", ch.Scenario, ch.Err)
			code = 1
			return
		}
		fmt.Fprintf(c.stdout, "wrote %s\n", ch.File)
	})
	if err != nil {
		return c.fail(2, err)
	}
	if code == 0 {
		fmt.Fprintf(c.stdout, "next: mcpparity check --suite %s [--target-file F]\n", dir)
	}
	return code
}
