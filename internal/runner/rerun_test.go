package runner_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
	"github.com/mcpparity/mcpparity/internal/verdict"
)

// TestRerunAlone: a timed scenario (17-launchers) that fails among the
// others is run once more, alone (with FailFast at once), and its verdict
// is that run's; the report says it ran twice. The target is the
// reference as a process of its own, started by a script that unscales its
// first start (20 s deadlines instead of 300 ms: non-launchers connect):
// the failure a loaded machine can cause, made on purpose.
func TestRerunAlone(t *testing.T) {
	launchers := scenarioNamed(t, "17-launchers")
	cases := []struct {
		name       string
		everyStart bool // every start is unscaled (a true divergence)
		noRerun    bool
		failFast   bool // the rerun starts at once
		untimed    bool // the scenario's time scale removed
		want       verdict.Verdict
		starts     int
		rerun      string
	}{
		{name: "first start only", want: verdict.Pass, starts: 2, rerun: "failed among the others, at [0].body.servers[0].connected; alone: pass"},
		{name: "every start", everyStart: true, want: verdict.Fail, starts: 2, rerun: "failed among the others, at [0].body.servers[0].connected; alone: fail"},
		{name: "failfast", failFast: true, want: verdict.Pass, starts: 2, rerun: "failed among the others, at [0].body.servers[0].connected; again at once: pass"},
		{name: "no rerun", noRerun: true, want: verdict.Fail, starts: 1},
		{name: "untimed", untimed: true, want: verdict.Fail, starts: 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := launchers
			if c.untimed {
				copied := *launchers
				copied.Env = map[string]string{}
				for k, v := range launchers.Env {
					if k != "MCPPARITY_TIME_SCALE" {
						copied.Env[k] = v
					}
				}
				s = &copied
			}
			target, starts := unscaledStarts(t, c.everyStart)
			cfg := testConfig(t, target)
			cfg.NoRerun, cfg.FailFast = c.noRerun, c.failFast
			res := runner.Check(context.Background(), cfg, []*scenario.Scenario{s}, scenario.EmbeddedGolden, nil, nil)[0]
			if res.Verdict != c.want || res.Rerun != c.rerun {
				t.Errorf("verdict %s, rerun %q; want %s, %q\n%s %+v", res.Verdict, res.Rerun, c.want, c.rerun, res.Err, res.Diffs)
			}
			if c.rerun != "" {
				reportsSay(t, res, c.rerun)
			}
			if n := starts(); n != c.starts {
				t.Errorf("the target started %d times, want %d", n, c.starts)
			}
		})
	}
}

// reportsSay: the Markdown and JUnit reports of res say it ran twice.
func reportsSay(t *testing.T, res report.Result, rerun string) {
	t.Helper()
	var md, junit strings.Builder
	report.WriteMarkdown(&md, "t", []report.Result{res})
	if err := report.WriteJUnit(&junit, "t", []report.Result{res}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "Ran twice: "+rerun) || !strings.Contains(junit.String(), "ran twice: "+rerun) {
		t.Errorf("the reports do not say it ran twice:\n%s\n%s", md.String(), junit.String())
	}
}

// unscaledStarts is the reference started as a command by a script that
// sets MCPPARITY_TIME_SCALE=1 on its first start (on every start with
// every), and a count of its starts.
func unscaledStarts(t *testing.T, every bool) (target.Target, func() int) {
	t.Helper()
	dir := t.TempDir()
	exe := harnessCommand(t)[0]
	unscale := `if mkdir "` + dir + `/unscaled" 2>/dev/null; then export MCPPARITY_TIME_SCALE=1; fi`
	if every {
		unscale = `export MCPPARITY_TIME_SCALE=1`
	}
	script := "#!/bin/sh\nmktemp \"" + dir + "/start.XXXXXX\" >/dev/null\n" + unscale + "\nexec '" + exe + "' serve-ref --addr \"$1\" --state \"$2\" --workspace \"$3\"\n"
	path := filepath.Join(dir, "target.sh")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	target, err := target.ParseTarget("cmd:" + path + " {addr} {state} {workspace}")
	if err != nil {
		t.Fatal(err)
	}
	return target, func() int {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range entries {
			if strings.HasPrefix(e.Name(), "start.") {
				n++
			}
		}
		return n
	}
}

func scenarioNamed(t *testing.T, name string) *scenario.Scenario {
	t.Helper()
	scs, err := scenario.EmbeddedScenarios()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range scs {
		if s.Name == name {
			return s
		}
	}
	t.Fatalf("no scenario %s", name)
	return nil
}
