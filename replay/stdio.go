package replay

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/mcpparity/mcpparity/fixtures"
)

// ErrDied is returned by ServeStdio when a die (or cut-stream) fault fired:
// the server "died" mid-call and its stream ended.
var ErrDied = errors.New("replay: server died (fault)")

// stdioIndex is a stdio fixture prepared for replay.
type stdioIndex struct {
	startup *interaction // what the server sent before any client message
	// procs is the number of server processes recorded (one per client).
	procs int
	discovery
	probes map[string]*stdioProbe
	lacks  *lacks
}

// procKey is the part of a match key that names the recorded server
// process an interaction belongs to: a replay process serves the client
// as one of them (chosen by its first message).
func procKey(proc int) string { return "p" + strconv.Itoa(proc) + " " }

// buildStdio turns the lines into interactions. A recorded server message
// belongs to the last client message before it of its process (it is
// replayed when that message is matched), except the answer to a client
// request, which belongs to that request. The lines a later process
// wrote before its client's first line are not replayed.
func buildStdio(e *engine, fx *fixtures.Fixture) (*stdioIndex, error) {
	msgs := make([]*message, len(fx.Stdio))
	for i, l := range fx.Stdio {
		if m, ok := rawText(l.Message); ok {
			msgs[i] = m // a line that was not JSON: replayed as is, never matched
			continue
		}
		m, err := parseMessage(l.Message)
		if err != nil {
			return nil, fmt.Errorf("%s: lines[%d] (%s): %v", e.name, i, l.Dir, err)
		}
		msgs[i] = m
	}
	ix := &stdioIndex{startup: &interaction{seq: 0, pos: -1, label: "server messages before any client message", proc: 1},
		procs: 1, discovery: newDiscovery()}
	var recorded []json.RawMessage
	for _, l := range fx.Stdio {
		recorded = append(recorded, l.Message)
	}
	ix.lacks = newLacks(recorded)
	var err error
	if ix.probes, err = buildStdioProbes(e, fx.Probes); err != nil {
		return nil, err
	}
	answers := map[int]*interaction{}
	for i, l := range fx.Stdio {
		if l.Dir == fixtures.DirSend && msgs[i].isResponse() {
			it := &interaction{seq: i + 1, pos: i, label: fmt.Sprintf("client answer (id %s)", msgs[i].id), proc: l.ProcessOf()}
			answers[i] = it
			e.answers.put(msgs[i].id, it)
		}
	}
	lastAnswer := map[int]int{} // process -> index of the server's last answer to its client
	for i, l := range fx.Stdio {
		if l.Dir == fixtures.DirRecv && msgs[i].isResponse() {
			lastAnswer[l.ProcessOf()] = i
		}
	}
	var all []*interaction
	trigger := ix.startup
	lastSend := -1
	calls := map[string]*interaction{} // client requests waiting for their answer
	for i, l := range fx.Stdio {
		m := msgs[i]
		if p := l.ProcessOf(); p != ix.procs {
			ix.procs, trigger, calls = p, &interaction{}, map[string]*interaction{}
		}
		if m.method == "" && m.id == nil { // not JSON
			if l.Dir == fixtures.DirRecv {
				trigger.script.add(step{kind: stepEmit, m: m, at: lastSend, seq: i + 1})
			}
			continue
		}
		if l.Dir == fixtures.DirSend {
			lastSend = i
			if m.isResponse() {
				trigger = answers[i]
				all = append(all, trigger)
				continue
			}
			it := &interaction{seq: i + 1, pos: i, proc: ix.procs}
			if err := e.keyed(it, m); err != nil {
				return nil, fmt.Errorf("%s: lines[%d]: %v", e.name, i, err)
			}
			it.key = procKey(ix.procs) + it.key
			if m.isRequest() {
				calls[string(m.id)] = it
			}
			trigger = it
			all = append(all, it)
			continue
		}
		if m.isResponse() {
			if it := calls[string(m.id)]; it != nil {
				delete(calls, string(m.id))
				it.script.add(step{kind: stepRespond, m: m, at: lastSend, seq: i + 1})
				if it.method == "server/discover" {
					ix.add(fixtures.Response{Body: l.Message})
				}
				continue
			}
		}
		st := step{kind: stepEmit, m: m, at: lastSend, seq: i + 1}
		if m.isRequest() {
			st.answer = e.answers.claim(m.id, i)
			st.tail = st.answer != nil && st.answer.pos > lastAnswer[ix.procs]
		}
		trigger.script.add(st)
	}
	ix.startup.script.finish()
	for _, it := range all {
		it.script.finish()
		e.addInteraction(it)
	}
	e.done()
	return ix, nil
}

