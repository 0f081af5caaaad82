package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// JSON-RPC error codes the replay answers with.
const (
	// CodeUnmatched answers a request the recording has no answer for. The
	// message names the closest recorded interaction and the differing
	// JSON paths.
	CodeUnmatched = -32600
	// CodeMethodNotFound answers an unrecorded server/discover, so clients
	// fall back to initialize (what the TypeScript SDK server does).
	CodeMethodNotFound = -32601
	// CodeParseError answers a body that is not a JSON-RPC message.
	CodeParseError = -32700
	// CodeHeaderMismatch answers a request missing a required header.
	CodeHeaderMismatch = -32001
)

// interaction is one recorded client message with what the server did.
type interaction struct {
	idx    int    // index in engine.inters
	seq    int    // exchange seq (HTTP) or line number from 1 (stdio)
	pos    int    // timeline position (HTTP: seq; stdio: line index)
	label  string // for reports
	method string
	key    string // match key; "" for client answers (matched by id)
	tree   any    // canonical params, for the closest-match diff
	req    *message
	script script
	http   *httpAnswer // HTTP only
	// session is the placeholder of the recorded session of an HTTP
	// request ("{session-1}"; "" for none): in its answer it stands for
	// the live session's id.
	session string
	// proc is the recorded server process of a stdio interaction.
	proc int
}

// engine holds what both transports share: the pre-parsed recording, the
// queues per match key and the report.
type engine struct {
	name    string
	opts    Options
	match   *matcher
	faults  *faults
	holds   *barriers
	inters  []*interaction
	queues  map[string][]*interaction
	methods map[string][]*interaction // keyed interactions by method
	answers answerBook

	mu   sync.Mutex
	next map[string]int
	used []bool
	// serving is the recorded process a stdio replay serves its client as
	// (0: any): the report's unused interactions are that process's.
	serving int
	led     ledger
}

func newEngine(name string, opts Options) (*engine, error) {
	m, err := newMatcher(opts.ignorePaths())
	if err != nil {
		return nil, err
	}
	fs, err := newFaults(opts.Faults)
	if err != nil {
		return nil, err
	}
	e := &engine{name: name, opts: opts, match: m, faults: fs, holds: newBarriers(opts.Faults),
		queues: map[string][]*interaction{}, methods: map[string][]*interaction{}, next: map[string]int{}}
	e.led.r.Fixture = name
	return e, nil
}

// addInteraction registers it; keyed ones join their queue.
func (e *engine) addInteraction(it *interaction) {
	it.idx = len(e.inters)
	e.inters = append(e.inters, it)
	if it.key != "" {
		e.queues[it.key] = append(e.queues[it.key], it)
		if it.req != nil {
			e.methods[it.method] = append(e.methods[it.method], it)
		}
	}
}

// keyed builds the match key and label of a recorded client message.
func (e *engine) keyed(it *interaction, m *message) error {
	key, tree, err := e.match.key(m.method, m.params)
	if err != nil {
		return fmt.Errorf("params: %w", err)
	}
	it.req, it.method, it.key, it.tree = m, m.method, key, tree
	it.label = label(m.method, tree)
	return nil
}

func (e *engine) done() {
	e.used = make([]bool, len(e.inters))
}

// peek returns the interaction take would return, without taking it.
func (e *engine) peek(key string) *interaction {
	q := e.queues[key]
	if len(q) == 0 {
		return nil
	}
	e.mu.Lock()
	n := e.next[key]
	e.mu.Unlock()
	return q[min(n, len(q)-1)]
}

// take pops the next interaction of key in recorded order; past the end of
// the queue the last one repeats.
func (e *engine) take(key string) *interaction {
	it, n := e.advance(key)
	if it != nil {
		e.count(it, n, len(e.queues[key]))
	}
	return it
}

// takeAmong takes the next interaction of key (without its process) from
// each of the recorded processes procs that has one, and returns the
// first one's, counted once, and the processes that had one.
func (e *engine) takeAmong(procs []int, key string) (*interaction, []int) {
	var first *interaction
	var keep []int
	for _, p := range procs {
		k := procKey(p) + key
		it, n := e.advance(k)
		if it == nil {
			continue
		}
		if first == nil {
			first = it
			e.count(it, n, len(e.queues[k]))
		}
		keep = append(keep, p)
	}
	return first, keep
}

