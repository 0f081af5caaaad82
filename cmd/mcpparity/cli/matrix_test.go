package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
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
	code := dispatch(context.Background(), []string{"matrix", "--no-defaults", "--run", "^03-status$",
		"--target", "ref", "--target", "go=cmd:" + exe + " serve-ref --addr {addr} --state {state} --workspace {workspace}",
		"--markdown", md, "--html", html, "--json", js}, &out, &errs)
	if code != exitParity {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errs.String())
	}
	if !strings.Contains(out.String(), "03-status  pass  pass") {
		t.Errorf("table:\n%s", out.String())
	}
	for path, want := range map[string]string{
		md:   "| `03-status` | ✅ pass | ✅ pass |",
		html: `<td class="verdict pass"><span class="badge">✓</span>pass`,
		js:   `"name": "go"`,
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
