package replay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/fixtures/probekind"
)

const maxBody = 8 << 20

// Replay serves an HTTP recording as a Streamable HTTP MCP server. It is an
// http.Handler; Close ends it.
type Replay struct {
	e  *engine
	ix *httpIndex

	smu      sync.Mutex
	sessions map[string]*session
	issued   map[string]bool // every session id handed out, ended ones included
	tick     atomic.Int64    // orders session use, for eviction

	ctx    context.Context // cancelled by Close
	cancel context.CancelFunc
	wg     sync.WaitGroup // background scripts
	dead   atomic.Bool    // die fault fired
	closed atomic.Bool

	closeOnce sync.Once
	final     Report

	// sent holds the era each request id was last received in (compact
	// JSON id → the revision's version, "" for the handshake era), for
	// the cancellations that name it.
	sent sync.Map
}

// New prepares a replay of an HTTP fixture. Every recorded message is
// parsed here, so a bad recording fails before any socket opens.
func New(fx *fixtures.Fixture, opts Options) (*Replay, error) {
	if fx == nil {
		return nil, errors.New("replay: nil fixture")
	}
	name := fx.Manifest.Name
	if err := fx.Validate(); err != nil {
		return nil, fmt.Errorf("fixture %s: %w", name, err)
	}
	if fx.Manifest.Transport != fixtures.TransportHTTP {
		return nil, fmt.Errorf("fixture %s: transport %q, want %q", name, fx.Manifest.Transport, fixtures.TransportHTTP)
	}
	for _, f := range opts.Faults {
		if f.Kind == FaultLinger || f.Kind == FaultSlowExit {
			return nil, fmt.Errorf("fault %s: stdio only", f)
		}
	}
	e, err := newEngine(name, opts)
	if err != nil {
		return nil, err
	}
	ix, err := buildHTTP(e, fx)
	if err != nil {
		return nil, err
	}
	if ix.probes, err = buildProbes(e, fx.Probes); err != nil {
		return nil, err
	}
	r := &Replay{e: e, ix: ix, sessions: map[string]*session{}, issued: map[string]bool{}}
	r.ctx, r.cancel = context.WithCancel(context.Background())
	return r, nil
}

// Report returns what the replay observed so far; Unused lists the
// interactions not replayed yet. After Close it is the final report.
func (r *Replay) Report() Report {
	if r.closed.Load() {
		r.closeOnce.Do(func() {}) // wait for a concurrent Close
		return r.final
	}
	return r.e.report()
}

// Close ends open GET streams and background scripts, and freezes the
// report. Requests arriving later get 503.
func (r *Replay) Close() error {
	r.closeOnce.Do(func() {
		r.smu.Lock()
		r.closed.Store(true)
		for _, s := range r.sessions {
			s.close()
		}
		r.smu.Unlock()
		r.cancel()
		r.wg.Wait()
		r.final = r.e.report()
	})
	return nil
}

