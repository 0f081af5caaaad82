package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordDriftVolatile records the tick server (its answers change on
// every recording, its counter kept in a file) into a suite, over stdio
// and over HTTP started by the script's serve: record-suite --drift passes
// twice in a row with the changing fields named volatile, and fails,
// naming the path, when the field named is not the one that changed.
func TestRecordDriftVolatile(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, script string }{
		{"stdio", `{"upstreamCmd": "` + exe + ` ` + tickServer + ` --file {suite}/counter", "calls": []}`},
		{"http", `{"serve": "` + exe + ` ` + tickServer + ` --file {suite}/counter --http {addr}", "upstream": "http://{addr}/mcp", "calls": []}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeScript(t, dir, tc.script, []string{"content[0].text", "structuredContent.tick"})
			mustRun(t, 0, "record-suite", "--suite", dir)
			for i := range 2 {
				out := mustRun(t, 0, "record-suite", "--drift", "--suite", dir)
				for _, want := range []string{"ok     " + filepath.Join(dir, "fixtures", "tick", tc.name+".json"), "volatile field(s) changed",
					".result.structuredContent.tick (answer to tools/call tick)", "the 1 fixture(s) match"} {
					if !strings.Contains(out, want) {
						t.Errorf("drift %d: output lacks %q:\n%s", i+1, want, out)
					}
				}
			}
			writeScript(t, dir, tc.script, []string{"content[0].text"})
			out := mustRun(t, 1, "record-suite", "--drift", "--suite", dir)
			for _, want := range []string{"drift  ", "difference(s) outside the volatile fields", ".result.structuredContent.tick (answer to tools/call tick)",
				"stored: ", "fresh:  ", "1 of 1 fixture(s) drifted"} {
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "content[0].text (answer") {
				t.Errorf("a volatile field is reported as drift:\n%s", out)
			}
		})
	}
}

// writeScript writes the tick recording's call script: one call of tick
// with the given volatile fields.
func writeScript(t *testing.T, dir, script string, volatile []string) {
	t.Helper()
	var s map[string]any
	if err := json.Unmarshal([]byte(script), &s); err != nil {
		t.Fatal(err)
	}
	s["calls"] = []any{map[string]any{"tool": "tick", "args": map[string]any{}, "volatile": volatile}}
	data, _ := json.MarshalIndent(s, "", "  ")
	if err := os.MkdirAll(filepath.Join(dir, "scenarios"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "scenarios", "calls-tick.json"), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// mustRun runs a command line in process and fails unless it exits with
// code; it returns stdout and stderr.
func mustRun(t *testing.T, code int, args ...string) string {
	t.Helper()
	var out, errs bytes.Buffer
	if got := dispatch(context.Background(), args, &out, &errs); got != code {
		t.Fatalf("%s: exit %d, want %d\n%s%s", strings.Join(args, " "), got, code, out.String(), errs.String())
	}
	return out.String() + errs.String()
}

// TestRecordNamesTheUpstream: an HTTP upstream that is down, or a stdio
// command that is not there, is named as the user gave it, not as the
// recorder's own address or its 502 answer.
func TestRecordNamesTheUpstream(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--name", "web", "--upstream", down}, "web: upstream " + down + " is unreachable: connect: connection refused"},
		{[]string{"--name", "cli", "--upstream-cmd", "mcpparity-no-such-server --stdio"}, `cli: upstream command "mcpparity-no-such-server --stdio": mcpparity-no-such-server is not on PATH`},
	} {
		out := mustRun(t, 1, append([]string{"record-suite", "--suite", dir}, c.args...)...)
		if !strings.Contains(out, c.want) || strings.Contains(out, "Bad Gateway") || strings.Count(out, "\n") != 1 {
			t.Errorf("%q: want one line with %q, got:\n%s", c.args, c.want, out)
		}
	}
}
