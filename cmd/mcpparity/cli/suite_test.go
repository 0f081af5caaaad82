package cli

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/internal/sdkserver"
)

// statusScenario replays sdk/sse.json (or fixture) and observes the
// status.
func statusScenario(fixture string) string {
	return `{"description": "status", "servers": {"srv": {"replay": "` + fixture + `"}},
	"seed": {"srv": {"url": "{url:srv}"}}, "steps": [{"name": "status", "kind": "request", "method": "GET", "path": "/api/mcp"}]}`
}

// makeSuite writes a suite folder: files maps paths inside it to their
// content.
func makeSuite(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for p, content := range files {
		p = filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestSuiteErrorsBeforeRunning: two scenarios of one name, a fixture that
// cannot be found and a scenario without its golden file each make check,
// matrix, diff and mutate exit 2 with the error, before anything runs
// (nothing on stdout).
func TestSuiteErrorsBeforeRunning(t *testing.T) {
	root := t.TempDir()
	ok := statusScenario("sdk/sse.json")
	a := makeSuite(t, filepath.Join(root, "a", "team"), map[string]string{"scenarios/30-x.json": ok, "golden/30-x.golden": "[]\n"})
	b := makeSuite(t, filepath.Join(root, "b", "team"), map[string]string{"scenarios/30-x.json": ok, "golden/30-x.golden": "[]\n"})
	lost := makeSuite(t, filepath.Join(root, "lost"), map[string]string{"scenarios/01-l.json": statusScenario("files/http.json"), "golden/01-l.golden": "[]\n"})
	bare := makeSuite(t, filepath.Join(root, "bare"), map[string]string{"scenarios/01-b.json": ok})
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"two of one name", []string{"--suite", a, "--suite", b}, `two scenarios are named "team:30-x"`},
		{"a fixture not found", []string{"--suite", lost}, `server "srv": fixture "files/http.json": not found in ` + filepath.Join(lost, "fixtures")},
		{"no golden file", []string{"--suite", bare}, "scenario bare:01-b has no golden file"},
	}
	for _, c := range cases {
		for _, cmd := range [][]string{{"check"}, {"matrix", "--no-defaults", "--target", "ref"}, {"diff", "--b", "ref"}, {"mutate", "--list"}} {
			if c.name == "no golden file" && cmd[0] == "diff" {
				continue // diff compares two targets: no golden file is read
			}
			args := append(append(append([]string{}, cmd...), c.args...), "--json", filepath.Join(root, "out.json"))
			if cmd[0] == "diff" {
				args = args[:len(args)-2]
			}
			code, out, errs := run(args...)
			if code != 2 || out != "" || !strings.Contains(errs, c.want) {
				t.Errorf("%s: %q: exit %d, stdout %q, stderr %s", c.name, args, code, out, errs)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(root, "out.json")); err == nil {
		t.Error("a report file was written")
	}
	for _, args := range [][]string{{"check", "--no-builtin"}, {"golden"}, {"golden", "--suite", bare, "--target", "cmd:facade {addr}"}, {"golden", "--suite", bare, "--target-file", "facade.yaml"}} {
		code, out, errs := run(args...)
		if code != 2 || out != "" || errs == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %s", args, code, out, errs)
		}
		if args[0] == "golden" && len(args) > 1 && !strings.Contains(errs, "golden files come from the reference only") {
			t.Errorf("%q: stderr %s", args, errs)
		}
	}
}

// TestSuiteCheckNamesScenarios: golden writes a suite's golden file from
// the reference (a line for a new file, its content with --full, the
// changed lines of a changed one); check runs the suite beside the
// embedded scenarios or alone, and every report names a suite scenario
// with its suite; a changed golden file is a divergence naming it.
func TestSuiteCheckNamesScenarios(t *testing.T) {
	root := t.TempDir()
	dir := makeSuite(t, filepath.Join(root, "parity"), map[string]string{"scenarios/30-status.json": statusScenario("sdk/sse.json")})
	code, out, errs := run("golden", "--suite", "myteam="+dir)
	file := filepath.Join(dir, "golden", "30-status.golden")
	if code != 0 || !regexp.MustCompile(`(?m)^new       `+regexp.QuoteMeta(file)+` \(\d+ lines\)$`).MatchString(out) ||
		strings.Contains(out, "--- /dev/null") || !strings.Contains(out, "golden: 1 new, 0 changed, 0 unchanged") {
		t.Fatalf("golden: exit %d\n%s%s", code, out, errs)
	}
	os.Remove(file)
	if code, out, errs = run("golden", "--full", "--suite", dir); code != 0 || !strings.Contains(out, "--- /dev/null\n+++ "+file) || !strings.Contains(out, `+          "name": "srv",`) {
		t.Fatalf("golden --full: exit %d\n%s%s", code, out, errs)
	}
	if code, out, _ = run("golden", "--suite", dir); code != 0 || !strings.Contains(out, "unchanged "+file) {
		t.Errorf("golden again: exit %d\n%s", code, out)
	}
	reports := map[string]string{"json": filepath.Join(root, "r.json"), "junit": filepath.Join(root, "r.xml"), "report": filepath.Join(root, "r.md")}
	code, out, errs = run("check", "--suite", "myteam="+dir, "--run", `^(01-pure|myteam:.*)$`,
		"--json", reports["json"], "--junit", reports["junit"], "--report", reports["report"])
	if code != 0 || !strings.Contains(out, "pass     01-pure") || !strings.Contains(out, "pass     myteam:30-status") || !strings.Contains(out, "2 passed") {
		t.Fatalf("check beside the embedded: exit %d\n%s%s", code, out, errs)
	}
	for kind, p := range reports {
		data, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(data), "myteam:30-status") {
			t.Errorf("--%s report lacks myteam:30-status: %v\n%s", kind, err, data)
		}
	}
	matrix := filepath.Join(root, "m.json")
	if code, out, errs = run("matrix", "--no-defaults", "--target", "ref", "--suite", dir, "--no-builtin", "--json", matrix); code != 0 {
		t.Fatalf("matrix: exit %d\n%s%s", code, out, errs)
	}
	var m struct{ Scenarios []string }
	if data, err := os.ReadFile(matrix); err != nil || json.Unmarshal(data, &m) != nil || len(m.Scenarios) != 1 || m.Scenarios[0] != "parity:30-status" {
		t.Errorf("matrix scenarios %v (%v)", m.Scenarios, err)
	}
	if code, out, _ = run("diff", "--b", "ref", "--suite", dir, "--no-builtin"); code != 0 || out != "same     parity:30-status\n" {
		t.Errorf("diff: exit %d\n%s", code, out)
	}
	data, _ := os.ReadFile(file)
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), `"name": "srv"`, `"name": "other"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, _ = run("check", "--suite", dir, "--no-builtin")
	if code != 1 || !strings.Contains(out, "fail     parity:30-status") || !strings.Contains(out, `parity:30-status [0 status].body.servers[0].name: DIFF`) {
		t.Errorf("changed golden file: exit %d\n%s", code, out)
	}
	code, out, _ = run("golden", "--suite", dir)
	if code != 0 || !strings.Contains(out, "changed   "+file+" (+1 -1 lines)\n--- "+file) || !strings.Contains(out, `-          "name": "other",`) ||
		!strings.Contains(out, `+          "name": "srv",`) || !strings.Contains(out, "golden: 0 new, 1 changed, 0 unchanged") {
		t.Errorf("golden over a changed file: exit %d\n%s", code, out)
	}
}

// TestRecordIntoSuite: record-suite drives the reference pool against a
// stdio server and an HTTP server into a suite: fixtures, call scripts and
// starting scenarios that golden and check then run; the starting
// scenario follows the call script until it is edited; record-suite --drift
// finds a changed byte.
func TestRecordIntoSuite(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "parity")
	upstream := "'" + exe + "' sdk-server --stdio"
	code, out, errs := run("record-suite", "--suite", dir, "--name", "sdk", "--upstream-cmd", upstream)
	scenario := filepath.Join(dir, "scenarios", "01-sdk.json")
	if code != 0 || !strings.Contains(out, "recorded "+filepath.Join(dir, "fixtures", "sdk", "stdio.json")+" (server mcpparity-sdk-server/") ||
		!strings.Contains(out, "scenario "+scenario+": written") || !strings.Contains(out, "no calls: add them to "+filepath.Join(dir, "scenarios", "calls-sdk.json")) {
		t.Fatalf("record: exit %d\n%s%s", code, out, errs)
	}
	script := filepath.Join(dir, "scenarios", "calls-sdk.json")
	data, err := os.ReadFile(script)
	if err != nil || !strings.Contains(string(data), `"upstreamCmd": "'`+exe+`' sdk-server --stdio"`) || !strings.Contains(string(data), `"calls": []`) {
		t.Fatalf("call script: %v\n%s", err, data)
	}
	withCalls := strings.Replace(string(data), `"calls": []`, `"calls": [{"tool": "echo", "args": {"message": "suite"}}, {"tool": "embedded_resource", "args": {}}]`, 1)
	if err := os.WriteFile(script, []byte(withCalls), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs = run("record-suite", "--suite", dir); code != 0 || !strings.Contains(out, "(server mcpparity-sdk-server/1.0.0, 11 tool(s), 2 call(s))") || !strings.Contains(out, ": written") {
		t.Fatalf("record from the call script: exit %d\n%s%s", code, out, errs)
	}
	if data, _ := os.ReadFile(scenario); !strings.Contains(string(data), `"name": "mcp__sdk__embedded_resource"`) {
		t.Fatalf("the starting scenario does not follow the call script:\n%s", data)
	}
	live := httptest.NewServer(sdkserver.Handler(false))
	defer live.Close()
	if code, out, errs = run("record-suite", "--suite", dir, "--name", "web", "--upstream", live.URL+"/mcp"); code != 0 || !strings.Contains(out, filepath.Join(dir, "scenarios", "02-web.json")+": written") {
		t.Fatalf("record over HTTP: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs = run("golden", "--suite", dir); code != 0 {
		t.Fatalf("golden: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs = run("check", "--suite", dir, "--no-builtin"); code != 0 || !strings.Contains(out, "pass     parity:01-sdk") || !strings.Contains(out, "pass     parity:02-web") {
		t.Fatalf("check: exit %d\n%s%s", code, out, errs)
	}
	recordDriftAndEdits(t, dir, scenario)
	for _, args := range [][]string{
		{"record-suite", "--suite", dir, "--upstream-cmd", upstream},
		{"record-suite", "--suite", dir, "--name", "Bad Name", "--upstream-cmd", upstream},
		{"record-suite", "--suite", dir, "--out", "x.json"},
		{"record-suite", "--suite", dir, "--drift", "--name", "sdk", "--upstream-cmd", upstream},
		{"record-suite", "--suite", dir, "--name", "nothing"},
	} {
		if code, out, errs := run(args...); code != 2 || out != "" || errs == "" {
			t.Errorf("%q: exit %d, stdout %q, stderr %s", args, code, out, errs)
		}
	}
}

// recordDriftAndEdits: record-suite --drift finds a changed byte of the
// suite's sdk recording; an edited starting scenario is kept.
func recordDriftAndEdits(t *testing.T, dir, scenario string) {
	t.Helper()
	if code, out, errs := run("record-suite", "--drift", "--suite", dir, "--name", "sdk"); code != 0 || !strings.Contains(out, "ok     "+filepath.Join(dir, "fixtures", "sdk", "stdio.json")+": as stored") {
		t.Fatalf("record-suite --drift: exit %d\n%s%s", code, out, errs)
	}
	fixture := filepath.Join(dir, "fixtures", "sdk", "stdio.json")
	data, _ := os.ReadFile(fixture)
	if err := os.WriteFile(fixture, []byte(strings.Replace(string(data), `"mcpparity-sdk-server"`, `"Mcpparity-sdk-server"`, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run("record-suite", "--drift", "--suite", dir, "--name", "sdk"); code != 1 || !strings.Contains(out, "drift  "+fixture) || !strings.Contains(out, `"Mcpparity-sdk-server"`) {
		t.Errorf("record-suite --drift after a changed byte: exit %d\n%s", code, out)
	}
	data, _ = os.ReadFile(scenario)
	edited := strings.Replace(string(data), `"description": "`, `"description": "Edited. `, 1)
	if err := os.WriteFile(scenario, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run("record-suite", "--suite", dir, "--name", "sdk"); code != 0 || !strings.Contains(out, "scenario "+scenario+": kept: edited") {
		t.Errorf("record-suite after an edit: exit %d\n%s", code, out)
	}
	if data, _ := os.ReadFile(scenario); string(data) != edited {
		t.Error("an edited scenario was rewritten")
	}
}

// TestSuiteOfStepsWithoutKind: a suite written before steps named their
// kind still runs, with one notice naming its folder; its old "replays"
// flag is read as the replays kind.
func TestSuiteOfStepsWithoutKind(t *testing.T) {
	old := `{"description": "status", "servers": {"srv": {"replay": "sdk/sse.json"}},
	"seed": {"srv": {"url": "{url:srv}"}}, "steps": [{"name": "status", "method": "GET", "path": "/api/mcp"},
	{"name": "store", "store": true}, {"name": "replays", "replays": true}]}`
	dir := makeSuite(t, filepath.Join(t.TempDir(), "old"), map[string]string{"scenarios/01-old.json": old})
	code, out, errs := run("golden", "--suite", dir)
	notice := "mcpparity: " + dir + `: 3 step(s) in 1 scenario file(s) name no kind (the format before step kinds): their kinds were inferred; add "kind" to each (scenarios/README.md)` + "\n"
	if code != 0 || errs != notice || !strings.Contains(out, "golden: 1 new") {
		t.Fatalf("golden: exit %d\n%s%s", code, out, errs)
	}
	golden, err := os.ReadFile(filepath.Join(dir, "golden", "01-old.golden"))
	if err != nil || !strings.Contains(string(golden), `"sessions"`) {
		t.Fatalf("the replays step observed no replay: %v\n%s", err, golden)
	}
	if code, out, errs = run("check", "--suite", dir, "--no-builtin"); code != 0 || errs != notice || !strings.Contains(out, "1 passed") {
		t.Errorf("check: exit %d\n%s%s", code, out, errs)
	}
}