// ServeStdio serves a stdio recording on in (client to server) and out
// (server to client), one JSON-RPC message a line, until in ends (nil
// error), ctx ends (ctx.Err()) or a die fault fires (ErrDied). The report
// is complete when it returns. A goroutine reading in may stay blocked in
// in.Read until in is closed when ServeStdio returns because of ctx.
func ServeStdio(ctx context.Context, fx *fixtures.Fixture, in io.Reader, out io.Writer, opts Options) (*Report, error) {
	if fx == nil {
		return nil, errors.New("replay: nil fixture")
	}
	name := fx.Manifest.Name
	if err := fx.Validate(); err != nil {
		return nil, fmt.Errorf("fixture %s: %w", name, err)
	}
	if fx.Manifest.Transport != fixtures.TransportStdio {
		return nil, fmt.Errorf("fixture %s: transport %q, want %q", name, fx.Manifest.Transport, fixtures.TransportStdio)
	}
	for _, f := range opts.Faults {
		if f.Kind == FaultSessionExpired {
			return nil, fmt.Errorf("fault %s: stdio has no sessions", f)
		}
		if f.Kind == FaultStatus {
			return nil, fmt.Errorf("fault %s: stdio has no HTTP status", f)
		}
	}
	if len(opts.RequireHeaders) > 0 {
		return nil, errors.New("replay: RequireHeaders applies to HTTP only")
	}
	e, err := newEngine(name, opts)
	if err != nil {
		return nil, err
	}
	ix, err := buildStdio(e, fx)
	if err != nil {
		return nil, err
	}
	s := &stdioConn{e: e, ix: ix, p: newPeer(), w: bufio.NewWriter(out)}
	s.ctx, s.cancel = context.WithCancel(ctx)
	// Held requests (delays, barriers) wait no longer than the input lasts:
	// a client that closed stdin waits for nothing.
	var inputDone context.CancelFunc
	s.holdCtx, inputDone = context.WithCancel(s.ctx)
	defer inputDone()
	s.inputDone = inputDone
	err = s.serve(ix, in)
	if err != nil {
		s.cancel() // ctx ended or the server died: drop what is in flight
	}
	// At the end of input, answers in flight are still written; waits for
	// the client's answers end at once (reported as missing).
	s.p.close()
	s.wg.Wait()
	s.cancel()
	r := e.report()
	return &r, err
}

type stdioConn struct {
	e    *engine
	ix   *stdioIndex
	proc int // the recorded process serving the client; 0 until its first message
	// cands are the recorded processes that answered every message so
	// far (proc is the first).
	cands  []int
	p      *peer
	ctx    context.Context
	cancel context.CancelFunc
	// holdCtx ends with ctx or when the input ends (inputDone).
	holdCtx   context.Context
	inputDone context.CancelFunc
	wg        sync.WaitGroup

	wmu sync.Mutex
	w   *bufio.Writer

	// ids are the ids of the client's requests so far (compact JSON):
	// MCP forbids a requestor to use one twice in a session.
	ids map[string]bool
	// handshake: an initialize came; initialized: then the client's
	// notifications/initialized.
	handshake, initialized bool
}

// noteID reports a request whose id the client used before on this
// connection (a fallback initialize that reuses its server/discover's id,
// say): MCP forbids it, and the go-sdk keeps counting.
func (s *stdioConn) noteID(in *incoming) {
	if !in.isRequest() {
		return
	}
	id := string(compactJSON(in.ID))
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	if s.ids[id] {
		s.e.unmatched(in.Method, fmt.Sprintf("replay: %s reuses the request id %s of an earlier request of this connection", in.Method, id))
	}
	s.ids[id] = true
}

func (s *stdioConn) write(_ *step, data []byte) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.ctx.Err() != nil {
		return s.ctx.Err()
	}
	s.w.Write(data)
	s.w.WriteByte('\n')
	return s.w.Flush()
}

// play runs a script in the background, after delay.
func (s *stdioConn) play(sc *script, id []byte, delay func() bool) {
	s.playTo(sc, id, delay, s.write)
}

// playTo is play with the script's bytes sent through out.
func (s *stdioConn) playTo(sc *script, id []byte, delay func() bool, out outFunc) {
	if len(sc.steps) == 0 {
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if delay != nil && !delay() {
			return
		}
		_ = s.e.run(s.ctx, s.p, sc, id, out)
	}()
}

// handshakeOut is s.write, after Options.Checkpoint is given the report
// once, before the first bytes of a handshake's answer go out.
func (s *stdioConn) handshakeOut() outFunc {
	cp := s.e.opts.Checkpoint
	if cp == nil {
		return s.write
	}
	var once sync.Once
	return func(st *step, data []byte) error {
		once.Do(func() { cp(s.e.report()) })
		return s.write(st, data)
	}
}

// inLine is a line read from the client, or the size of one dropped for
// being over the limit.
type inLine struct {
	b       []byte
	dropped int64
}

// readLine reads one line, at most limit bytes besides its newline; a
// longer one is read to its end without being kept (dropped is its size).
func readLine(br *bufio.Reader, limit int) (line []byte, dropped int64, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case dropped > 0:
			dropped += int64(len(chunk))
		case len(bytes.TrimRight(line, "\r\n"))+len(bytes.TrimRight(chunk, "\r\n")) > limit:
			dropped = int64(len(line) + len(chunk))
			line = nil
		default:
			line = append(line, chunk...)
		}
		if err != bufio.ErrBufferFull {
			return line, dropped, err
		}
	}
}

