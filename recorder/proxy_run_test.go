package recorder_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/mcpparity/mcpparity/recorder"
)

// foreignSession is what a client sends a stdio server: initialize, then
// tools/list.
const foreignSession = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`

// clientStdin is a client's side of a stdio session: its input is
// foreignSession, which ends (the server's stdin closes) only once stdout
// holds the answer to its last request, as a client ends its server after
// the answers, however slow the server is to start.
func clientStdin(ctx context.Context) (io.Reader, *answerWatch) {
	w := &answerWatch{want: `"id":2,`, answered: make(chan struct{})}
	return &untilAnswered{r: strings.NewReader(foreignSession), w: w, ctx: ctx}, w
}

// answerWatch is the client's stdout; it tells when want was written.
type answerWatch struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	want     string
	answered chan struct{}
}

func (w *answerWatch) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	seen := strings.Contains(w.buf.String(), w.want)
	w.buf.Write(p)
	if !seen && strings.Contains(w.buf.String(), w.want) {
		close(w.answered)
	}
	return len(p), nil
}

func (w *answerWatch) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// untilAnswered reads r, then holds its end until w saw the answer or ctx
// ends.
type untilAnswered struct {
	r   io.Reader
	w   *answerWatch
	ctx context.Context
}

func (u *untilAnswered) Read(p []byte) (int, error) {
	n, err := u.r.Read(p)
	if err != io.EOF {
		return n, err
	}
	select {
	case <-u.w.answered:
		return n, io.EOF
	case <-u.ctx.Done():
		return n, u.ctx.Err()
	}
}

// TestRunProxyManifestNamesTheServer: a server that is not the go-sdk one,
// recorded without an SDK named, is not labelled go-sdk; its identity is
// what it announces.
func TestRunProxyManifestNamesTheServer(t *testing.T) {
	t.Setenv(envRole, "foreign-server")
	cfg := recorder.ProxyConfig{UpstreamCmd: os.Args[0] + " -test.run=^$", Fixture: recorder.Config{Name: "foreign"}}
	var stderr bytes.Buffer
	ctx := testContext(t)
	stdin, stdout := clientStdin(ctx)
	f, err := recorder.RunProxy(ctx, cfg, stdin, stdout, &stderr)
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	m := f.Manifest
	if m.SDKModule == recorder.GoSDKModule || m.Server != "mcp-servers/everything/2.0.0" || m.ToolCount != 1 || m.Name != "foreign" {
		t.Errorf("manifest: %+v", m)
	}
	if !strings.Contains(stdout.String(), `"mcp-servers/everything"`) {
		t.Errorf("the client did not get the server's answers: %s", stdout.String())
	}

	// The same with the SDK named: that is what the manifest says.
	cfg.Fixture.SDKModule, cfg.Fixture.SDKVersion = "@modelcontextprotocol/sdk", "1.20.0"
	stdin, stdout = clientStdin(ctx)
	f, err = recorder.RunProxy(ctx, cfg, stdin, stdout, &stderr)
	if err != nil || f.Manifest.SDKModule != "@modelcontextprotocol/sdk" || f.Manifest.SDKVersion != "1.20.0" {
		t.Errorf("named SDK: %v %+v", err, f)
	}
}

// TestRunProxyNeedsOneUpstream: neither or both upstreams is an error,
// before anything runs.
func TestRunProxyNeedsOneUpstream(t *testing.T) {
	for _, cfg := range []recorder.ProxyConfig{
		{Fixture: recorder.Config{Name: "x"}},
		{Upstream: "http://127.0.0.1:1/mcp", UpstreamCmd: "true", Fixture: recorder.Config{Name: "x"}},
	} {
		if _, err := recorder.RunProxy(testContext(t), cfg, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "exactly one") {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}
