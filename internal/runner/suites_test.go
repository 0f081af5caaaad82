package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
)

// statusScenario is a scenario that replays fixture (over stdio when
// stdio) and observes the status.
func statusScenario(fixture string, stdio bool) string {
	seed := `{"srv": {"url": "{url:srv}"}}`
	if stdio {
		seed = `{"srv": {"command": "{cmd:srv}", "args": ["{args:srv}"]}}`
	}
	return `{"description": "status", "servers": {"srv": {"replay": "` + fixture + `", "stdio": ` + map[bool]string{true: "true", false: "false"}[stdio] + `}},
	"seed": ` + seed + `, "steps": [{"name": "status", "kind": "request", "method": "GET", "path": "/api/mcp"}]}`
}

// writeSuite makes a suite folder below root: files maps paths inside it
// to their content.
func writeSuite(t *testing.T, root, name string, files map[string]string) scenario.Suite {
	t.Helper()
	dir := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	for p, content := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	su, err := scenario.ParseSuite(dir)
	if err != nil {
		t.Fatal(err)
	}
	return su
}

func embeddedFixture(t *testing.T, name string) string {
	t.Helper()
	data, err := fixtures.Recordings.ReadFile("recordings/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func TestParseSuite(t *testing.T) {
	wd, _ := os.Getwd()
	for arg, want := range map[string]scenario.Suite{
		"parity":          {Name: "parity", Dir: filepath.Join(wd, "parity")},
		"./a/parity/":     {Name: "parity", Dir: filepath.Join(wd, "a", "parity")},
		"myteam=./parity": {Name: "myteam", Dir: filepath.Join(wd, "parity")},
		"n=./x=y":         {Name: "n", Dir: filepath.Join(wd, "x=y")},
	} {
		got, err := scenario.ParseSuite(arg)
		if err != nil || got != want {
			t.Errorf("ParseSuite(%q) = %+v, %v; want %+v", arg, got, err, want)
		}
	}
	for _, bad := range []string{"", "name=", "./my suite", "./x=y"} {
		if _, err := scenario.ParseSuite(bad); err == nil {
			t.Errorf("ParseSuite(%q) accepted", bad)
		}
	}
}

// TestLoadSuiteErrors: each fault of a suite is an error naming it, before
// anything runs.
func TestLoadSuiteErrors(t *testing.T) {
	root := t.TempDir()
	ok := statusScenario("sdk/sse.json", false)
	a := writeSuite(t, filepath.Join(root, "a"), "parity", map[string]string{"scenarios/30-x.json": ok})
	b := writeSuite(t, filepath.Join(root, "b"), "parity", map[string]string{"scenarios/30-x.json": ok, "scenarios/31-y.json": ok})
	missing := writeSuite(t, root, "missing", map[string]string{"scenarios/01-m.json": statusScenario("files/stdio.json", true)})
	transport := writeSuite(t, root, "transport", map[string]string{"scenarios/01-t.json": statusScenario("sdk/stdio.json", false)})
	for _, c := range []struct {
		name   string
		suites []scenario.Suite
		want   []string
	}{
		{"two scenarios of one name", []scenario.Suite{a, b}, []string{`two scenarios are named "parity:30-x"`, filepath.Join(a.Dir, "scenarios", "30-x.json"), filepath.Join(b.Dir, "scenarios", "30-x.json"), "--suite NAME=DIR"}},
		{"one folder twice", []scenario.Suite{a, a}, []string{`two scenarios are named "parity:30-x"`}},
		{"a fixture not found", []scenario.Suite{missing}, []string{filepath.Join(missing.Dir, "scenarios", "01-m.json"), `server "srv"`, `fixture "files/stdio.json": not found in ` + filepath.Join(missing.Dir, "fixtures") + " nor among the embedded fixtures", "sdk/sse.json"}},
		{"a fixture of another transport", []scenario.Suite{transport}, []string{"fixture sdk/stdio.json is a stdio fixture, the scenario serves it over http"}},
		{"no scenarios folder", []scenario.Suite{{Name: "none", Dir: filepath.Join(root, "none")}}, []string{"no scenarios folder"}},
	} {
		_, err := scenario.Load(true, c.suites)
		if err == nil {
			t.Errorf("%s: loaded", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error lacks %q:\n%v", c.name, w, err)
			}
		}
	}
	// Named apart, the two folders load side by side.
	named := b
	named.Name = "other"
	scs, err := scenario.Load(false, []scenario.Suite{a, named})
	if err != nil || len(scs) != 3 || scs[0].ID() != "parity:30-x" || scs[2].ID() != "other:31-y" {
		t.Errorf("named apart: %v %v", ids(scs), err)
	}
}

func ids(scs []*scenario.Scenario) []string {
	var out []string
	for _, s := range scs {
		out = append(out, s.ID())
	}
	return out
}

// TestSuiteNamesAndGolden: suite scenarios come after the embedded ones,
// named SUITE:NAME, selected by that name, and each finds its golden file
// in its own folder; one without is an error naming it.
func TestSuiteNamesAndGolden(t *testing.T) {
	su := writeSuite(t, t.TempDir(), "myteam", map[string]string{
		"scenarios/30-files.json": statusScenario("sdk/sse.json", false),
		"scenarios/31-bare.json":  statusScenario("sdk/sse.json", false),
		"scenarios/calls-x.json":  `{"not": "a scenario"}`,
		"golden/30-files.golden":  "[]\n",
	})
	all, err := scenario.Load(true, []scenario.Suite{su})
	if err != nil {
		t.Fatal(err)
	}
	embedded, _ := scenario.EmbeddedScenarios()
	got := ids(all[len(embedded):])
	if len(all) != len(embedded)+2 || got[0] != "myteam:30-files" || got[1] != "myteam:31-bare" {
		t.Fatalf("scenarios: %v", got)
	}
	sel := scenario.Select(all, regexp.MustCompile(`^myteam:30`))
	if len(sel) != 1 || sel[0].ID() != "myteam:30-files" {
		t.Fatalf("--run ^myteam:30 selects %v", ids(sel))
	}
	g := scenario.GoldenOf(all)
	if data, err := g("myteam:30-files", ""); err != nil || string(data) != "[]\n" {
		t.Errorf("golden of myteam:30-files: %q %v", data, err)
	}
	if data, err := g("03-status", ""); err != nil || !bytes.Contains(data, []byte(`"step": "status"`)) {
		t.Errorf("golden of 03-status: %.40q %v", data, err)
	}
	if err := scenario.RequireGolden(sel, g); err != nil {
		t.Errorf("RequireGolden of a scenario with its file: %v", err)
	}
	err = scenario.RequireGolden(all, g)
	if err == nil || !strings.Contains(err.Error(), "scenario myteam:31-bare has no golden file") ||
		!strings.Contains(err.Error(), "mcpparity golden --suite "+su.Dir) || strings.Contains(err.Error(), "30-files") {
		t.Errorf("RequireGolden: %v", err)
	}
}

// TestSuiteFixturesFirst: a suite's fixture is found in its own folder
// before the embedded fixture of the same name, over stdio and HTTP; a
// name the suite does not hold is an embedded fixture.
func TestSuiteFixturesFirst(t *testing.T) {
	everything := embeddedFixture(t, "everything/stdio.json")
	su := writeSuite(t, t.TempDir(), "shadow", map[string]string{
		"fixtures/sdk/stdio.json": everything,
		"fixtures/sdk/sse.json":   embeddedFixture(t, "edge/sse.json"),
		"scenarios/01-stdio.json": statusScenario("sdk/stdio.json", true),
		"scenarios/02-http.json":  statusScenario("sdk/sse.json", false),
		"scenarios/03-json.json":  statusScenario("sdk/json.json", false),
	})
	scs, err := scenario.Load(false, []scenario.Suite{su})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, target.RefTarget{})
	for i, c := range []struct{ has, hasNot string }{
		{"get-tiny-image", "embedded_resource"}, // the suite's sdk/stdio.json: server-everything's
		{"e2-structured", "embedded_resource"},  // the suite's sdk/sse.json: the edge server's
		{"embedded_resource", "get-tiny-image"}, // the embedded sdk/json.json
	} {
		obs, _, logs, err := runner.RunScenario(context.Background(), cfg, scs[i])
		if err != nil {
			t.Fatalf("%s: %v\n%s", scs[i].ID(), err, logs)
		}
		body, _ := json.Marshal(obs[0].Body)
		if !strings.Contains(string(body), c.has) || strings.Contains(string(body), c.hasNot) {
			t.Errorf("%s: status %s; want %q, not %q", scs[i].ID(), body, c.has, c.hasNot)
		}
	}
}