// advance moves key's queue on by one and returns the interaction taken
// and its rank n (nil when the queue is empty).
func (e *engine) advance(key string) (*interaction, int) {
	q := e.queues[key]
	if len(q) == 0 {
		return nil, 0
	}
	e.mu.Lock()
	n := e.next[key]
	e.next[key] = n + 1
	it := q[min(n, len(q)-1)]
	e.used[it.idx] = true
	e.mu.Unlock()
	return it, n
}

// count reports an interaction taken at rank n of a queue of size.
func (e *engine) count(it *interaction, n, size int) {
	e.led.update(func(r *Report) {
		if n >= size {
			r.Repeated++
		}
		if it.req != nil && it.req.isRequest() {
			r.Requests++
			switch it.method {
			case "tools/call":
				r.Calls++
			case "initialize":
				r.Sessions++
			}
		}
	})
}

func (e *engine) markUsed(it *interaction) {
	e.mu.Lock()
	e.used[it.idx] = true
	e.mu.Unlock()
}

// serve makes proc the recorded process whose unused interactions the
// report gives: a stdio replay serves its client as one of them.
func (e *engine) serve(proc int) {
	e.mu.Lock()
	e.serving = proc
	e.mu.Unlock()
}

// report returns the report with the interactions not used so far.
func (e *engine) report() Report {
	r := e.led.snapshot()
	e.mu.Lock()
	for i, it := range e.inters {
		if !e.used[i] && (e.serving == 0 || it.proc == e.serving) {
			r.Unused = append(r.Unused, Unused{Seq: it.seq, Label: it.label})
		}
	}
	e.mu.Unlock()
	return r
}

// received tells Options.OnReceive of an incoming message.
func (e *engine) received(method string) {
	if method != "" && e.opts.OnReceive != nil {
		e.opts.OnReceive(method)
	}
}

// notificationCancelled is what a client sends for a request it stopped
// waiting for (a handshake past its deadline, a call past its bound).
const notificationCancelled = "notifications/cancelled"

// unrecordedNotification handles a notification the recording does not
// hold: a cancellation is counted (a client may cancel any request; whether
// it manages to send it before closing is a race) and its params judged,
// anything else is unmatched.
func (e *engine) unrecordedNotification(method string, params json.RawMessage) {
	if method != notificationCancelled {
		e.unmatched(method, "replay: unrecorded notification "+method)
		return
	}
	e.led.update(func(r *Report) { r.Cancelled++ })
	if extra := cancelParams(params); extra != "" {
		e.unmatched(method, "replay: notifications/cancelled: "+extra)
	}
}

// beforeInitialized reports a request of a handshake (initialize answered)
// sent before the client's notifications/initialized, when the recorded
// client sent one: the handshake of P5.1 is initialize, then
// notifications/initialized, then the rest.
func (e *engine) beforeInitialized(in *incoming, initialized bool) {
	if initialized || !in.isRequest() || in.Method == "initialize" || in.Method == "ping" || in.Method == "server/discover" ||
		len(e.methods["notifications/initialized"]) == 0 {
		return
	}
	e.unmatched(in.Method, "replay: "+in.Method+" before notifications/initialized: the handshake was not completed")
}

// cancelIDType reports a cancellation whose requestId names a received
// request in another JSON type ("2" for 2): the server cannot match it.
// (A requestId the server never got is no fault: the go-sdk cancels a
// request cut on its way.) known says which ids (compact JSON) it got.
func (e *engine) cancelIDType(params json.RawMessage, known func(id string) bool) {
	id := cancelledID(params)
	if id == "" || known(id) {
		return
	}
	other := strconv.Quote(id)
	var s string
	if json.Unmarshal([]byte(id), &s) == nil {
		other = s
	}
	if known(other) {
		e.unmatched(notificationCancelled, "replay: notifications/cancelled names the request id "+id+", where the request's id was "+other)
	}
}

// cancelledID is the requestId a cancellation names, as compact JSON (""
// for none).
func cancelledID(params json.RawMessage) string {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return ""
	}
	return string(compactJSON(p.RequestID))
}

