package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/fixtures/probekind"
)

// probeTimeout bounds one probe, its answer included.
const probeTimeout = 10 * time.Second

// probeUnknownSession is the session id of the unknown-session probe.
const probeUnknownSession = "mcpparity-probe-unknown-session"

// Probe bodies besides the client's own initialize.
const (
	probeList   = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	probeBatch  = `[` + probeList + `]`
	probeNotify = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
)

// templateHeaders are left out of the client's initialize headers when the
// probes copy them (the rest, credentials and configured headers, go on
// every probe).
var templateHeaders = []string{"Accept", "Accept-Encoding", "Connection", "Content-Length", "Content-Type",
	"Host", "Last-Event-Id", "Mcp-Method", "Mcp-Name", "Mcp-Protocol-Version", "Mcp-Session-Id", "Origin", "Transfer-Encoding"}

// prober sends the probes of one recording to the upstream.
type prober struct {
	p      *Proxy
	path   string      // the client's endpoint, query included
	header http.Header // the client's headers, Accept and Content-Type canonical
	init   []byte      // the client's initialize body; nil when none was answered
	modern *modernTemplate
	out    []fixtures.Probe
}

// Probe sends the probes (probekind.All) to the upstream and keeps
// the answers for Recording. The client's first answered initialize is the
// template of the handshake's: its body and headers (credentials,
// configured headers) open the probes' own sessions, which end with a
// DELETE; a request of the 2026-07-28 revision, that of the revision's.
// Call it once the clients are done, before Close; a recording with
// neither gets no probe. Only a failure to reach the upstream is an error.
func (p *Proxy) Probe(ctx context.Context) error {
	rec := p.Recording()
	pr := newProber(p, rec.Exchanges)
	if pr == nil {
		return nil
	}
	steps := []func(context.Context) error{pr.sessionlessProbes, pr.modernProbes}
	if pr.init != nil {
		steps = append([]func(context.Context) error{
			func(ctx context.Context) error { return pr.noStream(ctx, p.streamTriggers(rec.Exchanges)) },
			pr.headerProbes, pr.sessionProbes, pr.lackProbes}, steps...)
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	p.mu.Lock()
	p.probes = pr.out
	p.mu.Unlock()
	return nil
}

// newProber finds the templates of the probes: the first answered
// initialize, and the requests of the 2026-07-28 revision; nil when the
// recording has neither.
func newProber(p *Proxy, exs []fixtures.Exchange) *prober {
	pr := &prober{p: p}
	for _, ex := range exs {
		if ex.Request.Method != http.MethodPost || ex.Response.Status != http.StatusOK {
			continue
		}
		var m struct {
			Method string `json:"method"`
		}
		if json.Unmarshal(ex.Request.Body, &m) != nil || m.Method != "initialize" {
			continue
		}
		pr.path, pr.header, pr.init = ex.Request.Path, templateHeader(ex.Request.Headers), ex.Request.Body
		break
	}
	pr.modern = findModern(exs)
	if pr.modern != nil && pr.init == nil {
		pr.path, pr.header = pr.modern.path, pr.modern.header
	}
	if pr.init == nil && pr.modern == nil {
		return nil
	}
	return pr
}

// templateHeader is a client's request headers as the probes send them:
// its credentials and configured headers, Accept and Content-Type as a
// client must send them, nothing of one request or session.
func templateHeader(headers map[string]string) http.Header {
	h := http.Header{}
	for k, v := range headers {
		h.Set(k, v)
	}
	for _, k := range templateHeaders {
		h.Del(k)
	}
	h.Set("Content-Type", "application/json")
	h.Set("Accept", "application/json, text/event-stream")
	return h
}

// streamTriggers returns the bodies of the requests during which the
// server sent a request of its own on the standalone GET stream (JSON
// mode: a ping from a tool): requests whose answer was still open then,
// in recorded order, each once. A server's request sent on a timer falls
// between requests (or, seldom, during one).
func (p *Proxy) streamTriggers(exs []fixtures.Exchange) [][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	seen := map[string]bool{}
	var out [][]byte
	for _, ex := range exs {
		if !p.triggers[ex.Seq] || ex.Request.Method != http.MethodPost {
			continue
		}
		if reqs := parseMessages(ex.Request.Body, true); len(reqs) == 1 && reqs[0].id != nil && !seen[string(ex.Request.Body)] {
			seen[string(ex.Request.Body)] = true
			out = append(out, ex.Request.Body)
		}
	}
	return out
}

// noStream re-sends each trigger in a session without a GET stream.
func (pr *prober) noStream(ctx context.Context, triggers [][]byte) error {
	if len(triggers) == 0 {
		return nil
	}
	s, err := pr.open(ctx)
	if err != nil || s == nil {
		return err
	}
	defer pr.end(ctx, s)
	for _, body := range triggers {
		if err := pr.probe(ctx, probekind.NoStandaloneStream, http.MethodPost, s.header(pr.header), body); err != nil {
			return err
		}
	}
	return nil
}

// headerProbes send the client's initialize with a wrong Content-Type or
// Accept; a session it opens anyway is ended.
func (pr *prober) headerProbes(ctx context.Context) error {
	variants := []struct {
		kind, name, value string
	}{
		{probekind.NoContentType, "Content-Type", ""},
		{probekind.AcceptJSONOnly, "Accept", "application/json"},
		{probekind.AcceptSSEOnly, "Accept", "text/event-stream"},
		{probekind.NoAccept, "Accept", ""},
		{probekind.AcceptWildcard, "Accept", "*/*"},
	}
	for _, v := range variants {
		h := pr.header.Clone()
		if v.value == "" {
			h.Del(v.name)
		} else {
			h.Set(v.name, v.value)
		}
		if err := pr.probe(ctx, v.kind, http.MethodPost, h, pr.init); err != nil {
			return err
		}
		if sid := pr.out[len(pr.out)-1].Response.Headers["Mcp-Session-Id"]; sid != "" {
			pr.end(ctx, &probeSession{id: sid})
		}
	}
	return nil
}

// sessionProbes send, in a session of their own, the faults that concern
// an initialized session.
func (pr *prober) sessionProbes(ctx context.Context) error {
	s, err := pr.open(ctx)
	if err != nil || s == nil {
		return err
	}
	defer pr.end(ctx, s)
	in := s.header(pr.header)
	noAccept := in.Clone()
	noAccept.Del("Accept")
	noAccept.Del("Content-Type") // a GET has no body
	wildcard := noAccept.Clone()
	wildcard.Set("Accept", "*/*")
	unknown := in.Clone()
	unknown.Set("Mcp-Session-Id", probeUnknownSession)
	noSession := in.Clone()
	noSession.Del("Mcp-Session-Id")
	probes := []struct {
		kind, method string
		h            http.Header
		body         string
	}{
		{probekind.GETNoAccept, http.MethodGet, noAccept, ""},
		{probekind.GETAcceptWildcard, http.MethodGet, wildcard, ""},
		{probekind.UnknownSession, http.MethodPost, unknown, probeList},
		{probekind.Batch, http.MethodPost, in, probeBatch},
		{probekind.NoSession, http.MethodPost, noSession, probeList},
		{probekind.NoSessionNotif, http.MethodPost, noSession, probeNotify},
	}
	for _, pb := range probes {
		if s.id == "" && (pb.kind == probekind.NoSession || pb.kind == probekind.NoSessionNotif) {
			continue // a server without sessions
		}
		if err := pr.probe(ctx, pb.kind, pb.method, pb.h, []byte(pb.body)); err != nil {
			return err
		}
	}
	return nil
}

// probe sends one probe and keeps it with its answer.
func (pr *prober) probe(ctx context.Context, kind, method string, h http.Header, body []byte) error {
	req, resp, err := pr.send(ctx, method, h, body)
	if err != nil {
		return fmt.Errorf("probe %s: %w", kind, err)
	}
	pr.out = append(pr.out, fixtures.Probe{Kind: kind, Request: req, Response: resp})
	return nil
}

// probeSession is a session the prober opened.
type probeSession struct {
	id, version string
}

// header returns base with the session's id and protocol version.
func (s *probeSession) header(base http.Header) http.Header {
	h := base.Clone()
	if s.id != "" {
		h.Set("Mcp-Session-Id", s.id)
	}
	if s.version != "" {
		h.Set("Mcp-Protocol-Version", s.version)
	}
	return h
}

// open initializes a session as the client did; nil when the server
// refuses it.
func (pr *prober) open(ctx context.Context) (*probeSession, error) {
	_, resp, err := pr.send(ctx, http.MethodPost, pr.header, pr.init)
	if err != nil {
		return nil, fmt.Errorf("probe session: %w", err)
	}
	if resp.Status != http.StatusOK || resp.Refused() {
		return nil, nil
	}
	s := &probeSession{id: resp.Headers["Mcp-Session-Id"], version: initVersion(resp)}
	if _, _, err := pr.send(ctx, http.MethodPost, s.header(pr.header), []byte(probeNotify)); err != nil {
		return nil, fmt.Errorf("probe session: %w", err)
	}
	return s, nil
}

// end deletes a probe session (its answer is not kept).
func (pr *prober) end(ctx context.Context, s *probeSession) {
	if s.id != "" {
		h := s.header(pr.header)
		h.Del("Content-Type")
		_, _, _ = pr.send(ctx, http.MethodDelete, h, nil)
	}
}

// initVersion reads the protocol version of an initialize answer.
func initVersion(resp fixtures.Response) string {
	for _, d := range resp.Data() {
		var m struct {
			Result struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"result"`
		}
		if json.Unmarshal(d, &m) == nil && m.Result.ProtocolVersion != "" {
			return m.Result.ProtocolVersion
		}
	}
	return ""
}

// send makes one request to the upstream and reads its answer: a GET
// stream accepted is not read (it would not end), an event stream until
// its JSON-RPC answer, anything else whole; each within probeTimeout.
func (pr *prober) send(ctx context.Context, method string, h http.Header, body []byte) (fixtures.Request, fixtures.Response, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	u := *pr.p.upstream
	target, err := u.Parse(pr.path)
	if err != nil {
		return fixtures.Request{}, fixtures.Response{}, err
	}
	req, err := http.NewRequestWithContext(ctx, method, target.String(), bytes.NewReader(body))
	if err != nil {
		return fixtures.Request{}, fixtures.Response{}, err
	}
	if len(body) == 0 {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	req.Header = h.Clone()
	rec := fixtures.Request{Method: method, Path: pr.path, Headers: headerMap(h), Body: jsonOrString(body)}
	resp, err := pr.p.client.Do(req)
	if err != nil {
		return rec, fixtures.Response{}, fmt.Errorf("upstream %s unreachable: %v", pr.p.upstream.Redacted(), err)
	}
	defer resp.Body.Close()
	out := fixtures.Response{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Headers: headerMap(resp.Header)}
	switch {
	case method == http.MethodGet && resp.StatusCode/100 == 2:
	case isEventStream(out.ContentType):
		out.Events, out.Cut = readProbeEvents(resp.Body)
	default:
		data, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes))
		fillBody(&out, data, resp)
		out.Cut = err != nil
	}
	return rec, out, nil
}

// readProbeEvents reads events up to the first JSON-RPC answer; cut is set
// when the stream failed or the deadline passed first.
func readProbeEvents(body io.Reader) (evs []fixtures.Event, cut bool) {
	rd := newSSEReader(body)
	for {
		ev, _, err := rd.next()
		if ev == nil {
			return evs, !errors.Is(err, io.EOF)
		}
		e := eventOf(ev)
		evs = append(evs, e)
		if msgs := parseMessages(e.Data, false); len(msgs) > 0 && msgs[0].method == "" && msgs[0].id != nil {
			return evs, false
		}
	}
}
