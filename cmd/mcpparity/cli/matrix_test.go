package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
)

// TestMatrix runs one scenario against the reference in process and as a
// command, and writes the three forms of the table.
func TestMatrix(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	md, html, js := filepath.Join(dir, "m.md"), filepath.Join(dir, "m.html"), filepath.Join(dir, "m.json")
	var out, errs bytes.Buffer
	code := dispatch(context.Background(), []string{"matrix", "--no-defaults", "--run", "^06-stdio$",
		"--target", "ref", "--target", "go=cmd:" + exe + " serve-ref --addr {addr} --state {state} --workspace {workspace}",
		"--markdown", md, "--html", html, "--json", js}, &out, &errs)
	if code != exitParity {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errs.String())
	}
	// Each target in each era: four columns. 06-stdio's golden files differ
	// by era: a cmd: target is told its era.
	if !regexp.MustCompile(`(?m)^06-stdio +pass +pass +pass +pass$`).MatchString(out.String()) {
		t.Errorf("table:\n%s", out.String())
	}
	for path, want := range map[string]string{
		md:   "| `06-stdio` | ✅ pass | ✅ pass | ✅ pass | ✅ pass |",
		html: `<td class="verdict pass"><span class="badge">✓</span>pass`,
		js:   `"name": "go 2026-07-28"`,
	} {
		data, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %q (%v):\n%s", path, want, err, data)
		}
	}
	out.Reset()
	if code := dispatch(context.Background(), []string{"matrix", "--no-defaults"}, &out, &out); code != exitCannotRun {
		t.Errorf("matrix without implementation: exit %d", code)
	}
}

// TestMatrixOneColumnPerTarget: a target given twice, or given as well as
// a default column, is one column.
func TestMatrixOneColumnPerTarget(t *testing.T) {
	dir := t.TempDir()
	js := filepath.Join(dir, "m.json")
	for _, args := range [][]string{{"--target", "ref"}, {"--target", "ref", "--target", "ref"}} {
		var out, errs bytes.Buffer
		code := dispatch(context.Background(), append([]string{"matrix", "--era", "2025-11-25", "--run", "^03-status$", "--json", js}, args...), &out, &errs)
		if code != exitParity {
			t.Fatalf("%q: exit %d\n%s%s", args, code, out.String(), errs.String())
		}
		data, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Columns []struct{ Name, Target string }
		}
		if err := json.Unmarshal(data, &m); err != nil {
			t.Fatal(err)
		}
		refs := 0
		for _, c := range m.Columns {
			if c.Target == "ref" {
				refs++
			}
		}
		if refs != 1 {
			t.Errorf("%q: %d reference columns: %+v\n%s", args, refs, m.Columns, out.String())
		}
	}

	abs, err := filepath.Abs("x/target.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		targets, files []string
		want           []matrixImpl
	}{
		{targets: []string{"ref", "ref"}, want: []matrixImpl{{name: "ref", spec: "ref"}}},
		// A name given for a spec already there names its column.
		{targets: []string{"ref", "mine=ref", "other=ref"}, want: []matrixImpl{{name: "mine", spec: "ref", named: true}}},
		{files: []string{"x/target.yaml", "./x/../x/target.yaml", abs}, want: []matrixImpl{{name: "x", file: "x/target.yaml"}}},
	} {
		if got := matrixImpls(true, c.targets, c.files); !reflect.DeepEqual(got, c.want) {
			t.Errorf("matrixImpls(%q, %q) = %+v, want %+v", c.targets, c.files, got, c.want)
		}
	}
}
