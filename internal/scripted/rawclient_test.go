package scripted_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// A client of the Streamable HTTP transport written on net/http alone, as a
// port without an MCP SDK would write it, to compare what the live server
// and its replay answer to each thing it sends.

// outcome is what a client sees of one answer.
type outcome struct {
	Step        string
	Status      int
	ContentType string
	Kind        string // empty, text, json, sse
	Framing     string // a whole body: length or chunked
	Headers     map[string]string
	Events      []string // an event stream: what each event was
	Answer      string   // the JSON-RPC result or error (id left out), or the text
}

// comparedHeaders are the answer headers a client may act on.
var comparedHeaders = []string{"Allow", "Cache-Control", "Connection", "Mcp-Session-Id", "X-Content-Type-Options"}

// rawClient runs one conversation of a variant against one server.
type rawClient struct {
	t       testing.TB
	ctx     context.Context
	url     string
	http    *http.Client
	v       variant
	sid     string
	version string
	n       int

	mu      sync.Mutex
	out     []outcome
	get     *getStream
	session string // the Mcp-Session-Id of the last answer that carried one
}

func newRawClient(t testing.TB, url string, v variant) *rawClient {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &rawClient{t: t, ctx: ctx, url: url, http: &http.Client{Transport: tr}, v: v}
}

// nextID is the id of the next request, as the variant numbers them.
func (c *rawClient) nextID() string {
	n := c.n
	c.n++
	if c.v.id != nil {
		return c.v.id(n)
	}
	return fmt.Sprint(n + 1)
}

// headers are the headers of a request as the variant sends them.
func (c *rawClient) headers(method string) http.Header {
	h := http.Header{}
	switch method {
	case http.MethodPost:
		h.Set("Content-Type", "application/json")
		h.Set("Accept", "application/json, text/event-stream")
	case http.MethodGet:
		h.Set("Accept", "text/event-stream")
	}
	if c.sid != "" {
		h.Set("Mcp-Session-Id", c.sid)
	}
	if c.version != "" {
		h.Set("Mcp-Protocol-Version", c.version)
	}
	if c.v.header != nil {
		c.v.header(method, h)
	}
	return h
}

func (c *rawClient) record(o outcome) {
	c.mu.Lock()
	c.out = append(c.out, o)
	c.mu.Unlock()
}

// do sends a request and reads the head of its answer; an error is
// reported (the GET stream's goroutine sends requests too) and nil returned.
func (c *rawClient) do(method string, h http.Header, body string) *http.Response {
	req, err := http.NewRequestWithContext(c.ctx, method, c.url, strings.NewReader(body))
	if err == nil {
		if body == "" {
			req.Body, req.ContentLength = http.NoBody, 0
		}
		req.Header = h
		var resp *http.Response
		if resp, err = c.http.Do(req); err == nil {
			if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
				c.mu.Lock()
				c.session = sid
				c.mu.Unlock()
			}
			return resp
		}
	}
	c.t.Errorf("%s: %v", method, err)
	return nil
}

// head fills what the status line and headers of an answer say.
func head(step string, resp *http.Response) outcome {
	o := outcome{Step: step, Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Kind: "empty"}
	for _, k := range comparedHeaders {
		if v := resp.Header.Get(k); v != "" {
			if o.Headers == nil {
				o.Headers = map[string]string{}
			}
			if k == "Mcp-Session-Id" {
				v = "(set)"
			}
			o.Headers[k] = v
		}
	}
	return o
}

// post sends a JSON-RPC message and reads the whole answer; it answers the
// server requests an event stream carries. The JSON-RPC answer is returned
// as parsed (nil when there is none).
func (c *rawClient) post(step, body string) (outcome, map[string]any) {
	resp := c.do(http.MethodPost, c.headers(http.MethodPost), body)
	if resp == nil {
		return outcome{Step: step}, nil
	}
	defer resp.Body.Close()
	o := head(step, resp)
	var msg map[string]any
	if mt, _, _ := mime.ParseMediaType(o.ContentType); mt == "text/event-stream" {
		o.Kind = "sse"
		msg = c.readEvents(&o, resp.Body)
	} else {
		msg = wholeBody(c.t, &o, resp)
	}
	c.record(o)
	return o, msg
}

// wholeBody reads a body that is not an event stream.
func wholeBody(t testing.TB, o *outcome, resp *http.Response) map[string]any {
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("%s: reading the body: %v", o.Step, err)
	}
	if len(data) == 0 {
		return nil
	}
	o.Framing = "length"
	if resp.ContentLength < 0 {
		o.Framing = "chunked"
	}
	var msg map[string]any
	if json.Unmarshal(data, &msg) != nil {
		o.Kind, o.Answer = "text", string(data)
		return nil
	}
	o.Kind, o.Answer = "json", answerOf(msg)
	return msg
}

