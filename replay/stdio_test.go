package replay

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// stdioPipe runs ServeStdio in process behind two pipes.
type stdioPipe struct {
	w    *io.PipeWriter
	r    *bufio.Reader
	done chan struct{}
	rep  *Report
	err  error
}

func startStdio(t *testing.T, opts Options) *stdioPipe {
	fx := load(t, "stdio.json")
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &stdioPipe{w: inW, r: bufio.NewReader(outR), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.rep, p.err = ServeStdio(testCtx(t), fx, inR, outW, opts)
		outW.Close()
		inR.Close()
	}()
	t.Cleanup(func() { inW.Close(); <-p.done })
	return p
}

func (p *stdioPipe) send(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

func (p *stdioPipe) recv(t *testing.T) string {
	t.Helper()
	line, err := p.r.ReadString('\n')
	if err != nil {
		t.Fatalf("recv: %v", err)
	}
	return strings.TrimSuffix(line, "\n")
}

func (p *stdioPipe) end(t *testing.T) *Report {
	t.Helper()
	p.w.Close()
	go io.Copy(io.Discard, p.r)
	<-p.done
	return p.rep
}

func TestStdioRaw(t *testing.T) {
	p := startStdio(t, Options{})
	p.send(t, `{"jsonrpc":"2.0","id":"d","method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"probe-client","version":"x"},"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}}}}}`)
	if got := p.recv(t); got != `{"jsonrpc":"2.0","id":"d","error":{"code":-32601,"message":"Method not found"}}` {
		t.Fatalf("discover: %s", got)
	}
	p.send(t, `{"jsonrpc":"2.0","id":10,"method":"initialize","params":{"clientInfo":{"name":"probe-client","version":"x"},"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}}}}`)
	if got := p.recv(t); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":10,"result":{"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %s", got)
	}
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	p.send(t, `{"jsonrpc":"2.0","id":11,"method":"tools/list","params":{}}`)
	for i := 0; i < 2; i++ {
		if got := p.recv(t); got != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
			t.Fatalf("notification %d: %s", i, got)
		}
	}
	// The server asks for roots inside tools/list and answers once it has them.
	if got := p.recv(t); got != `{"jsonrpc":"2.0","id":0,"method":"roots/list"}` {
		t.Fatalf("server request: %s", got)
	}
	p.send(t, `{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}`)
	if got := p.recv(t); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":11,"result":{"tools":[{"name":"echo"`) {
		t.Fatalf("tools/list: %s", got)
	}
	p.send(t, `{"jsonrpc":"2.0","id":12,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`)
	if got := p.recv(t); got != `{"jsonrpc":"2.0","id":12,"result":{"content":[{"type":"text","text":"Echo: hello"}]}}` {
		t.Fatalf("call: %s", got)
	}
	p.send(t, `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"echo","arguments":{"message":"bye"}}}`)
	if got := p.recv(t); !strings.Contains(got, `"code":-32600`) || !strings.Contains(got, `closest recorded interaction is #12 tools/call \"echo\", differing at params.arguments.message`) {
		t.Fatalf("unmatched: %s", got)
	}
	rep := p.end(t)
	if p.err != nil {
		t.Fatal(p.err)
	}
	if rep.Sessions != 1 || rep.Calls != 1 || rep.Answers != 1 || len(rep.Unmatched) != 1 {
		t.Fatalf("report:\n%s", rep.String())
	}
	if len(rep.Unused) != 1 || rep.Unused[0].Label != `tools/call "get-sum"` || rep.Unused[0].Seq != 14 {
		t.Fatalf("unused:\n%s", rep.String())
	}
}

