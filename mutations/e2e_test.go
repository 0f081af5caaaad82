package mutations

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/internal/verdict"
	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

// A throwaway module with a harness whose check judges package tiny, as
// mcpparity's check judges impl: scenarios, check --json, exit 0/1/2,
// --failfast (unless TINY_NO_FAILFAST is set) and --run.
var tinyFiles = map[string]string{
	"go.mod": "module example.com/tiny\n\ngo 1.26\n",
	"tiny/tiny.go": `package tiny

import "encoding/json"

// Add is checked by the suite and the tests.
func Add(a, b int) int {
	return a + b
}

// Greeting is checked by the tests only.
func Greeting() string {
	return "hello"
}

// Config is checked by the suite, through its JSON.
type Config struct {
	Name string ` + "`json:\"name\"`" + `
}

func Encode(c Config) string {
	raw, _ := json.Marshal(c)
	return string(raw)
}

// Ready tells whether the target can start.
func Ready() bool {
	return true
}

// Unseen is checked by nothing.
func Unseen() int {
	return 1
}
`,
	"tiny/tiny_test.go": `package tiny

import (
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
)

func TestAdd(t *testing.T) {
	if got := Add(2, 3); got != 5 {
		t.Fatalf("Add(2, 3) = %d", got)
	}
}

func TestGreeting(t *testing.T) {
	if Greeting() != "hello" {
		t.Fatal(Greeting())
	}
}

// TestSpawn leaves a process behind, in a group of its own: the runner
// must end it anyway.
func TestSpawn(t *testing.T) {
	dir := os.Getenv("TINY_PIDS")
	if dir == "" {
		return
	}
	cmd := exec.Command("sleep", "300")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dir+"/"+strconv.Itoa(cmd.Process.Pid), nil, 0o644); err != nil {
		t.Fatal(err)
	}
}
`,
	"cmd/mcpparity/main.go": `package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"syscall"
	"time"

	"example.com/tiny/tiny"
)

type diff struct {
	Path     string ` + "`json:\"path\"`" + `
	Want     string ` + "`json:\"want\"`" + `
	Got      string ` + "`json:\"got\"`" + `
	Accepted bool   ` + "`json:\"accepted\"`" + `
}

type result struct {
	Scenario string ` + "`json:\"scenario\"`" + `
	Verdict  string ` + "`json:\"verdict\"`" + `
	Diffs    []diff ` + "`json:\"diffs,omitempty\"`" + `
	Error    string ` + "`json:\"error,omitempty\"`" + `
}

// flaky fails the first time for each mutant when TINY_FLAKY names a
// folder, as a deadline scenario may under load.
func flaky() string {
	dir := os.Getenv("TINY_FLAKY")
	if dir == "" {
		return "200"
	}
	mark := dir + "/m-" + os.Getenv("MCPPARITY_MUTANT")
	if _, err := os.Stat(mark); err == nil {
		return "200"
	}
	os.WriteFile(mark, nil, 0o644)
	return "500"
}

// broken makes every check after the first unmutated one (the baseline)
// hang or fail when TINY_BROKEN names a folder and TINY_BROKEN_DO says
// which: a harness with a problem of its own, mutant or not.
func broken() {
	dir := os.Getenv("TINY_BROKEN")
	if dir == "" {
		return
	}
	mark := dir + "/baseline-done"
	if _, err := os.Stat(mark); err != nil {
		if os.Getenv("MCPPARITY_MUTANT") == "" {
			os.WriteFile(mark, nil, 0o644)
		}
		return
	}
	if os.Getenv("TINY_BROKEN_DO") == "hang" {
		time.Sleep(time.Hour)
	}
	fmt.Fprintln(os.Stderr, "check: no free port")
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 || os.Args[1] != "check" {
		fmt.Fprintln(os.Stderr, "usage: mcpparity check")
		os.Exit(2)
	}
	fs := flag.NewFlagSet("check", flag.ContinueOnError)
	out := fs.String("json", "", "write the results as JSON to this file")
	run := fs.String("run", "", "run only the scenarios matching this regular expression")
	failfast := new(bool)
	if os.Getenv("TINY_NO_FAILFAST") == "" {
		failfast = fs.Bool("failfast", false, "stop at the first scenario that fails")
	}
	if err := fs.Parse(os.Args[2:]); err != nil {
		os.Exit(2)
	}
	broken()
	if dir := os.Getenv("TINY_PIDS"); dir != "" {
		cmd := exec.Command("sleep", "300")
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err == nil {
			os.WriteFile(dir+"/"+strconv.Itoa(cmd.Process.Pid), nil, 0o644)
		}
	}
	scenarios := []struct{ name, path, want string; got func() string }{
		{"01-add", "[0].body.sum", "5", func() string { return strconv.Itoa(tiny.Add(2, 3)) }},
		{"02-encode", "[0].body", ` + "`{\"name\":\"x\"}`" + `, func() string { return tiny.Encode(tiny.Config{Name: "x"}) }},
		{"03-flaky", "[0].status", "200", flaky},
	}
	var results []result
	code := 0
	for _, s := range scenarios {
		if *run != "" && !regexp.MustCompile(*run).MatchString(s.name) {
			continue
		}
		r := result{Scenario: s.name, Verdict: "pass"}
		switch {
		case !tiny.Ready():
			r.Verdict, r.Error = "error", "target did not start"
			code = 2
		default:
			if got := s.got(); got != s.want {
				r.Verdict, r.Diffs = "fail", []diff{{Path: s.path, Want: s.want, Got: got}}
				if code == 0 {
					code = 1
				}
			}
		}
		fmt.Printf("%-8s %-24s 1ms\n", r.Verdict, s.name)
		results = append(results, r)
		if r.Verdict != "pass" && *failfast {
			break
		}
	}
	if *out != "" {
		raw, _ := json.Marshal(map[string]any{"target": "ref", "results": results})
		os.WriteFile(*out, raw, 0o644)
	}
	os.Exit(code)
}
`,
}

