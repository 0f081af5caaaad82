package runner_test

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpparity/mcpparity/internal/cmdline"
	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
	"github.com/mcpparity/mcpparity/internal/verdict"
)

func TestParseTarget(t *testing.T) {
	for spec, want := range map[string]string{
		"":                   "ref",
		"ref":                "ref",
		"cmd:./f --a {addr}": "cmd:./f --a {addr}",
		"url:http://x:1/":    "url:http://x:1",
	} {
		tg, err := target.ParseTarget(spec)
		if err != nil || tg.Name() != want {
			t.Errorf("ParseTarget(%q) = %v, %v; want %s", spec, tg, err, want)
		}
	}
	for _, bad := range []string{"cmd:", "url:", "ftp:x", "cmd:'unterminated"} {
		if _, err := target.ParseTarget(bad); err == nil {
			t.Errorf("ParseTarget(%q) accepted", bad)
		}
	}
}

// TestComparePaths: differences are named by their path in the
// observations, as reports and deviations use them.
func TestComparePaths(t *testing.T) {
	want := []any{map[string]any{"body": map[string]any{"servers": []any{map[string]any{"error": "a", "x-y": 1}}}}}
	got := []any{map[string]any{"body": map[string]any{"servers": []any{map[string]any{"error": "b", "x-y": 2}}}}}
	var paths []string
	for _, d := range compare.Compare(want, got) {
		paths = append(paths, d.Path+"="+d.Want+"→"+d.Got)
	}
	wantPaths := []string{`[0].body.servers[0].error="a"→"b"`, `[0].body.servers[0]["x-y"]=1→2`}
	if diff := cmp.Diff(wantPaths, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	if d := compare.Compare([]any{1, 2}, []any{1}); len(d) != 1 || d[0].Got != "(absent)" {
		t.Errorf("missing element: %+v", d)
	}
}

func TestLoadTargetFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("t.yaml", "target: \"cmd:./facade {addr}\"\nenv: {A: b}\nstore: {seed: \"seed {state}\", dump: \"dump {state}\"}\ndeviations:\n  - {scenario: 09-*, path: \"*.error\", reason: transport text}\n")
	tf, err := target.LoadTargetFile(good)
	if err != nil || tf.Target != "cmd:./facade {addr}" || tf.Env["A"] != "b" || len(tf.Deviations) != 1 {
		t.Fatalf("LoadTargetFile = %+v, %v", tf, err)
	}
	if st, err := tf.StoreFor(); err != nil || st == nil {
		t.Errorf("StoreFor: %v", err)
	}
	// {dir} is the target file's folder, quoted when it must be.
	spaced := filepath.Join(dir, "a b")
	if err := os.MkdirAll(spaced, 0o755); err != nil {
		t.Fatal(err)
	}
	withDir := filepath.Join(spaced, "t.yaml")
	if err := os.WriteFile(withDir, []byte("target: \"cmd:node {dir}/main.js {addr}\"\nstore: {seed: \"node {dir}/main.js seed\", dump: \"d\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tf, err = target.LoadTargetFile(withDir)
	if err != nil || tf.Dir != spaced || tf.Target != "cmd:node '"+spaced+"'/main.js {addr}" || tf.Store.Seed != "node '"+spaced+"'/main.js seed" {
		t.Fatalf("{dir}: %+v %v", tf, err)
	}
	if words, err := cmdline.Split(strings.TrimPrefix(tf.Target, "cmd:")); err != nil || words[1] != spaced+"/main.js" {
		t.Errorf("cmdline.Split(%q) = %q, %v", tf.Target, words, err)
	}
	// Compiled-in mutants: a switch instead of a build.
	if tf, err := target.LoadTargetFile(write("switch.yaml", "mutants: {catalogue: m.json, switch: MUTANT}\n")); err != nil || tf.Mutants.Switch != "MUTANT" {
		t.Errorf("switch: %+v, %v", tf, err)
	}
	for name, body := range map[string]string{
		"unknown.json":   `{"target":"ref","nope":1}`,
		"halfstore.yaml": "store: {seed: x}\n",
		"nodev.yaml":     "deviations: [{scenario: a}]\n",
		"bad.json":       `{"target":`,
		"nobuild.yaml":   "mutants: {catalogue: m}\n",
		"both.yaml":      "mutants: {catalogue: m.json, build: b, switch: S}\n",
	} {
		if _, err := target.LoadTargetFile(write(name, body)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v, want one naming the file", name, err)
		}
	}
}

func TestLoadScenariosRejectsBadFiles(t *testing.T) {
	for name, body := range map[string]string{
		"01-unknown-field.json": `{"steps":[{"name":"s","kind":"request","method":"GET","path":"/"}],"nope":1}`,
		"02-empty-step.json":    `{"steps":[{"name":"s","kind":"observe"}]}`,
		"03-two-servers.json":   `{"servers":{"x":{"replay":"a","live":"sse"}},"steps":[]}`,
		"04-no-name.json":       `{"steps":[{"kind":"request","method":"GET","path":"/"}]}`,
		"05-both-counts.json":   `{"steps":[{"name":"s","kind":"request","method":"GET","path":"/","processes":["x"],"alive":["x"]}]}`,
		"06-bare-settle.json":   `{"steps":[{"name":"s","kind":"request","method":"GET","path":"/","settle":"1s"}]}`,
	} {
		fs := fstest.MapFS{name: {Data: []byte(body)}}
		if _, err := scenario.LoadScenarios(fs, "."); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: error %v, want one naming the file", name, err)
		}
	}
}

// TestEmbeddedData: every scenario and config change loads, there are
// sixteen changes, and every scenario but the fidelity ones has a golden
// file.
func TestEmbeddedData(t *testing.T) {
	scs, err := scenario.EmbeddedScenarios()
	if err != nil {
		t.Fatal(err)
	}
	muts, err := scenario.EmbeddedChanges()
	if err != nil {
		t.Fatal(err)
	}
	if len(muts) != 16 {
		t.Errorf("%d config mutations, want 16", len(muts))
	}
	for _, s := range scs {
		name := s.Name
		if s.SameAs != "" {
			name = s.SameAs
		}
		if _, err := scenario.EmbeddedGolden(name, ""); err != nil {
			t.Errorf("scenario %s: %v", s.Name, err)
		}
	}
	if !regexp.MustCompile(`^01-`).MatchString(scs[0].Name) {
		t.Errorf("scenarios not sorted: first is %s", scs[0].Name)
	}
}

// TestReportsAreUTF8: long differences of multi-byte text are cut on
// character boundaries in every report (terminal, Markdown, JUnit, JSON).
func TestReportsAreUTF8(t *testing.T) {
	long := strings.Repeat("é漢🙂", 300)
	diffs := compare.Compare(map[string]any{"out": long}, map[string]any{"out": long + "x"})
	if len(diffs) != 1 {
		t.Fatalf("diffs: %+v", diffs)
	}
	res := []report.Result{{Scenario: "01-pure", Verdict: verdict.Fail, Diffs: diffs, Logs: string([]byte(long)[:7])}}
	var term, md, junit, js bytes.Buffer
	report.WriteDetails(&term, res)
	report.WriteMarkdown(&md, "ref", res)
	if err := report.WriteJUnit(&junit, "ref", res); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteJSON(&js, "ref", "2025-11-25", res); err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"terminal": term.Bytes(), "markdown": md.Bytes(), "junit": junit.Bytes(), "json": js.Bytes()} {
		if !utf8.Valid(b) {
			t.Errorf("%s report is not valid UTF-8", name)
		}
	}
	if err := xml.Unmarshal(junit.Bytes(), new(struct{})); err != nil {
		t.Errorf("JUnit does not parse: %v", err)
	}
	if !strings.Contains(md.String(), "**0 passed, 1 failed, 0 accepted, 0 errors**") {
		t.Errorf("Markdown lacks its totals line:\n%s", md.String())
	}
	for i := 0; i < 10; i++ {
		if c := compare.Clip(long, i); !utf8.ValidString(c) {
			t.Errorf("Clip(%d) = %q", i, c)
		}
	}
}
