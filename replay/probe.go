package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/fixtures/probekind"
)

// probeAnswer is a recorded probe (fixtures.Probe) prepared for replay:
// the server's answer to a faulty request.
type probeAnswer struct {
	kind    string
	request string // as reports name it
	refused bool
	http    *httpAnswer
	reqID   []byte   // the probe request's id, replaced by the client's in the answer
	body    *message // a JSON-RPC body
	raw     []byte   // any other JSON body
	events  []step
}

// probeSet holds a fixture's probes: one per kind, and the
// no-standalone-stream ones by the match key of their request.
type probeSet struct {
	byKind   map[string]*probeAnswer
	noStream map[string]*probeAnswer
}

// get returns the probe of kind, nil when the fixture has none.
func (ps *probeSet) get(kind string) *probeAnswer {
	if kind == "" {
		return nil
	}
	return ps.byKind[kind]
}

// refusing returns the probe of kind when the server refused it.
func (ps *probeSet) refusing(kind string) *probeAnswer {
	if p := ps.get(kind); p != nil && p.refused {
		return p
	}
	return nil
}

func buildProbes(e *engine, probes []fixtures.Probe) (*probeSet, error) {
	ps := &probeSet{byKind: map[string]*probeAnswer{}, noStream: map[string]*probeAnswer{}}
	for i, p := range probes {
		pa, err := newProbeAnswer(p)
		if err != nil {
			return nil, fmt.Errorf("%s: probes[%d] (%s): %v", e.name, i, p.Kind, err)
		}
		if p.Kind != probekind.NoStandaloneStream {
			ps.byKind[probeKey(p)] = pa
			continue
		}
		m, err := parseMessage(p.Request.Body)
		if err != nil {
			return nil, fmt.Errorf("%s: probes[%d] (%s): request body: %v", e.name, i, p.Kind, err)
		}
		key, _, err := e.match.key(m.method, m.params)
		if err != nil {
			return nil, fmt.Errorf("%s: probes[%d] (%s): request params: %v", e.name, i, p.Kind, err)
		}
		ps.noStream[key] = pa
	}
	return ps, nil
}

func newProbeAnswer(p fixtures.Probe) (*probeAnswer, error) {
	a, err := newHTTPAnswer(p.Response)
	if err != nil {
		return nil, err
	}
	pa := &probeAnswer{kind: p.Kind, request: p.ProbeRequest(), refused: p.Refused(), http: a}
	if len(p.Request.Body) > 0 && json.Valid(p.Request.Body) {
		var in incoming
		if json.Unmarshal(p.Request.Body, &in) == nil && in.hasID() {
			pa.reqID = compactJSON(in.ID)
		}
	}
	if len(p.Response.Body) > 0 {
		if m, err := parseMessage(p.Response.Body); err == nil {
			pa.body = m
		} else {
			pa.raw = compactJSON(p.Response.Body)
		}
	}
	for j, ev := range p.Response.Events {
		st, err := eventStep(ev, 0)
		if err != nil {
			return nil, fmt.Errorf("response.events[%d]: %v", j, err)
		}
		pa.events = append(pa.events, st)
	}
	return pa, nil
}

func compactJSON(raw []byte) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

// withClientID returns m as sent to the client: the probe request's id
// replaced by the client's own.
func (pa *probeAnswer) withClientID(m *message, clientID json.RawMessage) []byte {
	if m.id == nil || len(clientID) == 0 || !bytes.Equal(m.id, pa.reqID) {
		return m.raw
	}
	return m.withID(compactJSON(clientID))
}

// write sends the probe's recorded answer.
func (pa *probeAnswer) write(w http.ResponseWriter, clientID json.RawMessage) {
	a := pa.http
	h := w.Header()
	for _, kv := range a.headers {
		h.Set(kv[0], kv[1])
	}
	if a.contentType != "" {
		h.Set("Content-Type", a.contentType)
	}
	switch {
	case a.form == formSSE:
		w.WriteHeader(a.status)
		for i := range pa.events {
			st := &pa.events[i]
			var data []byte
			if st.m != nil {
				data = pa.withClientID(st.m, clientID)
			}
			_, _ = w.Write(sseFrame(st, data))
		}
		_ = http.NewResponseController(w).Flush()
	case pa.body != nil:
		writeBody(w, a.status, pa.withClientID(pa.body, clientID), a.chunked)
	case pa.raw != nil:
		writeBody(w, a.status, pa.raw, a.chunked)
	default:
		writeBody(w, a.status, []byte(a.text), a.chunked)
	}
}

// refuse answers as the server answered the probe and reports the refusal.
func (r *Replay) refuse(w http.ResponseWriter, pa *probeAnswer, clientID json.RawMessage) {
	r.e.led.update(func(rep *Report) { rep.Refused = append(rep.Refused, pa.request) })
	pa.write(w, clientID)
}

// accepted is what an Accept header names: the two types of the transport,
// and a wildcard standing for either.
type accepted struct{ json, sse, wildJSON, wildSSE bool }

// readAccept reads the media ranges of Accept values (parameters dropped,
// any case).
func readAccept(values []string) accepted {
	var a accepted
	for _, v := range values {
		for v != "" {
			var part string
			part, v, _ = strings.Cut(v, ",")
			base, _, _ := strings.Cut(part, ";")
			switch base = strings.TrimSpace(base); {
			case strings.EqualFold(base, "application/json"):
				a.json = true
			case strings.EqualFold(base, "text/event-stream"):
				a.sse = true
			case base == "*/*":
				a.wildJSON, a.wildSSE = true, true
			case strings.EqualFold(base, "application/*"):
				a.wildJSON = true
			case strings.EqualFold(base, "text/*"):
				a.wildSSE = true
			}
		}
	}
	return a
}

// postFault is the probe kind of a POST's Content-Type and Accept, "" when
// both are as a client must send them.
func postFault(h http.Header) string {
	ct := h.Get("Content-Type")
	if base, _, _ := strings.Cut(ct, ";"); !strings.EqualFold(strings.TrimSpace(base), "application/json") {
		if mt, _, _ := mime.ParseMediaType(ct); mt != "application/json" {
			return probekind.NoContentType
		}
	}
	a := readAccept(h.Values("Accept"))
	switch {
	case a.json && a.sse:
		return ""
	case a.json && a.wildSSE || a.sse && a.wildJSON || a.wildJSON && a.wildSSE:
		return probekind.AcceptWildcard
	case a.json:
		return probekind.AcceptJSONOnly
	case a.sse:
		return probekind.AcceptSSEOnly
	}
	return probekind.NoAccept
}

// getFault is the probe kind of a GET's Accept, "" when it names
// text/event-stream.
func getFault(h http.Header) string {
	a := readAccept(h.Values("Accept"))
	switch {
	case a.sse:
		return ""
	case a.wildSSE:
		return probekind.GETAcceptWildcard
	}
	return probekind.GETNoAccept
}

// isBatch reports whether a POST body is a JSON-RPC batch.
func isBatch(body []byte) bool {
	b := bytes.TrimSpace(body)
	return len(b) > 0 && b[0] == '['
}

// bodyID is the JSON-RPC id of a body, nil when it has none or is no
// JSON-RPC message.
func bodyID(body []byte) json.RawMessage {
	var in incoming
	if isBatch(body) || json.Unmarshal(body, &in) != nil || !in.hasID() {
		return nil
	}
	return in.ID
}