// cancelParams says what is wrong with a cancellation's params ("" for
// nothing): the go-sdk sends requestId and reason only, in either era (no
// _meta, not even in the 2026-07-28 revision).
func cancelParams(params json.RawMessage) string {
	var p map[string]json.RawMessage
	if json.Unmarshal(params, &p) != nil {
		return "params are not an object"
	}
	if _, ok := p["requestId"]; !ok {
		return "no requestId"
	}
	var extra []string
	for k := range p {
		if k != "requestId" && k != "reason" {
			extra = append(extra, k)
		}
	}
	if len(extra) == 0 {
		return ""
	}
	sort.Strings(extra)
	return "params other than requestId and reason: " + strings.Join(extra, ", ")
}

func (e *engine) unmatched(method, msg string) {
	e.led.update(func(r *Report) { r.Unmatched = append(r.Unmatched, Unmatched{Method: method, Message: msg}) })
}

func (e *engine) fired(f Fault, what string) {
	e.led.update(func(r *Report) { r.Faults = append(r.Faults, f.String()+" at "+what) })
}

// unrecordedDiscover reports a server/discover that matches none of the
// recorded ones (another _meta, say), when the recording holds one: it is
// then answered as a server without it answers (Method not found), which
// makes a client fall back; a recording without server/discover answers
// every one so, unreported.
func (e *engine) unrecordedDiscover(tree any) {
	if len(e.methods["server/discover"]) > 0 {
		e.unmatched("server/discover", e.unmatchedText("server/discover", tree))
	}
}

// unmatchedText explains why no recorded interaction matches.
func (e *engine) unmatchedText(method string, tree any) string {
	cands := e.methods[method]
	if len(cands) == 0 {
		var ms []string
		for m := range e.methods {
			ms = append(ms, m)
		}
		sort.Strings(ms)
		return fmt.Sprintf("replay: no recorded %s request (recorded: %s)", method, strings.Join(ms, ", "))
	}
	var best *interaction
	var bestPaths []string
	for _, c := range cands {
		paths := diffPaths("params", c.tree, tree, nil, 8)
		if best == nil || len(paths) < len(bestPaths) {
			best, bestPaths = c, paths
		}
	}
	if len(bestPaths) == 0 {
		// Same params: over stdio, another recorded process's; over HTTP,
		// a request that came with another Host or Origin.
		bestPaths = []string{"its Host or Origin header"}
		if best.proc != 0 {
			return fmt.Sprintf("replay: unmatched %s: recorded (#%d) for another server process than the ones this client's earlier messages matched",
				label(method, tree), best.seq)
		}
	}
	return fmt.Sprintf("replay: unmatched %s: closest recorded interaction is #%d %s, differing at %s",
		label(method, tree), best.seq, best.label, strings.Join(bestPaths, ", "))
}

// label names a message for humans: the method, and the tool name of a call.
func label(method string, tree any) string {
	if method == "tools/call" {
		if p, ok := tree.(map[string]any); ok {
			if n, ok := p["name"].(string); ok {
				return method + " " + strconv.Quote(n)
			}
		}
	}
	return method
}

// peer is one client connection (an HTTP session or a stdio stream): the
// server requests sent to it and awaiting an answer.
type peer struct {
	mu      sync.Mutex
	pending map[string]*pending
	// waived are the ids of optional requests given up when the session
	// or the connection ended: a late answer to one is no problem.
	waived   map[string]bool
	next     int64
	done     chan struct{}
	doneOnce sync.Once
}

type pending struct {
	id   []byte
	ch   chan *incoming
	step *step
}

func newPeer() *peer {
	return &peer{pending: map[string]*pending{}, waived: map[string]bool{}, done: make(chan struct{})}
}

func (p *peer) close() { p.doneOnce.Do(func() { close(p.done) }) }

// register allocates the id of an emitted server request: the recorded one
// when free, else a fresh number.
func (p *peer) register(st *step) *pending {
	p.mu.Lock()
	defer p.mu.Unlock()
	id := st.m.id
	for p.pending[string(id)] != nil {
		p.next++
		id = []byte(strconv.FormatInt(1_000_000+p.next, 10))
	}
	pd := &pending{id: id, ch: make(chan *incoming, 1), step: st}
	p.pending[string(id)] = pd
	return pd
}