func (s *stdioConn) serve(ix *stdioIndex, in io.Reader) error {
	lines := make(chan inLine)
	ended := make(chan error, 1)
	go func() {
		br := bufio.NewReaderSize(in, 64<<10)
		limit := s.e.opts.maxLineBytes()
		for {
			line, dropped, err := readLine(br, limit)
			if dropped > 0 || len(bytes.TrimSpace(line)) > 0 {
				select {
				case lines <- inLine{line, dropped}:
				case <-s.ctx.Done():
					return
				}
			}
			if err != nil {
				ended <- err
				return
			}
		}
	}()
	s.play(&ix.startup.script, nil, nil)
	for {
		select {
		case <-s.ctx.Done():
			return s.ctx.Err()
		case err := <-ended:
			s.inputDone()
			if err == io.EOF {
				return nil
			}
			return err
		case line := <-lines:
			if line.dropped > 0 {
				msg := fmt.Sprintf("replay: a line of %d bytes is over the limit of %d bytes (--max-line); dropped", line.dropped, s.e.opts.maxLineBytes())
				s.e.unmatched("", msg)
				if err := s.write(nil, rpcError(nil, CodeParseError, msg)); err != nil {
					return err
				}
				continue
			}
			if err := s.handle(line.b); err != nil {
				return err
			}
		}
	}
}

func (s *stdioConn) handle(line []byte) error {
	e := s.e
	in, err := decodeIncoming(line)
	if err != nil {
		e.unmatched("", "replay: "+err.Error())
		return s.write(nil, rpcError(nil, CodeParseError, "replay: "+err.Error()))
	}
	if in.isResponse() {
		pd := s.p.deliver(in)
		if pd == nil && s.p.late(in.ID) {
			return nil // an optional request given up on
		}
		if pd == nil {
			e.unmatched("", fmt.Sprintf("replay: answer with id %s matches no pending server request", in.ID))
			return nil
		}
		if sc := e.afterAnswer(pd); sc != nil {
			s.play(sc, nil, nil)
		}
		return nil
	}
	e.received(in.Method)
	s.noteID(in)
	switch in.Method {
	case "initialize":
		s.handshake = true
	case "notifications/initialized":
		s.initialized = true
	}
	if s.handshake {
		e.beforeInitialized(in, s.initialized)
	}
	key, tree, err := e.match.key(in.Method, in.Params)
	if err != nil {
		msg := "replay: params: " + err.Error()
		e.unmatched(in.Method, msg)
		if in.isRequest() {
			return s.write(nil, rpcError(in.ID, CodeParseError, msg))
		}
		return nil
	}
	first := s.proc == 0
	if first {
		if refused, err := s.refuseFirst(in); refused || err != nil {
			return err
		}
		s.choose(key)
	}
	var delay func() bool
	if in.isRequest() {
		f, h := e.faults.onRequest(in.Method)
		if f.Kind == FaultDiscover {
			e.fired(f, label(in.Method, tree))
			if first {
				s.proc = 0 // the client's next message chooses its process
			}
			return s.write(nil, s.ix.answer(f.Answer, in.ID))
		}
		if f.Kind == FaultDie || f.Kind == FaultCutStream {
			e.fired(f, label(in.Method, tree))
			return ErrDied
		}
		method := in.Method
		delay = func() bool { return e.hold(s.holdCtx, method, h) }
	}
	it := s.takeFor(key)
	if it == nil {
		switch {
		case !in.isRequest():
			if in.Method == notificationCancelled {
				e.cancelIDType(in.Params, func(id string) bool { return s.ids[id] })
			}
			e.unrecordedNotification(in.Method, in.Params)
			return nil
		case in.Method == "server/discover":
			e.unrecordedDiscover(tree)
			return s.write(nil, rpcError(in.ID, CodeMethodNotFound, "Method not found"))
		default:
			return s.unrecorded(in, tree)
		}
	}
	out := s.write
	if in.Method == "initialize" || in.Method == "server/discover" {
		out = s.handshakeOut()
	}
	s.playTo(&it.script, in.ID, delay, out)
	return nil
}

// unrecorded answers a request the fixture holds nothing for: as the
// server answered its lack probe, else with an error naming it.
func (s *stdioConn) unrecorded(in *incoming, tree any) error {
	msg := s.e.unmatchedText(in.Method, tree)
	kind, version := s.ix.lacks.kindOf(in.Method, in.Params)
	sp := s.ix.probes[lackKey(kind, version)]
	var answer *message
	if sp != nil && sp.lack != nil {
		answer = sp.lackAnswer()
	}
	if answer == nil {
		s.e.unmatched(in.Method, msg+lackText(kind, ""))
		return s.write(nil, rpcError(in.ID, CodeUnmatched, msg))
	}
	s.e.unmatched(in.Method, msg+lackText(kind, sp.request))
	return s.write(nil, answer.withID(compactJSON(in.ID)))
}
