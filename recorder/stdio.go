package recorder

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/childproc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultStopTimeout is how long a stdio server may take to exit once its
// stdin is closed before its process group is killed.
const DefaultStopTimeout = 5 * time.Second

// maxLineBytes bounds one stdio line.
const maxLineBytes = 64 << 20

// Stdio records a stdio server: it runs the server command and passes
// newline-delimited messages between a client and the server, recording each
// line in one order (a mutex-serialized log, a line being logged before it is
// passed on, so an answer never precedes what it answers).
type Stdio struct {
	cmd *exec.Cmd
	// StopTimeout overrides DefaultStopTimeout when positive.
	StopTimeout time.Duration
	// OnLine, if set, is told of each line once it is recorded, in the
	// recording's order.
	OnLine func(fixtures.Line)

	mu     sync.Mutex
	lines  []fixtures.Line
	stderr tailBuffer
	done   chan struct{}
	err    error
}

// NewStdio returns a recorder for the server that cmd starts. cmd must not
// be started; its Stdin and Stdout are taken over. When cmd.Stderr is nil the
// server's stderr is kept (its tail goes into errors); otherwise it is copied
// there as well.
func NewStdio(cmd *exec.Cmd) *Stdio {
	return &Stdio{cmd: cmd, done: make(chan struct{})}
}

// Recording returns a copy of the lines recorded so far.
func (s *Stdio) Recording() Recording {
	s.mu.Lock()
	defer s.mu.Unlock()
	return Recording{Transport: fixtures.TransportStdio, Lines: append([]fixtures.Line(nil), s.lines...)}
}

// Run starts the server and passes lines between the client (clientIn,
// clientOut) and the server until the client's input ends (the server's
// stdin is then closed and the server waited for), the server ends (an
// error naming the exit status and the tail of its stderr), or ctx is
// cancelled (the server is stopped; ctx.Err() is returned).
func (s *Stdio) Run(ctx context.Context, clientIn io.Reader, clientOut io.Writer) error {
	p, err := s.start()
	if err != nil {
		return err
	}
	return s.serve(ctx, p, clientIn, clientOut)
}