// ServeHTTP implements http.Handler.
func (r *Replay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if r.dead.Load() {
		panic(http.ErrAbortHandler)
	}
	if r.closed.Load() {
		http.Error(w, "replay closed", http.StatusServiceUnavailable)
		return
	}
	if !r.ix.paths[req.URL.Path] {
		r.e.unmatched(req.Method+" "+req.URL.Path, fmt.Sprintf("replay: %s %s: path not in the fixture", req.Method, req.URL.Path))
		http.Error(w, "404 page not found", http.StatusNotFound)
		return
	}
	r.outsideRevision(req)
	switch req.Method {
	case http.MethodPost:
		r.servePOST(w, req)
	case http.MethodGet:
		r.serveGET(w, req)
	case http.MethodDelete:
		r.serveDELETE(w, req)
	default:
		w.Header().Set("Allow", "GET, POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
	}
}

// outsideRevision reports a GET or a DELETE that names the 2026-07-28
// revision (its MCP-Protocol-Version): the revision has no standalone
// stream and no session to end. It is answered as recorded all the same.
func (r *Replay) outsideRevision(req *http.Request) {
	if req.Method == http.MethodPost || !fixtures.Modern(req.Header.Get("Mcp-Protocol-Version")) {
		return
	}
	r.e.unmatched(req.Method+" "+req.URL.Path, fmt.Sprintf("replay: %s %s of the %s revision, which has no standalone stream and no session to end",
		req.Method, req.URL.Path, req.Header.Get("Mcp-Protocol-Version")))
}

// headersMatch reports required headers missing or different.
func (r *Replay) headersMatch(req *http.Request, what string) bool {
	ok := true
	for name, want := range r.e.opts.RequireHeaders {
		got, present := req.Header[http.CanonicalHeaderKey(name)]
		problem := ""
		switch {
		case !present:
			problem = "missing"
		case len(got) != 1 || got[0] != want:
			problem = "different value"
		default:
			continue
		}
		ok = false
		r.e.led.update(func(rep *Report) {
			rep.HeaderMismatches = append(rep.HeaderMismatches, HeaderMismatch{Request: what, Header: name, Problem: problem})
		})
	}
	return ok
}

func (r *Replay) session(id string) *session {
	r.smu.Lock()
	defer r.smu.Unlock()
	s := r.sessions[id]
	if s != nil {
		s.used.Store(r.tick.Add(1))
	}
	return s
}

// addSession registers a new session; past Options.MaxSessions the least
// recently used one is evicted (closed: its client gets 404 next).
func (r *Replay) addSession() *session {
	s := newSession()
	s.used.Store(r.tick.Add(1))
	var evicted *session
	r.smu.Lock()
	r.issued[s.id] = true
	if len(r.sessions) >= r.e.opts.maxSessions() {
		for _, o := range r.sessions {
			if evicted == nil || o.used.Load() < evicted.used.Load() {
				evicted = o
			}
		}
		delete(r.sessions, evicted.id)
	}
	r.sessions[s.id] = s
	r.smu.Unlock()
	if evicted != nil {
		evicted.close()
		r.e.led.update(func(rep *Report) { rep.Evicted++ })
	}
	return s
}

func (r *Replay) dropSession(s *session) {
	r.smu.Lock()
	delete(r.sessions, s.id)
	r.smu.Unlock()
	s.close()
}

// lookup resolves the request's session: ok is false when an answer was
// written. A missing one, when required, gets the answer of the probe of
// kind missing (a POST's), else 400; an unknown one, see unknownSession.
func (r *Replay) lookup(w http.ResponseWriter, req *http.Request, required bool, missing string, clientID json.RawMessage) (*session, bool) {
	id := req.Header.Get("Mcp-Session-Id")
	if id == "" {
		if !required || !r.ix.stateful {
			return nil, true
		}
		if pa := r.ix.probes.get(missing); pa != nil {
			if pa.refused {
				r.refuse(w, pa, clientID)
				return nil, false
			}
			return nil, true // the server takes it
		}
		http.Error(w, "Bad Request: missing Mcp-Session-Id header", http.StatusBadRequest)
		r.e.unmatched(req.Method, "replay: "+req.Method+" without Mcp-Session-Id")
		return nil, false
	}
	if s := r.session(id); s != nil {
		return s, true
	}
	return nil, !r.unknownSession(w, id, clientID)
}

// unknownSession answers a session id that names no live session, and
// reports whether it did: as the server answered the unknown-session probe
// (a refusal when this replay never handed the id out), else 404 "session
// not found". A server that took the probe ignores session ids: nothing is
// answered then.
func (r *Replay) unknownSession(w http.ResponseWriter, id string, clientID json.RawMessage) bool {
	pa := r.ix.probes.get(probekind.UnknownSession)
	if pa != nil && !pa.refused {
		return false
	}
	r.smu.Lock()
	issued := r.issued[id]
	r.smu.Unlock()
	switch {
	case pa == nil:
		http.Error(w, "session not found", http.StatusNotFound)
	case issued:
		pa.write(w, clientID) // a session that ended, as from any server
	default:
		r.refuse(w, pa, clientID)
	}
	return true
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	writeBody(w, status, body, false)
}

// writeBody writes a whole body framed as recorded: with a Content-Length,
// or chunked (flushed before the handler ends).
func writeBody(w http.ResponseWriter, status int, data []byte, chunked bool) error {
	if !chunked {
		w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	}
	w.WriteHeader(status)
	_, err := w.Write(data)
	if err == nil && chunked {
		err = http.NewResponseController(w).Flush()
	}
	return err
}

// refusedPOST answers a POST whose fault the server refused (headers, an
// unknown session, a batch), and reports whether it did.
func (r *Replay) refusedPOST(w http.ResponseWriter, req *http.Request, body []byte) bool {
	if pa := r.ix.probes.refusing(postFault(req.Header)); pa != nil {
		r.refuse(w, pa, bodyID(body))
		return true
	}
	if sid := req.Header.Get("Mcp-Session-Id"); sid != "" && r.session(sid) == nil && r.unknownSession(w, sid, bodyID(body)) {
		return true
	}
	if pa := r.ix.probes.refusing(probekind.Batch); pa != nil && isBatch(body) {
		r.refuse(w, pa, nil)
		return true
	}
	return false
}

// readPOST reads a POST's message; nil when an answer was written (a
// refused fault, a body that is no JSON-RPC message, a required header
// missing).
func (r *Replay) readPOST(w http.ResponseWriter, req *http.Request) *incoming {
	body, err := io.ReadAll(io.LimitReader(req.Body, maxBody))
	if err != nil || r.refusedPOST(w, req, body) {
		return nil
	}
	in, err := decodeIncoming(body)
	if err != nil {
		r.e.unmatched("", "replay: "+err.Error())
		writeJSON(w, http.StatusBadRequest, rpcError(nil, CodeParseError, "replay: "+err.Error()))
		return nil
	}
	what := "POST " + in.Method
	if in.Method == "" {
		what = "POST answer"
	}
	if !r.headersMatch(req, what) {
		writeJSON(w, http.StatusBadRequest, rpcError(in.ID, CodeHeaderMismatch, "replay: a required header is missing or different (see the replay report)"))
		return nil
	}
	r.e.received(in.Method)
	return in
}

// postSession resolves the session of a POST (see lookup).
func (r *Replay) postSession(w http.ResponseWriter, req *http.Request, in *incoming) (*session, bool) {
	// A cancellation may concern a handshake that never got its session.
	free := in.Method == "initialize" || in.Method == "server/discover" || in.Method == notificationCancelled && !in.isRequest()
	missing := probekind.NoSession
	if !in.isRequest() {
		missing = probekind.NoSessionNotif
	}
	return r.lookup(w, req, !free, missing, in.ID)
}

// unrecorded answers a message the fixture holds nothing for.
func (r *Replay) unrecorded(w http.ResponseWriter, in *incoming, tree any) {
	switch {
	case !in.isRequest():
		if in.Method == notificationCancelled {
			r.e.cancelIDType(in.Params, func(id string) bool { _, ok := r.sent.Load(id); return ok })
		}
		r.e.unrecordedNotification(in.Method, in.Params)
		w.WriteHeader(http.StatusAccepted)
	case in.Method == "server/discover":
		r.e.unrecordedDiscover(tree)
		writeJSON(w, http.StatusOK, rpcError(in.ID, CodeMethodNotFound, "Method not found"))
	default:
		msg := r.e.unmatchedText(in.Method, tree)
		kind, version := r.ix.lacks.kindOf(in.Method, in.Params)
		pa := r.ix.probes.get(lackKey(kind, version))
		if pa == nil {
			r.e.unmatched(in.Method, msg+lackText(kind, ""))
			writeJSON(w, http.StatusOK, rpcError(in.ID, CodeUnmatched, msg))
			return
		}
		r.e.unmatched(in.Method, msg+lackText(kind, pa.request))
		if pa.http.setsSession {
			w.Header().Set("Mcp-Session-Id", r.addSession().id)
		}
		pa.write(w, in.ID)
	}
}

func (r *Replay) servePOST(w http.ResponseWriter, req *http.Request) {
	in := r.readPOST(w, req)
	if in == nil {
		return
	}
	sess, ok := r.postSession(w, req, in)
	if !ok {
		return
	}
	if in.isResponse() {
		r.serveAnswer(w, sess, in)
		return
	}
	version, refused := r.requestEra(w, req, in)
	if refused {
		return
	}
	if in.isRequest() {
		r.sent.Store(string(compactJSON(in.ID)), version)
	}
	if sess != nil {
		if in.Method == "notifications/initialized" {
			sess.initialized.Store(true)
		}
		r.e.beforeInitialized(in, sess.initialized.Load())
	}
	if !in.isRequest() && !r.notificationHeaders(req, in) {
		writeJSON(w, http.StatusBadRequest, rpcError(nil, CodeHeaderMismatch, "replay: a notification of the revision without its headers (see the replay report)"))
		return
	}
	if pa := r.ix.probes.refusing(probekind.NoMetaNoSession); pa != nil && !r.ix.stateful && noEra(req.Header, in) {
		r.refuse(w, pa, in.ID)
		return
	}

	key, tree, err := r.e.match.keyIn(in.Method, in.Params, version != "")
	if err != nil {
		msg := "replay: params: " + err.Error()
		r.e.unmatched(in.Method, msg)
		writeJSON(w, http.StatusOK, rpcError(in.ID, CodeParseError, msg))
		return
	}
	key += requestHostKey(req) + eraKey(version)
	// hold applies the request's delay, holds and barrier.
	var h held
	hold := func() bool { return r.e.hold(req.Context(), in.Method, h) }
	if in.isRequest() {
		var f Fault
		f, h = r.e.faults.onRequest(in.Method)
		if f.Kind != "" {
			if hold() {
				r.e.fired(f, label(in.Method, tree))
				r.inject(w, f, sess, key, in.ID)
			}
			return
		}
	}
	it := r.e.take(key)
	if it == nil {
		r.unrecorded(w, in, tree)
		return
	}
	if in.isRequest() && !hold() {
		return
	}
	a := it.http
	if in.Method == "initialize" && a.setsSession {
		sess = r.addSession()
	}
	if pa := r.ix.probes.noStream[key]; pa != nil && sess != nil && !sess.streaming() {
		// The server's request meant for the standalone stream cannot
		// reach the client: the live server answers at once.
		pa.write(w, in.ID)
		return
	}
	r.answer(w, req.Context(), sess, it, in)
	if a.status == http.StatusNotFound && sess != nil {
		r.dropSession(sess)
	}
}

// answer writes the recorded answer of it and plays its script.
func (r *Replay) answer(w http.ResponseWriter, ctx context.Context, sess *session, it *interaction, in *incoming) {
	a := it.http
	h := w.Header()
	for _, kv := range a.headers {
		h.Set(kv[0], kv[1])
	}
	if a.setsSession && sess != nil {
		h.Set("Mcp-Session-Id", sess.id)
	}
	if a.contentType != "" {
		h.Set("Content-Type", a.contentType)
	}
	flusher, _ := w.(http.Flusher)
	live := liveSession(it, sess)
	toGET := func(st *step, data []byte) {
		if sess != nil {
			sess.push(sseFrame(st, live(data)))
		}
	}
	switch {
	case a.form == formSSE && in.isRequest():
		w.WriteHeader(a.status)
		// The headers go out with the first event, unless something is
		// waited for before it (the client must see its stream open).
		if st := it.script.steps; flusher != nil && (len(st) == 0 || st[0].onGET || st[0].kind == stepAwait) {
			flusher.Flush()
		}
		var p *peer
		if sess != nil {
			p = sess.peer
		} else {
			p = newPeer()
		}
		_ = r.e.run(ctx, p, &it.script, in.ID, func(st *step, data []byte) error {
			if st.onGET {
				toGET(st, data)
				return nil
			}
			if _, err := w.Write(sseFrame(st, live(data))); err != nil {
				return err
			}
			if flusher != nil {
				flusher.Flush()
			}
			return nil
		})
		if a.cut {
			panic(http.ErrAbortHandler)
		}
	case a.form == formJSON && in.isRequest():
		var p *peer
		if sess != nil {
			p = sess.peer
		} else {
			p = newPeer()
		}
		wrote := false
		_ = r.e.run(ctx, p, &it.script, in.ID, func(st *step, data []byte) error {
			if st.onGET {
				toGET(st, data)
				return nil
			}
			if st.kind == stepRespond {
				wrote = true
				return writeBody(w, a.status, live(data), a.chunked)
			}
			return nil
		})
		if !wrote || a.cut {
			panic(http.ErrAbortHandler)
		}
	default:
		// Notifications and texts (202, 404 ...); the script is what the
		// server sent on the GET stream after it, played in the background.
		_ = writeBody(w, a.status, live([]byte(a.text)), a.chunked)
		r.background(sess, it, &it.script, false)
	}
}

// liveSession returns what puts the live session's id in an answer of
// it where the recording has its session's placeholder (a server may
// quote its session id: "{session-1}" in the file, the id the replay
// handed out on the wire).
func liveSession(it *interaction, sess *session) func([]byte) []byte {
	if it == nil || it.session == "" || sess == nil {
		return func(b []byte) []byte { return b }
	}
	ph := []byte(it.session)
	return func(b []byte) []byte {
		if !bytes.Contains(b, ph) {
			return b
		}
		return bytes.ReplaceAll(b, ph, []byte(sess.id))
	}
}

// background plays a script of GET-stream events off the request; with
// noComments, the comments are left out (the GET stream wrote them). it
// is the interaction the script belongs to.
func (r *Replay) background(sess *session, it *interaction, s *script, noComments bool) {
	if sess == nil || s == nil || len(s.steps) == 0 {
		return
	}
	r.smu.Lock()
	if r.closed.Load() {
		r.smu.Unlock()
		return
	}
	r.wg.Add(1)
	r.smu.Unlock()
	live := liveSession(it, sess)
	go func() {
		defer r.wg.Done()
		_ = r.e.run(r.ctx, sess.peer, s, nil, func(st *step, data []byte) error {
			if st.onGET && !(noComments && st.kind == stepComment) {
				sess.push(sseFrame(st, live(data)))
			}
			return nil
		})
	}()
}

// serveAnswer takes the client's answer to a server request.
func (r *Replay) serveAnswer(w http.ResponseWriter, sess *session, in *incoming) {
	var pd *pending
	if sess != nil {
		pd = sess.deliver(in)
	}
	if pd == nil && sess != nil && sess.peer.late(in.ID) {
		w.WriteHeader(http.StatusAccepted) // an optional request given up on
		return
	}
	if pd == nil {
		r.e.unmatched("", fmt.Sprintf("replay: answer with id %s matches no pending server request", in.ID))
		w.WriteHeader(http.StatusAccepted)
		return
	}
	s := r.e.afterAnswer(pd)
	status := http.StatusAccepted
	if a := pd.step.answer; a != nil {
		status = a.http.status
	}
	w.WriteHeader(status)
	r.background(sess, pd.step.answer, s, false)
}

// inject plays a one-shot fault instead of the recorded answer.
func (r *Replay) inject(w http.ResponseWriter, f Fault, sess *session, key string, id json.RawMessage) {
	switch f.Kind {
	case FaultStatus:
		http.Error(w, http.StatusText(f.Status), f.Status)
	case FaultDiscover:
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(discoverStatus(f.Answer))
		_, _ = w.Write(r.ix.answer(f.Answer, id))
	case FaultSessionExpired:
		if sess != nil {
			r.dropSession(sess)
		}
		http.Error(w, "session not found", http.StatusNotFound)
	case FaultCutStream:
		if it := r.e.peek(key); it != nil && it.http.form == formSSE {
			w.Header().Set("Content-Type", "text/event-stream")
			w.WriteHeader(http.StatusOK)
			if fl, ok := w.(http.Flusher); ok {
				fl.Flush()
			}
		}
		panic(http.ErrAbortHandler)
	case FaultDie:
		r.dead.Store(true)
		r.smu.Lock()
		for _, s := range r.sessions {
			s.close()
		}
		r.smu.Unlock()
		panic(http.ErrAbortHandler)
	}
}

func (r *Replay) serveGET(w http.ResponseWriter, req *http.Request) {
	if pa := r.ix.probes.refusing(getFault(req.Header)); pa != nil {
		r.refuse(w, pa, nil)
		return
	}
	if !r.headersMatch(req, "GET") {
		http.Error(w, "replay: a required header is missing or different", http.StatusBadRequest)
		return
	}
	if r.noSession(w, req, probekind.GETNoSession) {
		return
	}
	sess, ok := r.lookup(w, req, true, "", nil)
	if !ok {
		return
	}
	it := r.e.take(keyGET)
	if it == nil {
		w.Header().Set("Allow", "POST, DELETE")
		http.Error(w, "Method Not Allowed", http.StatusMethodNotAllowed)
		return
	}
	a := it.http
	if a.form == formSSE && sess == nil && !r.ix.stateful {
		r.holdStream(w, req, it)
		return
	}
	if a.form != formSSE || sess == nil {
		for _, kv := range a.headers {
			w.Header().Set(kv[0], kv[1])
		}
		if a.contentType != "" {
			w.Header().Set("Content-Type", a.contentType)
		}
		w.WriteHeader(a.status)
		_, _ = io.WriteString(w, a.text)
		if a.status == http.StatusNotFound && sess != nil {
			r.dropSession(sess)
		}
		return
	}
	h := w.Header()
	for _, kv := range a.headers {
		h.Set(kv[0], kv[1])
	}
	h.Set("Content-Type", a.contentType)
	w.WriteHeader(a.status)
	sess.streams.Add(1)
	defer sess.streams.Add(-1)
	flusher, _ := w.(http.Flusher)
	// Comments go out now, once; recorded messages through the outbox.
	for i := range it.script.steps {
		if st := &it.script.steps[i]; st.kind == stepComment {
			_, _ = w.Write(sseFrame(st, nil))
		}
	}
	if flusher != nil {
		flusher.Flush()
	}
	r.background(sess, it, &it.script, true)
	r.pump(w, req.Context(), sess)
}

// noSession answers a GET or DELETE without Mcp-Session-Id as the server
// answered its probe (kind), and reports whether it did. A DELETE without
// session is what the Go pool sends to close a session it was given no id
// for (a sessionless server, a failed initialize): answered as the live
// server answers it, never a problem. A GET without session is what a
// handshake client opens on a sessionless server (answered as recorded);
// to a server that hands out sessions, a refusal, reported. Only a
// refused one is answered so; an accepted GET stream is served.
func (r *Replay) noSession(w http.ResponseWriter, req *http.Request, kind string) bool {
	pa := r.ix.probes.get(kind)
	if pa == nil || req.Header.Get("Mcp-Session-Id") != "" || !pa.refused {
		return false
	}
	switch {
	case r.ix.stateful && kind == probekind.GETNoSession:
		r.refuse(w, pa, nil)
	case kind == probekind.GETNoSession && r.e.peek(keyGET) != nil:
		return false // the recorded GETs of the client serve it
	default:
		pa.write(w, nil)
	}
	return true
}

// holdStream serves the recorded standalone stream of a server without
// sessions: its headers and comments, then nothing until the client
// leaves or the replay closes (no request can reach a stream of no
// session).
func (r *Replay) holdStream(w http.ResponseWriter, req *http.Request, it *interaction) {
	a := it.http
	for _, kv := range a.headers {
		w.Header().Set(kv[0], kv[1])
	}
	w.Header().Set("Content-Type", a.contentType)
	w.WriteHeader(a.status)
	for i := range it.script.steps {
		if st := &it.script.steps[i]; st.kind == stepComment {
			_, _ = w.Write(sseFrame(st, nil))
		}
	}
	_ = http.NewResponseController(w).Flush()
	select {
	case <-req.Context().Done():
	case <-r.ctx.Done():
	}
}

// pump writes the frames queued for a session's GET stream until the
// stream, the session or the replay ends.
func (r *Replay) pump(w http.ResponseWriter, ctx context.Context, sess *session) {
	flusher, _ := w.(http.Flusher)
	for {
		for _, f := range sess.drain() {
			if _, err := w.Write(f); err != nil {
				return
			}
		}
		if flusher != nil {
			flusher.Flush()
		}
		select {
		case <-sess.wake:
		case <-sess.done:
			return
		case <-ctx.Done():
			return
		case <-r.ctx.Done():
			return
		}
	}
}

func (r *Replay) serveDELETE(w http.ResponseWriter, req *http.Request) {
	if !r.headersMatch(req, "DELETE") {
		http.Error(w, "replay: a required header is missing or different", http.StatusBadRequest)
		return
	}
	if r.noSession(w, req, probekind.DELETENoSession) {
		return
	}
	if req.Header.Get("Mcp-Session-Id") == "" {
		http.Error(w, "Bad Request: DELETE requires an Mcp-Session-Id header", http.StatusBadRequest)
		return
	}
	sess, ok := r.lookup(w, req, true, "", nil)
	if !ok {
		return
	}
	status := http.StatusNoContent
	if it := r.e.take(keyDELETE); it != nil {
		status = it.http.status
	}
	r.dropSession(sess)
	r.e.led.update(func(rep *Report) { rep.Ended++ })
	w.WriteHeader(status)
}

// sleep waits d or until ctx ends; it reports whether d elapsed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
