package replay

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
)

// TestStdioTailRequestIsOptional: a server request sent after the
// server's last answer, whose recorded answer came last, is a race
// between the client's answer and its close (server-everything's
// roots/list on a timer): a client that closes first is no missing
// answer, one that answers is not counted, and a request the client
// still awaited something after stays awaited.
func TestStdioTailRequestIsOptional(t *testing.T) {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{}},"clientInfo":{"name":"c","version":"1"}}}`
	initOK := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"a","arguments":{}}}`
	callOK := `{"jsonrpc":"2.0","id":2,"result":{"content":[]}}`
	roots := `{"jsonrpc":"2.0","id":0,"method":"roots/list"}`
	rootsOK := `{"jsonrpc":"2.0","id":0,"result":{"roots":[]}}`
	fixture := func(lines ...string) *fixtures.Fixture {
		fx := &fixtures.Fixture{Format: fixtures.FormatVersion, Manifest: fixtures.Manifest{Name: "tail", Transport: fixtures.TransportStdio}}
		for _, l := range lines {
			dir := fixtures.DirRecv
			if strings.Contains(l, `"method":"initialize"`) || strings.Contains(l, `"method":"tools/call"`) || l == rootsOK {
				dir = fixtures.DirSend
			}
			fx.Stdio = append(fx.Stdio, fixtures.Line{Dir: dir, Message: json.RawMessage(l)})
		}
		return fx
	}
	tail := fixture(init, initOK, call, callOK, roots, rootsOK)
	inside := fixture(init, initOK, call, roots, rootsOK, callOK)
	for _, c := range []struct {
		name          string
		fx            *fixtures.Fixture
		answer        bool
		answers, miss int
	}{
		{"tail, closed first", tail, false, 0, 0},
		{"tail, answered", tail, true, 0, 0},
		{"inside a call, not answered", inside, false, 0, 1},
		{"inside a call, answered", inside, true, 1, 0},
	} {
		opts := Options{AnswerTimeout: time.Minute}
		if c.fx == inside && !c.answer {
			opts.AnswerTimeout = 10 * time.Millisecond // the call's answer waits for it
		}
		rep := serveLines(t, c.fx, opts, []string{init, call}, c.answer, rootsOK)
		if rep.Answers != c.answers || len(rep.MissingAnswers) != c.miss {
			t.Errorf("%s: %d answer(s), missing %v; want %d and %d missing", c.name, rep.Answers, rep.MissingAnswers, c.answers, c.miss)
		}
	}
}

// serveLines serves fx to a client that sends lines, each once the
// replay wrote the answer to the one before; told to answer, it answers
// the server's roots/list (awaited after its last line's answer when the
// script sends it last), then it closes.
func serveLines(t *testing.T, fx *fixtures.Fixture, opts Options, lines []string, answer bool, rootsAnswer string) *Report {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan *Report, 1)
	go func() {
		rep, _ := ServeStdio(testCtx(t), fx, inR, outW, opts)
		outW.Close()
		done <- rep
	}()
	r := bufio.NewReader(outR)
	for _, line := range lines {
		io.WriteString(inW, line+"\n")
		for {
			got, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(got, `"method":"roots/list"`) {
				if answer {
					io.WriteString(inW, rootsAnswer+"\n")
				}
				continue
			}
			break
		}
	}
	if answer && fx.Stdio[len(fx.Stdio)-1].Message != nil && string(fx.Stdio[len(fx.Stdio)-2].Message) == `{"jsonrpc":"2.0","id":0,"method":"roots/list"}` {
		if got, err := r.ReadString('\n'); err != nil || !strings.Contains(got, "roots/list") {
			t.Fatalf("after the last answer: %q %v", got, err)
		}
		io.WriteString(inW, rootsAnswer+"\n")
	}
	inW.Close()
	go io.Copy(io.Discard, r)
	return <-done
}