func tinyMutant(id, original, replacement string) catalogue.Mutant {
	return catalogue.Mutant{ID: id, Rule: "C1", File: "tiny/tiny.go", Original: original, Replacement: replacement, Why: id, Offset: -1}
}

// treeState is every file's hash under root, and git status when root is a
// git work tree.
func treeState(t *testing.T, root string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			b.WriteString("dir " + p + "\n")
			return nil
		}
		raw, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		b.WriteString(p + " " + info.ModTime().String() + " ")
		fmt.Fprintf(&b, "%x\n", sha256.Sum256(raw))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, ".git")); err == nil {
		out, err := exec.Command("git", "-C", root, "status", "--porcelain", "--ignored").CombinedOutput()
		if err != nil {
			t.Fatalf("git status: %v\n%s", err, out)
		}
		b.WriteString("git status:\n" + string(out))
	}
	return b.String()
}

// needGit skips without git, except under CI=true.
func needGit(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no git")
		}
		t.Skip("no git")
	}
}

func gitInit(t *testing.T, root string) {
	t.Helper()
	needGit(t)
	for _, args := range [][]string{
		{"init", "-q"},
		{"add", "-A"},
		{"-c", "user.email=t@example.com", "-c", "user.name=t", "commit", "-q", "-m", "tiny"},
	} {
		if out, err := exec.Command("git", append([]string{"-C", root}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// processesUnder lists the processes of this user whose executable lies
// under dir (Linux /proc; nil elsewhere).
func processesUnder(dir string) []string {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe"))
		if err == nil && strings.HasPrefix(exe, dir) {
			out = append(out, e.Name()+" "+exe)
		}
	}
	return out
}

func emptyDir(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("left in the temporary folder: %s", e.Name())
	}
}

// checkSpawned checks that every process the tiny check and tests left
// behind (their pids are files in dir) is gone or a zombie.
func checkSpawned(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) == 0 {
		t.Error("nothing was spawned")
	}
	for _, e := range entries {
		raw, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone
		}
		s := string(raw)
		if f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:]); len(f) > 0 && f[0] != "Z" && f[0] != "X" {
			t.Errorf("process %s left behind: %s", e.Name(), s)
			pid, _ := strconv.Atoi(e.Name())
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// tinyMutants covers every verdict of the suite and of the tests.
func tinyMutants() []catalogue.Mutant {
	return []catalogue.Mutant{
		tinyMutant("killed", "return a + b", "return a - b"),
		tinyMutant("tests-only", `return "hello"`, `return "bye"`),
		tinyMutant("timeout", "return a + b\n", "for {\n\t}\n"),
		tinyMutant("crash", "return a + b", `panic("boom")`),
		tinyMutant("broken", "return a + b", `return a + "b"`),
		tinyMutant("cannot-run", "return true", "return false"),
		tinyMutant("tag", "`json:\"name\"`", "`json:\"nom\"`"),
		tinyMutant("unseen", "return 1", "return 2"),
	}
}

func TestEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs binaries")
	}
	needGo(t)
	for _, failfast := range []bool{true, false} {
		t.Run("failfast="+strconv.FormatBool(failfast), func(t *testing.T) {
			if !failfast {
				t.Setenv("TINY_NO_FAILFAST", "1")
			}
			pids := t.TempDir()
			t.Setenv("TINY_PIDS", pids)
			defer checkSpawned(t, pids)
			root := writeModule(t, tinyFiles)
			gitInit(t, root)
			before := treeState(t, root)
			tmp := t.TempDir()
			var progress bytes.Buffer
			r, err := NewRunner(Config{Root: root, Workers: 4, Floor: 3 * time.Second, Multiplier: 2, TempDir: tmp, Progress: &progress})
			if err != nil {
				t.Fatal(err)
			}
			ms := tinyMutants()
			rep, err := r.Run(t.Context(), ms)
			if err != nil {
				t.Fatal(err)
			}
			rep.Mode = ModeRules
			endToEndVerdicts(t, rep, ms)
			endToEndTexts(t, rep, progress.String(), failfast)
			if after := treeState(t, root); after != before {
				t.Errorf("the tree changed:\nbefore:\n%s\nafter:\n%s", before, after)
			}
			emptyDir(t, tmp)
			if ps := processesUnder(tmp); len(ps) > 0 {
				t.Errorf("processes left: %v", ps)
			}
		})
	}
}

