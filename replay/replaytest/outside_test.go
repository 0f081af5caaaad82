package replaytest_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// outsideTest is a test of a module outside this repository: it holds a
// replay of an embedded fixture and calls a tool with the go-sdk client;
// with BREAK set it calls one the fixture lacks.
const outsideTest = `package outside

import (
	"context"
	"os"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcpparity/mcpparity/replay/replaytest"
)

func TestEcho(t *testing.T) {
	srv := replaytest.NewServer(t, "sdk/json.json")
	c := mcp.NewClient(&mcp.Implementation{Name: "outside", Version: "1"}, nil)
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	name := "echo"
	if os.Getenv("BREAK") != "" {
		name = "echoes"
	}
	_, _ = s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{"message": "Bonjour 🙂 — parité"}})
}
`

// TestOutsideModule: a module of its own imports replaytest (its go.mod
// replaces this repository by its folder); its test passes, and fails,
// naming the request, when it sends one the fixture lacks.
func TestOutsideModule(t *testing.T) {
	goBin := filepath.Join(runtime.GOROOT(), "bin", "go")
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"go.mod": "module example.com/outside\n\ngo 1.26\n\nrequire github.com/mcpparity/mcpparity v0.0.0\n\n" +
			"replace github.com/mcpparity/mcpparity => " + repo + "\n",
		"go.sum":          string(sum),
		"outside_test.go": outsideTest,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goTest := func(env ...string) (string, error) {
		cmd := exec.Command(goBin, "test", "-count=1", "-mod=mod", ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), env...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	if out, err := goTest(); err != nil {
		t.Fatalf("the outside module's test: %v\n%s", err, out)
	}
	out, err := goTest("BREAK=1")
	if err == nil || !strings.Contains(out, `unmatched: replay: unmatched tools/call "echoes"`) || !strings.Contains(out, "--- FAIL: TestEcho") {
		t.Fatalf("a request the fixture lacks: %v, want TestEcho to fail naming it\n%s", err, out)
	}
}