// Wait returns the outcome of a session started through Transport, once the
// server has stopped.
func (s *Stdio) Wait(ctx context.Context) error {
	select {
	case <-s.done:
		return s.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Transport returns an mcp.Transport that starts the server and records the
// session: an in-process client connects through it as through
// mcp.CommandTransport. Closing the client's connection ends the session;
// Wait reports how the server ended. One connection per Stdio.
func (s *Stdio) Transport() mcp.Transport { return stdioTransport{s} }

type stdioTransport struct{ s *Stdio }

func (t stdioTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	p, err := t.s.start()
	if err != nil {
		return nil, err
	}
	c2sR, c2sW := io.Pipe() // client to recorder
	s2cR, s2cW := io.Pipe() // recorder to client
	go func() {
		err := t.s.serve(context.Background(), p, c2sR, s2cW)
		s2cW.Close() // the client reads EOF
		c2sR.Close()
		t.s.err = err
		close(t.s.done)
	}()
	return (&mcp.IOTransport{Reader: s2cR, Writer: c2sW}).Connect(ctx)
}

// proc is a started server process.
type proc struct {
	stdin  io.WriteCloser
	stdout io.Reader
}

func (s *Stdio) start() (*proc, error) {
	stdin, err := s.cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("recorder: server %s: %w", s.name(), err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("recorder: server %s: %w", s.name(), err)
	}
	if s.cmd.Stderr == nil {
		s.cmd.Stderr = &s.stderr
	} else {
		s.cmd.Stderr = io.MultiWriter(s.cmd.Stderr, &s.stderr)
	}
	childproc.Own(s.cmd)
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("recorder: starting server %s: %w", s.name(), err)
	}
	return &proc{stdin, stdout}, nil
}

func (s *Stdio) serve(ctx context.Context, p *proc, clientIn io.Reader, clientOut io.Writer) error {
	// The client's outcome is sent before the server's stdin is closed, so
	// a server that ends on that EOF is never taken for one that died first.
	clientDone := make(chan error, 1)
	go func() {
		err := s.pump(clientIn, p.stdin, fixtures.DirSend)
		clientDone <- err
		p.stdin.Close()
	}()
	type ending struct{ pump, wait error }
	exited := make(chan ending, 1)
	go func() {
		err := s.pump(p.stdout, clientOut, fixtures.DirRecv)
		if err != nil {
			childproc.Kill(s.cmd) // it may be blocked writing the rest of its line
		}
		exited <- ending{err, s.cmd.Wait()}
	}()

	var stopping error
	select {
	case e := <-exited:
		if e.pump != nil {
			return e.pump
		}
		select {
		case cerr := <-clientDone:
			if cerr != nil {
				return cerr
			}
			if e.wait != nil {
				return fmt.Errorf("recorder: server %s failed after the client closed: %s%s", s.name(), exitText(e.wait), s.stderr.suffix())
			}
			return nil
		default:
		}
		return fmt.Errorf("recorder: server %s ended before the client did: %s%s", s.name(), exitText(e.wait), s.stderr.suffix())
	case stopping = <-clientDone:
	case <-ctx.Done():
		stopping = ctx.Err()
		p.stdin.Close()
	}
	timeout := s.StopTimeout
	if timeout <= 0 {
		timeout = DefaultStopTimeout
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case e := <-exited:
		if stopping != nil {
			return stopping
		}
		if e.pump != nil {
			return e.pump
		}
		if e.wait != nil {
			return fmt.Errorf("recorder: server %s failed after the client closed: %s%s", s.name(), exitText(e.wait), s.stderr.suffix())
		}
		return nil
	case <-t.C:
		childproc.Kill(s.cmd)
		e := <-exited
		if stopping != nil {
			return stopping
		}
		if e.pump != nil {
			return e.pump
		}
		// Some servers (server-everything) ignore their stdin's end: the
		// session was complete all the same.
		return nil
	}
}

// pump copies lines from r to w, recording each before passing it on. A
// failed write stops the passing, not the reading (a reader is drained so the
// writer on its other side never blocks). It ends at the end of r (nil) or
// at a line over maxLineBytes, which is neither recorded nor passed on (an
// error naming the side and the line).
func (s *Stdio) pump(r io.Reader, w io.Writer, dir string) error {
	br := bufio.NewReaderSize(r, 64<<10)
	writeOK := true
	var line []byte
	for n := 1; ; n++ {
		line = line[:0]
		var err error
		for {
			chunk, e := br.ReadSlice('\n')
			line = append(line, chunk...)
			if len(bytes.TrimRight(line, "\r\n")) > maxLineBytes {
				return s.tooLong(dir, n)
			}
			if e != bufio.ErrBufferFull {
				err = e
				break
			}
		}
		if msg := bytes.TrimRight(line, "\r\n"); len(bytes.TrimSpace(msg)) > 0 {
			l := fixtures.Line{Dir: dir, Message: jsonOrString(msg)}
			s.mu.Lock()
			s.lines = append(s.lines, l)
			if s.OnLine != nil {
				s.OnLine(l)
			}
			s.mu.Unlock()
		}
		if writeOK && len(line) > 0 {
			if _, werr := w.Write(line); werr != nil {
				writeOK = false
			}
		}
		if err != nil {
			return nil
		}
	}
}

func (s *Stdio) tooLong(dir string, n int) error {
	if dir == fixtures.DirSend {
		return fmt.Errorf("recorder: the client's line %d is over %d MiB, the limit of one recorded line: "+
			"it was not passed to server %s, and the recording stopped", n, maxLineBytes>>20, s.name())
	}
	return fmt.Errorf("recorder: server %s wrote a line over %d MiB (its line %d), the limit of one recorded line: "+
		"it was not passed to the client, the server was stopped", s.name(), maxLineBytes>>20, n)
}

func (s *Stdio) name() string {
	return fmt.Sprintf("%q", strings.Join(s.cmd.Args, " "))
}

func exitText(err error) string {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return "exit status 0 (stdout closed)"
	case errors.As(err, &ee):
		return ee.String()
	default:
		return err.Error()
	}
}

// tailBuffer keeps the last bytes of the server's stderr for errors.
type tailBuffer struct {
	mu  sync.Mutex
	buf []byte
}

const tailBytes = 2048

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > tailBytes {
		t.buf = append([]byte(nil), t.buf[len(t.buf)-tailBytes:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.buf))
	if s == "" {
		return ""
	}
	return " (stderr: " + s + ")"
}
