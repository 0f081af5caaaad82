package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpparity/mcpparity/internal/scripted"
)

func init() {
	register("record-suite", "record a server into a suite folder through the reference pool (--drift: compare its fixtures with fresh ones)", runRecordSuite)
}

const recordSuiteNotes = `
record-suite drives the reference pool against a server into a suite
folder: with --upstream or --upstream-cmd and --name, it records
DIR/fixtures/NAME/, writes its call script scenarios/calls-NAME.json (add
calls there, then record again) and a starting scenario that lists and calls
the tools; without them, it records again each fixture of the suite (or
NAME) from its call script; --drift compares those with the stored fixtures
instead. Then: mcpparity golden --suite DIR.
` + secretsNote + `
In a suite, its call script's secretEnv and secretPatterns are secrets too.`

// runRecordSuite is `mcpparity record-suite --suite DIR …`.
func runRecordSuite(ctx context.Context, c *call) int {
	fs := c.flags("--suite DIR [--name NAME] [--upstream URL | --upstream-cmd CMD] [--drift] [--secret S]... [--secret-env NAME]... [--secret-pattern RE]...", recordSuiteNotes)
	dir := fs.String("suite", "", "the suite `folder` to record into (fixtures/NAME/, scenarios/calls-NAME.json, a starting scenario); required")
	name := fs.String("name", "", "the fixture's `name` (fixtures/NAME/, its server's name); without --upstream or --upstream-cmd: only it")
	drift := fs.Bool("drift", false, "record into a temporary folder and fail with a diff when the suite's stored fixtures differ")
	sf := declareServerFlags(fs)
	if code, done := c.parse(); done {
		return code
	}
	if *dir == "" {
		return c.badUsage("--suite is required")
	}
	return c.recordSuite(ctx, *dir, *name, sf, *drift)
}

// recordSuite records into the suite dir: a new fixture (--upstream or
// --upstream-cmd, with --name), the suite's fixtures made again from
// their call scripts, or, with drift, those compared with fresh ones.
func (c *call) recordSuite(ctx context.Context, dir, name string, sf *serverFlags, drift bool) int {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return c.fail(2, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return c.fail(2, err)
	}
	secrets, err := sf.suiteSecrets()
	if err != nil {
		return c.fail(2, err)
	}
	upstream, command := *sf.upstream, *sf.upstreamCmd
	if upstream != "" && command != "" {
		return c.badUsage("give one of --upstream URL and --upstream-cmd CMD")
	}
	if name != "" {
		if err := scripted.ValidateName(name); err != nil {
			return c.badUsage("--name: %v", err)
		}
	}
	if upstream != "" || command != "" {
		if drift || name == "" {
			return c.badUsage("--upstream and --upstream-cmd record a new fixture: they need --name and do not go with --drift")
		}
		return c.recordNew(ctx, abs, name, sf, secrets, exe)
	}
	names := []string{name}
	if name == "" {
		if names, err = scripted.SuiteNames(abs); err != nil || len(names) == 0 {
			return c.failf(2, "%s holds no fixture (scenarios/calls-NAME.json): record one with --name NAME --upstream URL or --upstream-cmd CMD", abs)
		}
	}
	if drift {
		return c.suiteDrift(ctx, dir, abs, names, secrets, exe)
	}
	return c.recordAgain(ctx, abs, names, sf, secrets, exe)
}

// recordNew records the server of --upstream or --upstream-cmd into the
// suite as name, its call script kept when it has one.
func (c *call) recordNew(ctx context.Context, abs, name string, sf *serverFlags, secrets scripted.Secrets, exe string) int {
	script, err := scripted.ReadScript(abs, name)
	if errors.Is(err, fs.ErrNotExist) {
		script, err = &scripted.SuiteScript{}, nil
	}
	if err != nil {
		return c.fail(2, err)
	}
	script.Upstream, script.UpstreamCmd = *sf.upstream, *sf.upstreamCmd
	return c.recordInto(ctx, []scripted.SuiteRecording{c.suiteRecording(abs, name, *script, sf, secrets)}, exe)
}

// recordAgain makes the suite's fixtures of names again from their call
// scripts.
func (c *call) recordAgain(ctx context.Context, abs string, names []string, sf *serverFlags, secrets scripted.Secrets, exe string) int {
	var recs []scripted.SuiteRecording
	for _, n := range names {
		script, err := scripted.ReadScript(abs, n)
		if err != nil {
			return c.failf(2, "%v (a new fixture needs --upstream URL or --upstream-cmd CMD)", err)
		}
		recs = append(recs, c.suiteRecording(abs, n, *script, sf, secrets))
	}
	return c.recordInto(ctx, recs, exe)
}

// suiteRecording is a recording of the suite, its SDK as given by the
// flags, else as its script keeps it.
func (c *call) suiteRecording(dir, name string, script scripted.SuiteScript, sf *serverFlags, secrets scripted.Secrets) scripted.SuiteRecording {
	if *sf.sdkModule != "" || *sf.sdkVersion != "" {
		script.SDKModule, script.SDKVersion = *sf.sdkModule, *sf.sdkVersion
	}
	return scripted.SuiteRecording{Dir: dir, Name: name, Script: script, Secrets: secrets}
}

// recordInto makes each recording and says what it wrote.
func (c *call) recordInto(ctx context.Context, recs []scripted.SuiteRecording, exe string) int {
	stdout := c.stdout
	for _, r := range recs {
		res, err := scripted.Into(ctx, r, []string{exe})
		if err != nil {
			return c.failf(1, "%s: %v", r.Name, err)
		}
		m := res.Manifest
		fmt.Fprintf(stdout, "recorded %s (server %s, %d tool(s), %d call(s))\n", res.Fixture, m.Server, m.ToolCount, res.Calls)
		fmt.Fprintf(stdout, "  call script %s\n", res.Script)
		fmt.Fprintf(stdout, "  secrets: %d value(s) replaced\n", res.SecretsReplaced)
		state := map[string]string{"wrote": "written", "unchanged": "unchanged",
			"kept": "kept: edited since record wrote it (remove it to have it written again)"}[res.ScenarioState]
		fmt.Fprintf(stdout, "  scenario %s: %s\n", res.Scenario, state)
		if res.Calls == 0 {
			fmt.Fprintf(stdout, "  no calls: add them to %s (\"calls\": [{\"tool\": \"NAME\", \"args\": {…}}]) and record again\n", res.Script)
		}
	}
	fmt.Fprintf(stdout, "next: mcpparity golden --suite %s\n", recs[0].Dir)
	return 0
}

// suiteDrift is record-suite --drift: fresh fixtures compared with the
// stored fixtures, each named below the folder as given.
func (c *call) suiteDrift(ctx context.Context, given, dir string, names []string, secrets scripted.Secrets, exe string) int {
	checked, err := scripted.DriftSuite(ctx, dir, names, secrets, []string{exe})
	if err != nil {
		return c.fail(2, err)
	}
	for i, ch := range checked {
		if ch.Fixture != "" {
			checked[i].Name = relativeTo(ch.Fixture, dir, given)
		}
	}
	return writeDrift(c.stdout, checked, "record-suite --drift", "mcpparity record-suite --suite "+given)
}
