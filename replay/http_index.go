package replay

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/mcpparity/mcpparity/fixtures"
)

// answerForm is the recorded form of an HTTP answer.
type answerForm uint8

const (
	formText answerForm = iota // status and plain text (202, 204, 404 ...)
	formJSON                   // application/json body
	formSSE                    // text/event-stream events
)

// httpAnswer is the recorded HTTP answer of one exchange, pre-rendered.
type httpAnswer struct {
	status      int
	contentType string
	headers     [][2]string // recorded headers, Mcp-Session-Id and Content-Length left out
	setsSession bool        // the answer carried Mcp-Session-Id
	form        answerForm
	text        string
	chunked     bool // a whole body sent in chunks, without Content-Length
	cut         bool
	get         bool // the standalone GET stream
}

// httpIndex is an HTTP recording prepared for replay.
type httpIndex struct {
	paths    map[string]bool // recorded paths, without their query
	stateful bool            // initialize answers carried a session id
	probes   *probeSet
	discovery
	lacks *lacks
}

const (
	keyGET    = "GET"
	keyDELETE = "DELETE"
)

// buildHTTP turns the exchanges into interactions and scripts.
func buildHTTP(e *engine, fx *fixtures.Fixture) (*httpIndex, error) {
	ix := &httpIndex{paths: map[string]bool{}, discovery: newDiscovery()}
	where := func(i int) string { return fmt.Sprintf("%s: exchanges[%d] (seq %d)", e.name, i, fx.HTTP[i].Seq) }

	var recorded []json.RawMessage
	for _, ex := range fx.HTTP {
		recorded = append(append(recorded, ex.Request.Body), ex.Response.Data()...)
	}
	ix.lacks = newLacks(recorded)
	msgs := make([]*message, len(fx.HTTP))
	its := make([]*interaction, len(fx.HTTP))
	for i, ex := range fx.HTTP {
		// The query is not compared (the recorder redacts its values).
		path, _, _ := strings.Cut(ex.Request.Path, "?")
		ix.paths[path] = true
		it := &interaction{seq: ex.Seq, pos: ex.Seq}
		its[i] = it
		if len(ex.Request.Body) > 0 {
			m, err := parseMessage(ex.Request.Body)
			if err != nil {
				return nil, fmt.Errorf("%s: request body: %v", where(i), err)
			}
			msgs[i] = m
			if m.isResponse() {
				it.label = fmt.Sprintf("client answer (id %s)", m.id)
				e.answers.put(m.id, it)
			}
		}
	}

	// Events of the standalone GET streams, placed by their After seq.
	getEvents := map[int][]step{}
	for i, ex := range fx.HTTP {
		if ex.Request.Method != http.MethodGet {
			continue
		}
		for j, ev := range ex.Response.Events {
			st, err := eventStep(ev, ex.Seq)
			if err != nil {
				return nil, fmt.Errorf("%s: response.events[%d]: %v", where(i), j, err)
			}
			st.onGET = true
			if st.kind == stepComment || ev.After <= ex.Seq {
				st.at = ex.Seq
				getEvents[ex.Seq] = append(getEvents[ex.Seq], st)
			} else {
				getEvents[ev.After] = append(getEvents[ev.After], st)
			}
		}
	}
	claim := func(st step) step {
		if st.kind == stepEmit && st.m.isRequest() {
			st.answer = e.answers.claim(st.m.id, st.at)
		}
		return st
	}

	for i, ex := range fx.HTTP {
		it, m := its[i], msgs[i]
		a, err := newHTTPAnswer(ex.Response)
		if err != nil {
			return nil, fmt.Errorf("%s: response: %v", where(i), err)
		}
		it.http = a
		switch {
		case ex.Request.Method == http.MethodGet:
			a.get = true
			it.key, it.label, it.method = keyGET, "GET stream", keyGET
		case ex.Request.Method == http.MethodDelete:
			it.key, it.label, it.method = keyDELETE, "DELETE", keyDELETE
		case m == nil:
			return nil, fmt.Errorf("%s: a %s without a JSON-RPC body", where(i), ex.Request.Method)
		case m.isResponse():
			// matched by id when the client answers a server request
		default:
			if err := e.keyed(it, m); err != nil {
				return nil, fmt.Errorf("%s: request body: %v", where(i), err)
			}
			if hk := recordedHostKey(ex.Request.Headers); hk != "" {
				it.key += hk
				it.label += " with" + hk
			}
			if v := fixtures.MetaVersion(m.params); v != "" {
				it.key += eraKey(v)
				it.label += " (" + v + ")"
			}
			if m.method == "initialize" && a.setsSession {
				ix.stateful = true
			}
			if m.method == "server/discover" {
				ix.add(ex.Response)
			}
			it.session = ex.Request.Headers["Mcp-Session-Id"]
			if it.session == "" {
				it.session = ex.Response.Headers["Mcp-Session-Id"]
			}
		}
		// GET events placed here come first (for a call, before its answer).
		for _, st := range getEvents[ex.Seq] {
			it.script.add(claim(st))
		}
		if m != nil && m.isRequest() {
			switch a.form {
			case formSSE:
				for j, ev := range ex.Response.Events {
					st, err := eventStep(ev, ex.Seq)
					if err != nil {
						return nil, fmt.Errorf("%s: response.events[%d]: %v", where(i), j, err)
					}
					if st.kind == stepEmit && st.m.isResponse() && string(st.m.id) == string(m.id) {
						st.kind = stepRespond
					}
					it.script.add(claim(st))
				}
			case formJSON:
				bm, err := parseMessage(ex.Response.Body)
				if err != nil {
					return nil, fmt.Errorf("%s: response.body: %v", where(i), err)
				}
				it.script.add(step{kind: stepRespond, m: bm, at: atEnd, seq: ex.Seq})
			}
		}
		it.script.finish()
		e.addInteraction(it)
	}
	e.done()
	return ix, nil
}

func eventStep(ev fixtures.Event, seq int) (step, error) {
	if len(ev.Data) == 0 {
		return step{kind: stepComment, comment: ev.Comment, event: ev.Event, evID: ev.ID, at: ev.After, seq: seq}, nil
	}
	m, ok := rawText(ev.Data)
	if !ok {
		var err error
		if m, err = parseMessage(ev.Data); err != nil {
			return step{}, fmt.Errorf("data: %v", err)
		}
	}
	return step{kind: stepEmit, m: m, event: ev.Event, evID: ev.ID, at: ev.After, seq: seq}, nil
}

func newHTTPAnswer(r fixtures.Response) (*httpAnswer, error) {
	a := &httpAnswer{status: r.Status, contentType: r.ContentType, text: r.Text, chunked: r.Chunked, cut: r.Cut}
	for k, v := range r.Headers {
		switch http.CanonicalHeaderKey(k) {
		case "Mcp-Session-Id":
			a.setsSession = true
		case "Content-Length", "Content-Type":
		default:
			a.headers = append(a.headers, [2]string{k, v})
		}
	}
	ct := strings.ToLower(r.ContentType)
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		a.form = formSSE
	case len(r.Body) > 0:
		a.form = formJSON
		if a.contentType == "" {
			a.contentType = "application/json"
		}
	}
	return a, nil
}