// endToEndVerdicts: each tiny mutant's verdicts, reasons and build, and
// the summaries.
func endToEndVerdicts(t *testing.T, rep *Report, ms []catalogue.Mutant) {
	t.Helper()
	type want struct {
		suite, tests    verdict.Verdict
		killedBy, tkill string
		build           string
		reason, treason string
	}
	wants := map[string]want{
		"killed":     {verdict.Killed, verdict.Killed, "01-add [0].body.sum", "TestAdd", buildSchemata, "", ""},
		"tests-only": {verdict.Survived, verdict.Killed, "", "TestGreeting", buildSchemata, "", ""},
		"timeout":    {verdict.Killed, verdict.Killed, "", "", buildSchemata, reasonTimeout, reasonTimeout},
		"crash":      {verdict.Killed, verdict.Killed, "", "TestAdd", buildSchemata, "crash: panic: boom", ""},
		"broken":     {verdict.NotViable, verdict.NotViable, "", "", buildSchemata, "", ""},
		"cannot-run": {verdict.Killed, verdict.Survived, "", "", buildSchemata, "could not run: 01-add: target did not start", ""},
		"tag":        {verdict.Killed, verdict.Survived, "02-encode [0].body", "", buildOwn, "", ""},
		"unseen":     {verdict.Survived, verdict.Survived, "", "", buildSchemata, "", ""},
	}
	if len(rep.Results) != len(ms) {
		t.Fatalf("%d results for %d mutants", len(rep.Results), len(ms))
	}
	for i, res := range rep.Results {
		w := wants[res.ID]
		if res.ID != ms[i].ID || res.Index != i {
			t.Errorf("result %d is %s (index %d)", i, res.ID, res.Index)
		}
		if res.Verdict != w.suite || res.KilledBy != w.killedBy || res.Tests.Verdict != w.tests || res.Tests.KilledBy != w.tkill || res.Build != w.build ||
			res.Reason != w.reason || res.Tests.Reason != w.treason {
			t.Errorf("%s: suite %s (%s) by %q, tests %s (%s) by %q, build %s; want %+v (error %q, tests error %q)",
				res.ID, res.Verdict, res.Reason, res.KilledBy, res.Tests.Verdict, res.Tests.Reason, res.Tests.KilledBy, res.Build, w, res.Error, res.Tests.Error)
		}
	}
	if k := rep.Results[0]; k.Scenario != "01-add" || k.Path != "[0].body.sum" || k.Want != "5" || k.Got != "-1" || k.Line != 7 {
		t.Errorf("killed: %+v", k)
	}
	if e := rep.Results[4]; !strings.Contains(e.Error, "does not compile") {
		t.Errorf("broken: %q", e.Error)
	}
	if rep.ExitCode(0) != 1 {
		t.Errorf("exit %d with survivors", rep.ExitCode(0))
	}
	if s := rep.Summary; s.Killed != 5 || s.Survived != 2 || s.Timeout != 0 || s.Error != 0 || s.NotViable != 1 {
		t.Errorf("suite summary %+v", s)
	}
	if s := rep.Tests; s.Killed != 4 || s.Survived != 3 || s.Timeout != 0 || s.Error != 0 || s.NotViable != 1 {
		t.Errorf("tests summary %+v", s)
	}
}

