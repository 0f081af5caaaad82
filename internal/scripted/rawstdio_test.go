package scripted_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpparity/mcpparity/internal/scripted"
	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/mcpparity/mcpparity/replay"
)

// stdioVariant writes each client line its own way.
type stdioVariant struct {
	name  string
	write func(w io.Writer, line string) error
}

// writeAll writes the pieces one Write each (an io.Pipe hands each to one
// Read of the server).
func writeAll(w io.Writer, pieces ...string) error {
	for _, p := range pieces {
		if _, err := io.WriteString(w, p); err != nil {
			return err
		}
	}
	return nil
}

var stdioVariants = []stdioVariant{
	{"LF", func(w io.Writer, l string) error { return writeAll(w, l+"\n") }},
	{"CRLF", func(w io.Writer, l string) error { return writeAll(w, l+"\r\n") }},
	{"blank lines", func(w io.Writer, l string) error { return writeAll(w, "\n", l+"\n", "\r\n", "\n") }},
	{"split writes", func(w io.Writer, l string) error { return writeAll(w, l[:5], l[5:len(l)/2], l[len(l)/2:], "\n") }},
}

// stdioClient runs the conversation on a server's stdin and stdout.
type stdioClient struct {
	t   *testing.T
	v   stdioVariant
	in  io.Writer
	out *bufio.Reader
	n   int
}

// request sends a request and reads to its answer, answering server
// requests; it returns what it saw.
func (c *stdioClient) request(step, method, params string) outcome {
	c.n++
	line := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q`, c.n, method)
	if params != "" {
		line += `,"params":` + params
	}
	if err := c.v.write(c.in, line+"}"); err != nil {
		c.t.Fatalf("%s: %v", step, err)
	}
	o := outcome{Step: step, Kind: "line"}
	for {
		raw, err := c.out.ReadBytes('\n')
		if err != nil {
			c.t.Fatalf("%s: reading the answer: %v", step, err)
		}
		var msg map[string]any
		if err := json.Unmarshal(raw, &msg); err != nil {
			c.t.Fatalf("%s: not JSON: %q", step, raw)
		}
		if m, ok := msg["method"].(string); ok {
			o.Events = append(o.Events, "request "+m)
			if id, ok := msg["id"]; ok {
				b, _ := json.Marshal(id)
				_ = c.v.write(c.in, `{"jsonrpc":"2.0","id":`+string(b)+`,"result":{}}`)
			}
			continue
		}
		if id, _ := msg["id"].(float64); int(id) == c.n {
			o.Answer = answerOf(msg)
			return o
		}
	}
}

func (c *stdioClient) converse(calls []scripted.Call) []outcome {
	out := []outcome{c.request("initialize", "initialize", initParams)}
	if err := c.v.write(c.in, `{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`); err != nil {
		c.t.Fatal(err)
	}
	out = append(out, c.request("tools/list", "tools/list", ""))
	for _, call := range calls {
		params, _ := json.Marshal(map[string]any{"name": call.Tool, "arguments": call.Args})
		out = append(out, c.request("call "+call.Tool, "tools/call", string(params)))
	}
	return out
}

// runStdio runs the conversation against serve (a server on stdin and
// stdout that returns at the end of its input).
func runStdio(t *testing.T, v stdioVariant, calls []scripted.Call, serve func(ctx context.Context, in io.Reader, out io.Writer)) []outcome {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		serve(ctx, inR, outW)
		outW.Close()
		inR.Close()
	}()
	c := &stdioClient{t: t, v: v, in: inW, out: bufio.NewReader(outR)}
	out := c.converse(calls)
	inW.Close()
	_, _ = io.Copy(io.Discard, outR)
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("the server did not end with its input")
	}
	return out
}

// TestRawClientStdio: lines ended by CRLF, blank lines between them and
// lines written in pieces are read alike by the live server and by the
// replay of its recording.
func TestRawClientStdio(t *testing.T) {
	calls := recordedCalls(t)
	fx := embedded(t, "sdk/stdio.json")
	for _, v := range stdioVariants {
		t.Run(v.name, func(t *testing.T) {
			live := runStdio(t, v, calls, func(ctx context.Context, in io.Reader, out io.Writer) {
				if err := sdkserver.ServeStdio(ctx, in, out); err != nil {
					t.Errorf("live server: %v", err)
				}
			})
			var rep *replay.Report
			got := runStdio(t, v, calls, func(ctx context.Context, in io.Reader, out io.Writer) {
				var err error
				if rep, err = replay.ServeStdio(ctx, fx, in, out, replay.Options{}); err != nil {
					t.Errorf("replay: %v", err)
				}
			})
			if d := cmp.Diff(live, got); d != "" {
				t.Errorf("the replay answers otherwise than the live server (-live +replay):\n%s", d)
			}
			if rep == nil || !rep.Clean() {
				t.Errorf("replay report: %v", rep)
			}
		})
	}
}
