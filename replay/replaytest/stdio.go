package replaytest

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/replay"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// EndTimeout bounds the wait, when the test ends, for a stdio replay to
// finish once its input is closed.
const EndTimeout = 10 * time.Second

// Stdio is a replay of a stdio recording served in the test's process:
// what a client writes to Writer is the server's stdin, what it reads
// from Reader the server's stdout.
type Stdio struct {
	Reader io.ReadCloser
	Writer io.WriteCloser
}

// Transport is the client's side as a go-sdk transport.
func (s *Stdio) Transport() mcp.Transport {
	return &mcp.IOTransport{Reader: s.Reader, Writer: s.Writer}
}

// NewStdio serves the stdio recording fixture for t with the default
// options; the test fails at its end with the replay's findings.
func NewStdio(t testing.TB, fixture string) *Stdio {
	t.Helper()
	return NewStdioOptions(t, fixture, replay.Options{})
}

// NewStdioOptions is NewStdio with replay options.
func NewStdioOptions(t testing.TB, fixture string, opts replay.Options) *Stdio {
	t.Helper()
	fx := load(t, fixture, fixtures.TransportStdio)
	inR, inW := io.Pipe()   // client to server
	outR, outW := io.Pipe() // server to client
	ctx, cancel := context.WithCancel(context.Background())
	type result struct {
		rep *replay.Report
		err error
	}
	done := make(chan result, 1)
	go func() {
		rep, err := replay.ServeStdio(ctx, fx, inR, outW, opts)
		_ = outW.Close() // the client reads EOF, as from a server that exited
		done <- result{rep, err}
	}()
	t.Cleanup(func() {
		t.Helper()
		_ = inW.Close() // the end of the server's input
		var res result
		select {
		case res = <-done:
		case <-time.After(EndTimeout):
			cancel()
			_ = inR.Close()
			res = <-done
			t.Errorf("replaytest: the replay of %s did not end within %s of the end of its input", fixture, EndTimeout)
		}
		cancel()
		_ = outR.Close()
		if res.err != nil && !errors.Is(res.err, replay.ErrDied) && !errors.Is(res.err, context.Canceled) {
			t.Errorf("replaytest: replay of %s: %v", fixture, res.err)
		}
		if res.rep != nil {
			judge(t, *res.rep)
		}
	})
	return &Stdio{Reader: outR, Writer: inW}
}