// endToEndTexts: the progress lines and the table say what happened.
func endToEndTexts(t *testing.T, rep *Report, p string, failfast bool) {
	t.Helper()
	for _, line := range []string{"schemata: 6 mutant(s) in one build, 1 built alone, 1 do not compile; 2 round(s)", "with --failfast",
		"by 01-add [0].body.sum; impl tests killed by TestAdd", "[own build: in a type declaration", "killed (crash: panic: boom) C1    crash"} {
		if !failfast && line == "with --failfast" {
			line = "without --failfast"
		}
		if !strings.Contains(p, line) {
			t.Errorf("progress lacks %q:\n%s", line, p)
		}
	}
	var table bytes.Buffer
	if err := rep.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"tag [own build]", "SURVIVED tests-only (tiny/tiny.go:12)", "impl tests: killed by TestGreeting (only the Go reference is protected)",
		"killed (timeout)", "killed (crash: panic: boom)", "killed (could not run: 01-add: target d…)", "NOT VIABLE broken",
		"suite: 5 killed (1 by a crash, 1 by a timeout, 1 by a check that could not run), 2 survived"} {
		if !strings.Contains(table.String(), line) {
			t.Errorf("table lacks %q:\n%s", line, table.String())
		}
	}
}

// TestEndToEndCoverage: with coverage, a mutant no scenario or test
// reaches is not run, and the others run what reaches them.
func TestEndToEndCoverage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs binaries")
	}
	needGo(t)
	root := writeModule(t, tinyFiles)
	tmp := t.TempDir()
	r, err := NewRunner(Config{Root: root, Workers: 4, Floor: 3 * time.Second, TempDir: tmp, Coverage: true})
	if err != nil {
		t.Fatal(err)
	}
	ms := []catalogue.Mutant{
		tinyMutant("killed", "return a + b", "return a - b"),
		tinyMutant("tests-only", `return "hello"`, `return "bye"`),
		tinyMutant("unseen", "return 1", "return 2"),
	}
	rep, err := r.Run(t.Context(), ms)
	if err != nil {
		t.Fatal(err)
	}
	rep.Mode = ModeOperators
	got := map[string]string{}
	for _, res := range rep.Results {
		got[res.ID] = string(res.Verdict) + "/" + string(res.Tests.Verdict) + " " + res.Tests.Filter
	}
	want := map[string]string{
		"killed":     "killed/killed ^(TestAdd)$",
		"tests-only": "not covered/killed ^(TestGreeting)$",
		"unseen":     "not covered/not covered ",
	}
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: %q, want %q", id, got[id], w)
		}
	}
	if s := rep.Summary; s.NotCovered != 2 || s.Score != 0.3333 || s.CoveredScore != 1 {
		t.Errorf("summary %+v", s)
	}
	emptyDir(t, tmp)
}

// TestOwnBuildsAgree: every mutant built alone gets the verdicts the
// schemata give (the cross-check of --own-builds).
func TestOwnBuildsAgree(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs binaries")
	}
	needGo(t)
	root := writeModule(t, tinyFiles)
	verdicts := func(own bool) string {
		r, err := NewRunner(Config{Root: root, Workers: 4, Floor: 3 * time.Second, TempDir: t.TempDir(), OwnBuilds: own})
		if err != nil {
			t.Fatal(err)
		}
		ms := tinyMutants()
		rep, err := r.Run(t.Context(), []catalogue.Mutant{ms[0], ms[1], ms[3], ms[4], ms[5]})
		if err != nil {
			t.Fatal(err)
		}
		var b strings.Builder
		for _, res := range rep.Results {
			fmt.Fprintf(&b, "%s %s %s %s\n", res.ID, verdictText(res.Verdict, res.Reason), res.KilledBy, res.Tests.short())
			if (res.Build == buildOwn) != own {
				t.Errorf("%s: build %s", res.ID, res.Build)
			}
		}
		return b.String()
	}
	if a, b := verdicts(false), verdicts(true); a != b {
		t.Errorf("schemata:\n%s\nown builds:\n%s", a, b)
	}
}