// answerOf is a JSON-RPC answer without its id, as canonical JSON.
func answerOf(msg map[string]any) string {
	m := map[string]any{}
	for k, v := range msg {
		if k != "id" {
			m[k] = v
		}
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// readEvents reads an event stream to its end, answering server requests;
// it returns the JSON-RPC answer it carried.
func (c *rawClient) readEvents(o *outcome, body io.Reader) map[string]any {
	var answer map[string]any
	for ev := range sseEvents(body) {
		if ev.comment != "" {
			o.Events = append(o.Events, "comment "+ev.comment)
			continue
		}
		var msg map[string]any
		if json.Unmarshal([]byte(ev.data), &msg) != nil {
			o.Events = append(o.Events, "not JSON "+ev.data)
			continue
		}
		if m, ok := msg["method"].(string); ok {
			o.Events = append(o.Events, "request "+m)
			if id, ok := msg["id"]; ok {
				c.answerServer(id)
			}
			continue
		}
		o.Events = append(o.Events, "response")
		answer, o.Answer = msg, answerOf(msg)
	}
	return answer
}

// answerServer answers a server request (a ping) with an empty result.
func (c *rawClient) answerServer(id any) {
	raw, _ := json.Marshal(id)
	c.post("answer to the server", `{"jsonrpc":"2.0","id":`+string(raw)+`,"result":{}}`)
}

type sseEvent struct{ comment, data string }

// sseEvents yields the events of a stream, one block at a time.
func sseEvents(body io.Reader) func(yield func(sseEvent) bool) {
	return func(yield func(sseEvent) bool) {
		br := bufio.NewReader(body)
		var ev sseEvent
		var data []string
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				return
			}
			line = strings.TrimRight(line, "\r\n")
			switch {
			case line == "":
				if ev.comment == "" && data == nil {
					continue
				}
				ev.data = strings.Join(data, "\n")
				if !yield(ev) {
					return
				}
				ev, data = sseEvent{}, nil
			case strings.HasPrefix(line, ":"):
				ev.comment = strings.TrimPrefix(strings.TrimPrefix(line, ":"), " ")
			case strings.HasPrefix(line, "data:"):
				data = append(data, strings.TrimPrefix(strings.TrimPrefix(line, "data:"), " "))
			}
		}
	}
}

// getStream is the standalone GET stream, read in the background.
type getStream struct {
	o    outcome
	done chan struct{}
}

// openGET opens the standalone stream; it returns once its answer's head
// came, so that the server knows of it before the next request.
func (c *rawClient) openGET() {
	resp := c.do(http.MethodGet, c.headers(http.MethodGet), "")
	if resp == nil {
		return
	}
	g := &getStream{o: head("GET stream", resp), done: make(chan struct{})}
	c.get = g
	if mt, _, _ := mime.ParseMediaType(g.o.ContentType); mt != "text/event-stream" || resp.StatusCode != http.StatusOK {
		wholeBody(c.t, &g.o, resp)
		resp.Body.Close()
		close(g.done)
		return
	}
	g.o.Kind = "sse"
	go func() {
		defer close(g.done)
		defer resp.Body.Close()
		c.readEvents(&g.o, resp.Body)
	}()
}

// closeGET waits for the end of the GET stream (the session ended) and
// records it.
func (c *rawClient) closeGET() {
	if c.get == nil {
		return
	}
	select {
	case <-c.get.done:
	case <-time.After(10 * time.Second):
		c.t.Fatal("the GET stream did not end with the session")
	}
	c.record(c.get.o)
}

// deleteSession ends the session.
func (c *rawClient) deleteSession() {
	resp := c.do(http.MethodDelete, c.headers(http.MethodDelete), "")
	if resp == nil {
		return
	}
	defer resp.Body.Close()
	o := head("DELETE", resp)
	wholeBody(c.t, &o, resp)
	c.record(o)
}

// outcomes returns what the conversation saw; the answers to server
// requests are listed by themselves (when they were sent depends on the
// stream they came on, not on the server).
func (c *rawClient) outcomes() []outcome {
	c.mu.Lock()
	defer c.mu.Unlock()
	var main, answers []outcome
	for _, o := range c.out {
		if o.Step == "answer to the server" {
			answers = append(answers, o)
		} else {
			main = append(main, o)
		}
	}
	return append(main, answers...)
}

func bodyWithID(id, rest string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,` + rest + `}`
}
