package cli

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// TestMain makes the test binary the mcpparity binary when it is started
// with a subcommand (the stdio recorder and servers re-execute it).
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == tickServer {
		os.Exit(runTickServer(os.Args[2:]))
	}
	if code, ran := RunIfSubcommand(os.Args[1:]); ran {
		os.Exit(code)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		if builtDir != "" {
			os.RemoveAll(builtDir)
		}
		os.Exit(code)
	}))
}

// dispatch runs a command line in process, on an empty stdin.
func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return Dispatch(ctx, args, strings.NewReader(""), stdout, stderr)
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestRecordDrift: `record --drift` passes on the committed fixtures and
// fails, with a diff naming the file and the path, after one byte is
// changed.
func TestRecordDrift(t *testing.T) {
	dir := t.TempDir()
	copyTree(t, filepath.Join(repoRoot, "fixtures", "recordings"), dir)
	var out, errs bytes.Buffer
	if code := dispatch(context.Background(), []string{"record", "--drift", "--out", dir}, &out, &errs); code != 0 {
		t.Fatalf("clean tree: exit %d\n%s%s", code, out.String(), errs.String())
	}
	path := filepath.Join(dir, "sdk", "json.json")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	i := bytes.Index(data, []byte(`"mcpparity-sdk-server"`))
	data[i+1] = 'M' // one byte
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errs.Reset()
	if code := dispatch(context.Background(), []string{"record", "--drift", "--out", dir}, &out, &errs); code != 1 {
		t.Fatalf("changed byte: exit %d, want 1\n%s%s", code, out.String(), errs.String())
	}
	for _, want := range []string{"drift  " + filepath.Join(dir, "sdk", "json.json"), "exchanges[0].response.body.result.serverInfo.name", `"Mcpparity-sdk-server"`, "stored: ", "fresh:  ", "ok     " + filepath.Join(dir, "sdk", "sse.json")} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

// TestServeRef starts `mcpparity serve-ref` as a process, calls every route
// of the contract, and stops it with SIGINT.
func TestServeRef(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "serve-ref", "--addr", "127.0.0.1:0", "--state", t.TempDir(), "--workspace", t.TempDir())
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(s)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	var base string
	select {
	case addr := <-line:
		base = "http://" + addr
	case <-time.After(10 * time.Second):
		t.Fatalf("no address printed; stderr: %s", stderr.String())
	}
	client := &http.Client{Timeout: 10 * time.Second}
	for _, c := range []struct {
		method, path, body string
		status             int
		contains           string
	}{
		{"GET", "/api/mcp", "", 200, `"servers":null`},
		{"GET", "/api/mcp/catalog", "", 200, `"id":"filesystem"`},
		{"POST", "/api/mcp/save", `{"name":"gone","command":"mcpparity-missing-server"}`, 200, `executable file not found`},
		{"POST", "/api/mcp/toggle", `{"name":"gone","on":false}`, 200, `"enabled":false`},
		{"POST", "/api/mcp/tool", `{"name":"gone","tool":"x","on":false}`, 200, `"disabled":["x"]`},
		{"POST", "/api/mcp/test", `{"name":"gone"}`, 200, `"name":"gone"`},
		{"POST", "/internal/facade/v1/mcp/tools", `{}`, 200, `"tools":[]`},
		{"POST", "/internal/facade/v1/mcp/call", `{"name":"mcp__gone__x","args":{"path":"/a"}}`, 200, `"label":"/a"`},
		{"POST", "/internal/facade/v1/mcp/prewarm", `{}`, 202, `"ok":true`},
		{"POST", "/api/mcp/delete", `{"name":"gone"}`, 200, `{"ok":true}`},
		{"POST", "/api/mcp/delete", `{"name":"gone"}`, 400, `serveur MCP inconnu: gone`},
		{"POST", "/api/mcp/save", `{bad`, 400, `"ok":false`},
		{"DELETE", "/api/mcp", "", 405, `"ok":false`},
		{"POST", "/api/mcp/save", `{"name":"` + strings.Repeat("x", 2<<20) + `"}`, 413, `"ok":false`},
	} {
		req, _ := http.NewRequest(c.method, base+c.path, strings.NewReader(c.body))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", c.method, c.path, err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != c.status || !strings.Contains(string(body), c.contains) {
			t.Errorf("%s %s = %d %.200s; want %d with %s", c.method, c.path, resp.StatusCode, body, c.status, c.contains)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Errorf("serve-ref did not exit cleanly on SIGINT: %v\n%s", err, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("serve-ref did not stop on SIGINT")
	}
}