func TestStdioDieInProcess(t *testing.T) {
	f, _ := ParseFault("die:1")
	p := startStdio(t, Options{Faults: []Fault{f}})
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`)
	if _, err := p.r.ReadString('\n'); err != io.EOF {
		t.Fatalf("stream after die: %v", err)
	}
	<-p.done
	if !errors.Is(p.err, ErrDied) || len(p.rep.Faults) != 1 {
		t.Fatalf("%v %+v", p.err, p.rep)
	}
}

func TestStdioContextEnds(t *testing.T) {
	fx := load(t, "stdio.json")
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ServeStdio(ctx, fx, inR, io.Discard, Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("got %v", err)
	}
}

func TestStdioRejectsHTTPOnlyOptions(t *testing.T) {
	fx := load(t, "stdio.json")
	f, _ := ParseFault("session-expired:1")
	if _, err := ServeStdio(testCtx(t), fx, strings.NewReader(""), io.Discard, Options{Faults: []Fault{f}}); err == nil {
		t.Fatal("session-expired accepted over stdio")
	}
	if _, err := New(fx, Options{}); err == nil {
		t.Fatal("a stdio fixture accepted over HTTP")
	}
}

// sdkStdio connects a go-sdk client to this test binary run as
// `mcpparity replay --stdio` with the faults (space-separated).
func sdkStdio(t *testing.T, faults string) (*mcp.ClientSession, string) {
	t.Helper()
	abs, _ := filepath.Abs("testdata/stdio.json")
	report := filepath.Join(t.TempDir(), "report.json")
	args := []string{"--stdio", "--fixture", abs, "--report", report}
	for _, f := range strings.Fields(faults) {
		args = append(args, "--fault", f)
	}
	cmd := replayCmd(t, args...)
	c := mcp.NewClient(&mcp.Implementation{Name: "probe-client", Version: "1"}, nil)
	cs, err := c.Connect(testCtx(t), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return cs, report
}

func readReport(t *testing.T, path string) Report {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r Report
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSDKStdio(t *testing.T) {
	cs, report := sdkStdio(t, "")
	ctx := testCtx(t)
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 2 {
		t.Fatal(tools, err)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello"}})
	if err != nil || text(t, res) != "Echo: hello" {
		t.Fatal(res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 3}})
	if err != nil || text(t, res) != "The sum of 2 and 3 is 5." {
		t.Fatal(res, err)
	}
	if err := cs.Close(); err != nil {
		t.Fatal(err)
	}
	rep := readReport(t, report)
	// The go-sdk client answers roots/list on its own.
	if !rep.Clean() || len(rep.Unused) != 0 || rep.Answers != 1 || rep.Calls != 2 {
		t.Fatalf("report:\n%s", rep.String())
	}
}

func TestSDKStdioDie(t *testing.T) {
	cs, report := sdkStdio(t, "die:2")
	ctx := testCtx(t)
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "get-sum", Arguments: map[string]any{"a": 2, "b": 3}}); err == nil {
		t.Fatal("call to a dead server succeeded")
	}
	cs.Close()
	if rep := readReport(t, report); len(rep.Faults) != 1 || rep.Faults[0] != `die:2 at tools/call "get-sum"` {
		t.Fatalf("report:\n%s", rep.String())
	}
}

func TestStdioMissingAnswer(t *testing.T) {
	p := startStdio(t, Options{AnswerTimeout: 10 * time.Millisecond})
	p.send(t, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	for {
		got := p.recv(t)
		if strings.Contains(got, `"tools"`) {
			break // answered after the deadline, nothing hangs
		}
	}
	rep := p.end(t)
	if len(rep.MissingAnswers) != 1 || rep.MissingAnswers[0].Method != "roots/list" || !strings.HasPrefix(rep.MissingAnswers[0].Problem, "no answer within") {
		t.Fatalf("report:\n%s", rep.String())
	}
}

// TestStdioIDReused: a request that reuses an earlier request's id on the
// same connection is reported (and still answered).
func TestStdioIDReused(t *testing.T) {
	p := startStdio(t, Options{})
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"probe-client","version":"x"},"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}}}}}`)
	p.recv(t)
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"probe-client","version":"x"},"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}}}}`)
	if got := p.recv(t); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25"`) {
		t.Fatalf("initialize: %s", got)
	}
	rep := p.end(t)
	if len(rep.Unmatched) != 1 || !strings.Contains(rep.Unmatched[0].Message, "initialize reuses the request id 1 of an earlier request") {
		t.Fatalf("report:\n%s", rep.String())
	}
}

// TestStdioBeforeInitialized: a request after initialize but before
// notifications/initialized is reported; a cancellation that names a
// request's id in another JSON type is too.
func TestStdioBeforeInitialized(t *testing.T) {
	p := startStdio(t, Options{})
	p.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"clientInfo":{"name":"probe-client","version":"x"},"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}}}}`)
	p.recv(t)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello"}}}`)
	p.recv(t)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"2"}}`)
	rep := p.end(t)
	var got []string
	for _, u := range rep.Unmatched {
		got = append(got, u.Message)
	}
	all := strings.Join(got, "\n")
	for _, want := range []string{"tools/call before notifications/initialized", `names the request id "2", where the request's id was 2`} {
		if !strings.Contains(all, want) {
			t.Errorf("report lacks %q:\n%s", want, rep.String())
		}
	}
}
