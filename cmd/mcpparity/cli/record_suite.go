package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpparity/mcpparity/internal/record"
)

// recordSuite is `mcpparity record --suite DIR …`: a new recording into
// the suite (--upstream or --upstream-cmd, with --name), the suite's
// recordings made again from their call scripts, or, with check, compared
// with fresh ones.
func (c *call) recordSuite(ctx context.Context, dir string, pf *proxyFlags, check bool) int {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return c.fail(2, err)
	}
	exe, err := os.Executable()
	if err != nil {
		return c.fail(2, err)
	}
	secrets, err := pf.suiteSecrets()
	if err != nil {
		return c.fail(2, err)
	}
	upstream, command, name := *pf.upstream, *pf.upstreamCmd, *pf.name
	if upstream != "" && command != "" {
		return c.badUsage("give one of --upstream URL and --upstream-cmd CMD")
	}
	if name != "" {
		if err := record.CheckName(name); err != nil {
			return c.badUsage("--name: %v", err)
		}
	}
	if upstream != "" || command != "" {
		if check || name == "" {
			return c.badUsage("--upstream and --upstream-cmd record a new recording: they need --name and do not go with --check")
		}
		script, err := record.ReadScript(abs, name)
		if errors.Is(err, fs.ErrNotExist) {
			script, err = &record.SuiteScript{}, nil
		}
		if err != nil {
			return c.fail(2, err)
		}
		script.Upstream, script.UpstreamCmd = upstream, command
		return c.recordInto(ctx, []record.SuiteRecording{c.suiteRecording(abs, name, *script, pf, secrets)}, exe)
	}
	names := []string{name}
	if name == "" {
		if names, err = record.SuiteNames(abs); err != nil || len(names) == 0 {
			return c.failf(2, "%s holds no recording (scenarios/calls-NAME.json): record one with --name NAME --upstream URL or --upstream-cmd CMD", abs)
		}
	}
	if check {
		return c.checkSuiteDrift(ctx, dir, abs, names, secrets, exe)
	}
	var recs []record.SuiteRecording
	for _, n := range names {
		script, err := record.ReadScript(abs, n)
		if err != nil {
			return c.failf(2, "%v (a new recording needs --upstream URL or --upstream-cmd CMD)", err)
		}
		recs = append(recs, c.suiteRecording(abs, n, *script, pf, secrets))
	}
	return c.recordInto(ctx, recs, exe)
}

// suiteRecording is a recording of the suite, its SDK as given by the
// flags, else as its script keeps it.
func (c *call) suiteRecording(dir, name string, script record.SuiteScript, pf *proxyFlags, secrets record.Secrets) record.SuiteRecording {
	if *pf.sdkModule != "" || *pf.sdkVersion != "" {
		script.SDKModule, script.SDKVersion = *pf.sdkModule, *pf.sdkVersion
	}
	return record.SuiteRecording{Dir: dir, Name: name, Script: script, Secrets: secrets}
}

// recordInto makes each recording and says what it wrote.
func (c *call) recordInto(ctx context.Context, recs []record.SuiteRecording, exe string) int {
	stdout := c.stdout
	for _, r := range recs {
		res, err := record.Into(ctx, r, []string{exe})
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

// checkSuiteDrift is record --check --suite: fresh recordings compared
// with the stored fixtures, each named below the folder as given.
func (c *call) checkSuiteDrift(ctx context.Context, given, dir string, names []string, secrets record.Secrets, exe string) int {
	checked, err := record.CheckSuite(ctx, dir, names, secrets, []string{exe})
	if err != nil {
		return c.fail(2, err)
	}
	for i, ch := range checked {
		if ch.Fixture != "" {
			checked[i].Name = relativeTo(ch.Fixture, dir, given)
		}
	}
	return writeDrift(c.stdout, checked, "mcpparity record --suite "+given)
}