// deliver hands the client's answer to its pending request.
func (p *peer) deliver(in *incoming) *pending {
	p.mu.Lock()
	pd := p.pending[string(in.ID)]
	delete(p.pending, string(in.ID))
	p.mu.Unlock()
	if pd != nil {
		pd.ch <- in
	}
	return pd
}

func (p *peer) drop(pd *pending) {
	p.mu.Lock()
	if p.pending[string(pd.id)] == pd {
		delete(p.pending, string(pd.id))
	}
	p.mu.Unlock()
}

// waive drops an optional request the session ended before: an answer to
// it that comes anyway is then ignored (see late).
func (p *peer) waive(pd *pending) {
	p.drop(pd)
	p.mu.Lock()
	p.waived[string(pd.id)] = true
	p.mu.Unlock()
}

// late reports whether id is that of a waived request.
func (p *peer) late(id json.RawMessage) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.waived[string(id)]
}

// afterAnswer marks the recorded answer used; it returns its script.
func (e *engine) afterAnswer(pd *pending) *script {
	a := pd.step.answer
	if a == nil {
		return nil
	}
	e.markUsed(a)
	return &a.script
}

// outFunc sends one step's bytes (nil data for a comment).
type outFunc func(st *step, data []byte) error

// run plays a script: clientID answers the triggering request.
func (e *engine) run(ctx context.Context, p *peer, s *script, clientID json.RawMessage, out outFunc) error {
	var live []*pending
	defer func() {
		for _, pd := range live {
			if pd != nil {
				p.drop(pd)
			}
		}
	}()
	for i := range s.steps {
		st := &s.steps[i]
		// ctx bounds what goes on the request's own stream; the GET
		// stream's steps are the session's (await: see there).
		if st.kind != stepAwait && !st.onGET {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		var err error
		switch st.kind {
		case stepEmit:
			data := st.m.raw
			if st.m.isRequest() {
				pd := p.register(st)
				if live == nil {
					live = make([]*pending, len(s.steps))
				}
				live[i] = pd
				data = st.m.withID(pd.id)
			}
			err = out(st, data)
		case stepRespond:
			err = out(st, st.m.withID(clientID))
		case stepComment:
			err = out(st, nil)
		case stepAwait:
			e.await(ctx, p, live[st.ref], st)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// await waits for the client's answer to an emitted server request, with
// a deadline, and reports a missing or failed one.
func (e *engine) await(ctx context.Context, p *peer, pd *pending, st *step) {
	if pd == nil {
		return
	}
	timeout := e.opts.answerTimeout()
	t := time.NewTimer(timeout)
	defer t.Stop()
	// A request sent on the GET stream outlives the request whose script
	// sent it: its answer comes on a POST of its own, and a client may
	// close that request's connection first. Only the session's end or the
	// deadline gives it up.
	reqDone := ctx.Done()
	if pd.step != nil && pd.step.onGET && !st.optional {
		reqDone = nil
	}
	var problem string
	select {
	case in := <-pd.ch:
		switch {
		case len(in.Error) > 0 && string(in.Error) != "null":
			problem = "answered with an error: " + string(in.Error)
		case len(in.Result) == 0:
			problem = "answer carries no result"
		case st.optional:
			return // not counted: whether it comes before the session ends is a race
		default:
			e.led.update(func(r *Report) { r.Answers++ })
			return
		}
	case <-t.C:
		problem = fmt.Sprintf("no answer within %v", timeout)
	case <-reqDone:
		problem = "the request or connection ended before the answer"
		if st.optional {
			p.waive(pd)
			return // the recorded client did not answer either
		}
	case <-p.done:
		problem = "the session ended before the answer"
		if st.optional {
			p.waive(pd)
			return
		}
	}
	p.drop(pd)
	e.led.update(func(r *Report) {
		r.MissingAnswers = append(r.MissingAnswers, MissingAnswer{Method: st.m.method, Seq: st.seq, Problem: problem})
	})
}