// TestConfirmation: a kill seen among other runs must hold when run again
// with few runs at once; one that does not is judged again, with a note.
func TestConfirmation(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs binaries")
	}
	needGo(t)
	root := writeModule(t, tinyFiles)
	r, err := NewRunner(Config{Root: root, Workers: 4, TempDir: t.TempDir(), NoTests: true})
	if err != nil {
		t.Fatal(err)
	}
	flakyDir := t.TempDir()
	t.Setenv("TINY_FLAKY", flakyDir)
	// The baseline sees the flaky scenario pass only once it has failed.
	if err := os.WriteFile(filepath.Join(flakyDir, "m-"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := r.Run(t.Context(), []catalogue.Mutant{
		tinyMutant("killed", "return a + b", "return a - b"),
		tinyMutant("unseen", "return 1", "return 2"),
	})
	if err != nil {
		t.Fatal(err)
	}
	k, u := rep.Results[0], rep.Results[1]
	if k.Verdict != verdict.Killed || k.KilledBy != "01-add [0].body.sum" || k.Note != "" {
		t.Errorf("killed: %s by %q, note %q", k.Verdict, k.KilledBy, k.Note)
	}
	if u.Verdict != verdict.Survived || u.Note != "among other runs: killed by 03-flaky [0].status; alone: survived" {
		t.Errorf("unseen: %s, note %q", u.Verdict, u.Note)
	}
}

// TestProblemsOfTheHarness: a run alone past its bound, or a check that
// could not run, is a kill only when the unmutated check passes under the
// same bound; when it hangs or fails too, the problem is the harness's:
// timeout or error, not counted.
func TestProblemsOfTheHarness(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs binaries")
	}
	needGo(t)
	root := writeModule(t, tinyFiles)
	for _, c := range []struct {
		do      string
		verdict verdict.Verdict
		error   string
	}{
		{"hang", verdict.Timeout, "and so was the unmutated run"},
		{"fail", verdict.Error, "the unmutated run did not pass either: check could not run (exit 2): check: no free port"},
	} {
		t.Run(c.do, func(t *testing.T) {
			t.Setenv("TINY_BROKEN", t.TempDir())
			t.Setenv("TINY_BROKEN_DO", c.do)
			tmp := t.TempDir()
			r, err := NewRunner(Config{Root: root, Workers: 2, Floor: 2 * time.Second, Multiplier: 1, TempDir: tmp, NoTests: true})
			if err != nil {
				t.Fatal(err)
			}
			rep, err := r.Run(t.Context(), []catalogue.Mutant{tinyMutant("unseen", "return 1", "return 2")})
			if err != nil {
				t.Fatal(err)
			}
			u := rep.Results[0]
			if u.Verdict != c.verdict || u.Reason != "" || !strings.Contains(u.Error, c.error) || u.Note == "" {
				t.Errorf("unseen: %s (%s), error %q, note %q", u.Verdict, u.Reason, u.Error, u.Note)
			}
			if s := rep.Summary; s.Killed != 0 || s.Score != 0 || s.Total != 1 {
				t.Errorf("summary %+v", s)
			}
			emptyDir(t, tmp)
		})
	}
}