// TestMakeGolden: the reference's observations are written, a new file
// and a changed one with their diff, an unchanged one left alone; a
// scenario whose expectation the reference does not meet, or that differs
// from its sameAs, is reported and not written.
func TestMakeGolden(t *testing.T) {
	expect := strings.Replace(statusScenario("sdk/sse.json", false), `"path": "/api/mcp"}`, `"path": "/api/mcp", "expect": {"status": 404}}`, 1)
	su := writeSuite(t, t.TempDir(), "g", map[string]string{
		"scenarios/01-a.json":      statusScenario("sdk/sse.json", false),
		"scenarios/02-same.json":   strings.Replace(statusScenario("sdk/json.json", false), `"steps"`, `"sameAs": "01-a", "steps"`, 1),
		"scenarios/03-other.json":  strings.Replace(statusScenario("edge/sse.json", false), `"steps"`, `"sameAs": "01-a", "steps"`, 1),
		"scenarios/04-expect.json": expect,
		"scenarios/05-eras.json": strings.Replace(statusScenario("sdk/stdio.json", true), `"path": "/api/mcp"}`,
			`"path": "/api/mcp"}, {"name": "replays", "kind": "replays"}`, 1),
	})
	scs, err := scenario.Load(false, []scenario.Suite{su})
	if err != nil {
		t.Fatal(err)
	}
	cfg := testConfig(t, target.RefTarget{})
	// The changes of the handshake era by scenario; those of the modern
	// era by scenario too, in modern.
	modern := map[string]runner.GoldenChange{}
	run := func() map[string]runner.GoldenChange {
		t.Helper()
		out := map[string]runner.GoldenChange{}
		if err := runner.MakeGolden(context.Background(), cfg, scs, func(ch runner.GoldenChange) {
			if ch.Era == "" {
				out[ch.Scenario] = ch
			} else {
				modern[ch.Scenario] = ch
			}
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	file := filepath.Join(su.Dir, "golden", "01-a.golden")
	first := run()
	if ch := first["g:01-a"]; ch.Err != nil || ch.File != file || !strings.HasPrefix(ch.Diff, "--- /dev/null\n+++ "+file+"\n@@ -0,0 +1,") {
		t.Errorf("new file: %+v", ch)
	}
	if ch := first["g:02-same"]; ch.Err != nil || ch.File != "" {
		t.Errorf("sameAs, the same observations: %+v", ch)
	}
	if ch := first["g:03-other"]; ch.Err == nil || !strings.Contains(ch.Err.Error(), "differs from its sameAs 01-a") {
		t.Errorf("sameAs, other observations: %+v", ch)
	}
	if ch := first["g:04-expect"]; ch.Err == nil || !strings.Contains(ch.Err.Error(), "does not meet its expectation at status: want 404, got 200") {
		t.Errorf("expectation not met: %+v", ch)
	}
	if _, err := os.Stat(filepath.Join(su.Dir, "golden", "04-expect.golden")); err == nil {
		t.Error("a golden file was written for a scenario the reference does not meet")
	}
	written, err := os.ReadFile(file)
	if err != nil || !bytes.Contains(written, []byte(`"embedded_resource"`)) {
		t.Fatalf("golden file: %v\n%s", err, written)
	}
	// The eras: one file where they agree, the modern era's own where
	// they differ (the replay counts no session: server/discover opened
	// it), its diff from the shared file.
	eraFile := filepath.Join(su.Dir, "golden", "05-eras.2026-07-28.golden")
	if ch := modern["g:01-a"]; ch.Err != nil || ch.File != file || ch.Diff != "" {
		t.Errorf("01-a in the modern era: %+v", ch)
	}
	if ch := modern["g:05-eras"]; ch.Err != nil || ch.File != eraFile || !ch.New || !strings.Contains(ch.Diff, "-        \"sessions\": 1\n+        \"sessions\": 0\n") {
		t.Errorf("05-eras in the modern era: %+v", ch)
	}
	// A stale era file that no longer differs is removed.
	if err := os.WriteFile(filepath.Join(su.Dir, "golden", "01-a.2026-07-28.golden"), []byte("[]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if ch := run()["g:01-a"]; ch.Diff != "" || ch.Err != nil {
		t.Errorf("second run: %+v", ch)
	}
	if ch := modern["g:01-a"]; !strings.HasSuffix(ch.Diff, "@@ -1,1 +0,0 @@\n-[]\n") {
		t.Errorf("the stale era file: %+v", ch)
	}
	if _, err := os.Stat(filepath.Join(su.Dir, "golden", "01-a.2026-07-28.golden")); err == nil {
		t.Error("the stale era file was kept")
	}
	if ch := modern["g:05-eras"]; ch.Err != nil || ch.File != eraFile || ch.Diff != "" {
		t.Errorf("05-eras again in the modern era: %+v", ch)
	}
	if err := os.WriteFile(file, bytes.Replace(written, []byte(`"embedded_resource"`), []byte(`"stale"`), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	if ch := run()["g:01-a"]; !strings.Contains(ch.Diff, "\n-            \"stale\",\n+            \"embedded_resource\",\n") {
		t.Errorf("changed file: diff\n%s", ch.Diff)
	}
	if again, _ := os.ReadFile(file); !bytes.Equal(again, written) {
		t.Error("the changed file was not rewritten")
	}
}

func TestLineDiff(t *testing.T) {
	a := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n"
	b := "1\n2\nthree\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n"
	want := `--- a
+++ b
@@ -1,6 +1,6 @@
 1
 2
-3
+three
 4
 5
 6
@@ -10,3 +10,4 @@
 10
 11
 12
+13
`
	if got := compare.LineDiff("a", "b", []byte(a), []byte(b)); got != want {
		t.Errorf("LineDiff:\n%s\nwant:\n%s", got, want)
	}
	if got := compare.LineDiff("a", "b", []byte(a), []byte(a)); got != "" {
		t.Errorf("equal files: %q", got)
	}
	if got := compare.LineDiff("/dev/null", "b", nil, []byte("x\ny\n")); got != "--- /dev/null\n+++ b\n@@ -0,0 +1,2 @@\n+x\n+y\n" {
		t.Errorf("new file: %q", got)
	}
}

// TestMakeGoldenSourceRecordings: the source tree's scenarios replay the
// recordings of the folder given to LoadSource, a stdio replay included
// (it reads the run's copy, named as the embedded fixture is), not the
// recordings embedded in the binary.
func TestMakeGoldenSourceRecordings(t *testing.T) {
	root := t.TempDir()
	embedded, err := fixtures.Recordings.ReadFile("recordings/sdk/stdio.json")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"scenarios/01-stdio.json":   statusScenario("sdk/stdio.json", true),
		"recordings/sdk/stdio.json": strings.ReplaceAll(string(embedded), "embedded_resource", "embedded_resourcX"),
	}
	for p, content := range files {
		p = filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scs, changes, err := scenario.LoadSource(root, filepath.Join(root, "recordings"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := runner.Config{Harness: harnessCommand(t), Changes: changes}
	if err := runner.MakeGolden(context.Background(), cfg, scs, func(ch runner.GoldenChange) {
		// New in the handshake era; the same in the modern one.
		if ch.Err != nil || ch.New != (ch.Era == "") {
			t.Errorf("%s: %+v", ch.Scenario, ch)
		}
	}); err != nil {
		t.Fatal(err)
	}
	written, err := os.ReadFile(filepath.Join(root, "golden", "01-stdio.golden"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(written, []byte(`"embedded_resourcX"`)) || bytes.Contains(written, []byte(`"embedded_resource"`)) {
		t.Errorf("the golden file is not of the recording given:\n%s", written)
	}
	if !bytes.Contains(written, []byte(`"sdk/stdio.json"`)) {
		t.Errorf("the stdio replay is not named as the embedded fixture:\n%s", written)
	}
}