func TestStaleBeforeAnythingRuns(t *testing.T) {
	root := writeModule(t, tinyFiles)
	tmp := t.TempDir()
	r, err := NewRunner(Config{Root: root, TempDir: tmp, Go: "/nonexistent/go"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(context.Background(), []catalogue.Mutant{
		tinyMutant("fine", "return a + b", "return a - b"),
		tinyMutant("gone", "return a / b", "return a - b"),
	})
	var se *catalogue.StaleError
	if !errors.As(err, &se) || len(se.Stale) != 1 || se.Stale[0].ID != "gone" {
		t.Fatalf("err %v, want the stale mutant before any go command", err)
	}
	emptyDir(t, tmp)
}

// TestFailingBaseline: the unmutated check must pass, or nothing runs.
func TestFailingBaseline(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs binaries")
	}
	needGo(t)
	files := map[string]string{}
	for k, v := range tinyFiles {
		files[k] = v
	}
	files["tiny/tiny.go"] = strings.Replace(files["tiny/tiny.go"], `Name string `, `Label string `, 1)
	root := writeModule(t, files)
	r, err := NewRunner(Config{Root: root, TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	_, err = r.Run(t.Context(), []catalogue.Mutant{tinyMutant("killed", "return a + b", "return a - b")})
	if err == nil || !strings.Contains(err.Error(), "Name") {
		// The harness does not even build: a setup error.
		var be *BaselineError
		if !errors.As(err, &be) {
			t.Fatalf("err %v, want a setup error", err)
		}
	}

	files["tiny/tiny.go"] = strings.Replace(tinyFiles["tiny/tiny.go"], `return "hello"`, `return "hallo"`, 1)
	root = writeModule(t, files)
	r, _ = NewRunner(Config{Root: root, TempDir: t.TempDir()})
	_, err = r.Run(t.Context(), []catalogue.Mutant{tinyMutant("killed", "return a + b", "return a - b")})
	var be *BaselineError
	if !errors.As(err, &be) || be.What != "tests ./tiny" || !strings.Contains(be.Output, "--- FAIL: TestGreeting") {
		t.Fatalf("err %v, want a baseline error of the tests", err)
	}
}

// TestCancel interrupts a run while mutants loop: the processes are
// killed, the temporary files removed, the tree unchanged, and the partial
// report says so.
func TestCancel(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs binaries")
	}
	needGo(t)
	root := writeModule(t, tinyFiles)
	gitInit(t, root)
	before := treeState(t, root)
	tmp := t.TempDir()
	r, err := NewRunner(Config{Root: root, Workers: 4, Floor: 5 * time.Minute, TempDir: tmp})
	if err != nil {
		t.Fatal(err)
	}
	ms := []catalogue.Mutant{
		tinyMutant("unseen", "return 1", "return 2"),
		tinyMutant("loop", "return a + b\n", "for {\n\t}\n"),
		tinyMutant("loop2", "return \"hello\"\n", "for {\n\t}\n"),
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		// Cancel once the looping runs are under way.
		deadline := time.Now().Add(2 * time.Minute)
		for time.Now().Before(deadline) && ctx.Err() == nil {
			if len(processesUnder(tmp)) >= 3 {
				time.Sleep(300 * time.Millisecond)
				cancel()
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
		cancel()
	})
	start := time.Now()
	rep, err := r.Run(ctx, ms)
	wg.Wait()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if rep == nil || !rep.Interrupted {
		t.Fatalf("report %+v, want an interrupted one", rep)
	}
	if time.Since(start) > 90*time.Second {
		t.Errorf("cancellation took %v", time.Since(start))
	}
	for _, res := range rep.Results {
		if res.ID != "unseen" {
			t.Errorf("%s got verdict %s after cancellation", res.ID, res.Verdict)
		}
	}
	if rep.Pending < 2 || rep.ExitCode(0) != 130 {
		t.Errorf("pending %d, exit %d", rep.Pending, rep.ExitCode(0))
	}
	var table bytes.Buffer
	rep.Mode = ModeRules
	if err := rep.WriteTable(&table); err != nil || !strings.Contains(table.String(), "INTERRUPTED") {
		t.Errorf("partial table:\n%s", table.String())
	}
	if ps := processesUnder(tmp); len(ps) > 0 {
		t.Errorf("processes left: %v", ps)
	}
	emptyDir(t, tmp)
	if after := treeState(t, root); after != before {
		t.Errorf("the tree changed:\nbefore:\n%s\nafter:\n%s", before, after)
	}
}

// TestCatalogueJudgedByCheck builds the schemata of a few catalogue
// mutants into the real harness and judges them by its check: the
// unmutated build passes (the baseline), P7-no-trim is killed by the
// suite with a difference named, C1-enabled-omitempty (a struct tag) is
// built alone.
func TestCatalogueJudgedByCheck(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the harness and runs check")
	}
	needGo(t)
	all := loadReal(t)
	ms, err := catalogue.Select(all, []string{"P7-no-trim", "C1-enabled-omitempty", "P15-100-runes"})
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	var progress bytes.Buffer
	r, err := NewRunner(Config{Root: repoRoot(t), TempDir: tmp, Progress: &progress, NoTests: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := r.Run(t.Context(), ms)
	if err != nil {
		t.Fatalf("%v\n%s", err, progress.String())
	}
	for _, res := range rep.Results {
		if res.Verdict != verdict.Killed || res.Scenario == "" || res.Path == "" || res.Tests.Verdict != "" {
			t.Errorf("%s: %s by %q (%s)", res.ID, res.Verdict, res.KilledBy, res.Error)
		}
		if (res.Build == buildOwn) != (res.ID == "C1-enabled-omitempty") {
			t.Errorf("%s: build %s", res.ID, res.Build)
		}
		if res.ID == "P7-no-trim" && !strings.Contains(res.Got, "My_Server_") {
			t.Errorf("P7-no-trim: got %q at %s", res.Got, res.KilledBy)
		}
	}
	if !strings.Contains(progress.String(), "baseline: check ") {
		t.Errorf("progress:\n%s", progress.String())
	}
	emptyDir(t, tmp)
}
