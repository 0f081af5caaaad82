package recorder

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
)

// maxBodyBytes bounds a request body or a non-streamed answer.
const maxBodyBytes = 64 << 20

// DefaultHeaderWait is how long the proxy holds the headers of an SSE answer
// while waiting for its first event (see ProxyOptions.HeaderWait).
const DefaultHeaderWait = time.Second

// ProxyOptions tunes a Proxy. The zero value is ready to use.
type ProxyOptions struct {
	// Probes choose the probes Probe sends.
	Probes ProbeOptions
	// HeaderWait bounds how long the headers of an SSE answer are held back
	// while waiting for its first event, so that the event is read before the
	// client can react to the headers (the go-sdk client POSTs
	// notifications/initialized as soon as its GET stream is open). Zero means
	// DefaultHeaderWait.
	HeaderWait time.Duration
	// DialTimeout bounds connecting to the upstream. Zero means 10 s.
	DialTimeout time.Duration
}

// Proxy is a recording reverse proxy for Streamable HTTP. It forwards every
// request to the upstream unchanged (SSE answers event by event, flushed as
// they pass) and records each exchange in the order requests arrived.
type Proxy struct {
	upstream   *url.URL
	client     *http.Client
	transport  *http.Transport
	headerWait time.Duration
	probeOpts  ProbeOptions
	lastEvent  atomic.Int64 // when an event was last read (UnixNano)
	sessions   atomic.Bool  // an answer handed out an Mcp-Session-Id

	ctx    context.Context // cancelled by Close: ends every open stream
	cancel context.CancelFunc
	wg     sync.WaitGroup

	mu        sync.Mutex
	closed    bool
	exchanges []*fixtures.Exchange
	// open holds the POSTs not yet answered in full; triggers those during
	// which the server sent a request of its own on a GET stream (by Seq).
	open, triggers map[int]bool
	probes         []fixtures.Probe // set by Probe
	errs           []error
	ended          chan struct{}
	endedOnce      sync.Once
}

// NewProxy returns a proxy in front of upstream, the URL of the server's
// Streamable HTTP endpoint. Requests keep their own path and query; only the
// scheme and host are taken from upstream.
func NewProxy(upstream string, opts *ProxyOptions) (*Proxy, error) {
	u, err := url.Parse(upstream)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("recorder: upstream %q is not an http(s) URL", upstream)
	}
	if opts == nil {
		opts = &ProxyOptions{}
	}
	dial := opts.DialTimeout
	if dial <= 0 {
		dial = 10 * time.Second
	}
	wait := opts.HeaderWait
	if wait <= 0 {
		wait = DefaultHeaderWait
	}
	tr := &http.Transport{
		Proxy:                 nil,
		DialContext:           (&net.Dialer{Timeout: dial}).DialContext,
		TLSHandshakeTimeout:   dial,
		MaxIdleConnsPerHost:   16,
		IdleConnTimeout:       30 * time.Second,
		ExpectContinueTimeout: time.Second,
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Proxy{
		upstream:   u,
		client:     &http.Client{Transport: tr, CheckRedirect: noRedirect},
		transport:  tr,
		headerWait: wait,
		probeOpts:  opts.Probes,
		ctx:        ctx,
		cancel:     cancel,
		ended:      make(chan struct{}),
		open:       map[int]bool{},
		triggers:   map[int]bool{},
	}, nil
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// Ended is closed when a DELETE (the client ending its session) has been
// answered with a success status.
func (p *Proxy) Ended() <-chan struct{} { return p.ended }

// HandedOutSession reports whether an answer carried an Mcp-Session-Id: a
// client then ends its session with a DELETE; one never given an id has
// none to end.
func (p *Proxy) HandedOutSession() bool { return p.sessions.Load() }

// Errors returns the upstream failures seen so far (unreachable upstream,
// stream cut), each naming the request it hit.
func (p *Proxy) Errors() []error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]error(nil), p.errs...)
}

// Close ends every open stream, waits for the handlers in flight and refuses
// later requests. It does not close the listener the proxy is served on.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.cancel()
	p.wg.Wait()
	p.transport.CloseIdleConnections()
	return nil
}

// Recording returns a copy of the exchanges recorded so far, raw (not yet
// normalized), in arrival order.
func (p *Proxy) Recording() Recording {
	p.mu.Lock()
	defer p.mu.Unlock()
	rec := Recording{Transport: fixtures.TransportHTTP}
	for _, ex := range p.exchanges {
		c := *ex
		c.Request.Headers = copyMap(ex.Request.Headers)
		c.Response.Headers = copyMap(ex.Response.Headers)
		c.Response.Events = append([]fixtures.Event(nil), ex.Response.Events...)
		rec.Exchanges = append(rec.Exchanges, c)
	}
	rec.Probes = append(rec.Probes, p.probes...)
	return rec
}

// ServeHTTP forwards one request and records the exchange.
func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		http.Error(w, "mcpparity record: recorder closed", http.StatusServiceUnavailable)
		return
	}
	p.wg.Add(1)
	p.mu.Unlock()
	defer p.wg.Done()

	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		http.Error(w, "mcpparity record: reading the request: "+err.Error(), http.StatusBadRequest)
		return
	}
	local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
	ownHost, ownOrigin := fixtures.OwnHost(r.Host, local), fixtures.OwnOrigin(r.Header.Get("Origin"), local)
	ex := p.arrive(r, body, ownHost, ownOrigin)
	defer p.answered(ex)

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	stop := context.AfterFunc(p.ctx, cancel)
	defer stop()

	out, err := http.NewRequestWithContext(ctx, r.Method, p.target(r.URL), bytes.NewReader(body))
	if err != nil {
		p.fail(w, ex, fmt.Errorf("request %d (%s %s): %v", ex.Seq, r.Method, r.URL.Path, err))
		return
	}
	if len(body) == 0 {
		out.Body = http.NoBody
		out.ContentLength = 0
	}
	copyHeaders(out.Header, r.Header)
	out.Header.Del("Accept-Encoding") // the transport negotiates and decodes gzip itself
	// The upstream sees what it would see called directly: a Host or
	// Origin naming this proxy names the upstream, any other is forwarded
	// as the client sent it (a server may answer it otherwise: 403).
	if !ownHost {
		out.Host = r.Host
	}
	if r.Header.Get("Origin") != "" && ownOrigin {
		out.Header.Set("Origin", p.upstream.Scheme+"://"+p.upstream.Host)
	}

	resp, err := p.client.Do(out)
	if err != nil {
		if ctx.Err() != nil {
			return // the client left or the recorder is closing: never answered
		}
		p.fail(w, ex, fmt.Errorf("request %d (%s %s): upstream %s unreachable: %v", ex.Seq, r.Method, r.URL.Path, p.upstream.Redacted(), err))
		return
	}
	defer resp.Body.Close()

	if resp.Header.Get("Mcp-Session-Id") != "" {
		p.sessions.Store(true)
	}
	p.mu.Lock()
	ex.Response.Status = resp.StatusCode
	ex.Response.ContentType = resp.Header.Get("Content-Type")
	ex.Response.Headers = headerMap(resp.Header)
	p.mu.Unlock()

	if isEventStream(ex.Response.ContentType) {
		p.stream(ctx, cancel, w, resp, ex)
	} else {
		if isNotification(body) && resp.StatusCode/100 == 2 {
			p.settle(ctx)
		}
		p.plain(ctx, w, resp, ex)
	}
	if r.Method == http.MethodDelete && resp.StatusCode/100 == 2 {
		p.endedOnce.Do(func() { close(p.ended) })
	}
}

// arrive numbers the request and records it. Its Seq is from then on the
// "last arrived" request for events read on any stream. Host and Origin
// are kept only when they do not name the proxy (fixtures.OwnHost).
func (p *Proxy) arrive(r *http.Request, body []byte, ownHost, ownOrigin bool) *fixtures.Exchange {
	path := r.URL.EscapedPath()
	if r.URL.RawQuery != "" {
		path += "?" + r.URL.RawQuery
	}
	headers := headerMap(r.Header)
	if ownOrigin {
		delete(headers, "Origin")
	}
	if !ownHost {
		if headers == nil {
			headers = map[string]string{}
		}
		headers["Host"] = r.Host
	}
	ex := &fixtures.Exchange{Request: fixtures.Request{
		Method:  r.Method,
		Path:    path,
		Headers: headers,
		Body:    jsonOrString(body),
	}}
	p.mu.Lock()
	ex.Seq = len(p.exchanges) + 1
	p.exchanges = append(p.exchanges, ex)
	if r.Method == http.MethodPost {
		p.open[ex.Seq] = true
	}
	p.mu.Unlock()
	return ex
}

// answered marks a request's answer forwarded in full.
func (p *Proxy) answered(ex *fixtures.Exchange) {
	p.mu.Lock()
	delete(p.open, ex.Seq)
	p.mu.Unlock()
}

func (p *Proxy) target(in *url.URL) string {
	u := *p.upstream
	u.Path, u.RawPath = in.Path, in.RawPath
	u.RawQuery = in.RawQuery
	return u.String()
}

// fail answers 502 and records the failure, with a text free of addresses.
func (p *Proxy) fail(w http.ResponseWriter, ex *fixtures.Exchange, err error) {
	const text = "mcpparity record: upstream unreachable\n"
	p.mu.Lock()
	p.errs = append(p.errs, err)
	ex.Response = fixtures.Response{Status: http.StatusBadGateway, ContentType: "text/plain; charset=utf-8", Text: text}
	p.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusBadGateway)
	io.WriteString(w, text)
}

// plain forwards and records a whole (non-SSE) answer.
func (p *Proxy) plain(ctx context.Context, w http.ResponseWriter, resp *http.Response, ex *fixtures.Exchange) {
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBodyBytes))
	p.mu.Lock()
	fillBody(&ex.Response, body, resp)
	chunked := ex.Response.Chunked
	cut := err != nil && ctx.Err() == nil
	if cut {
		ex.Response.Cut = true
		p.errs = append(p.errs, fmt.Errorf("request %d (%s %s): upstream answer cut: %v", ex.Seq, ex.Request.Method, ex.Request.Path, err))
	}
	p.mu.Unlock()

	copyHeaders(w.Header(), resp.Header)
	if !cut && !chunked {
		w.Header().Set("Content-Length", fmt.Sprint(len(body)))
	}
	w.WriteHeader(resp.StatusCode)
	w.Write(body)
	if cut {
		panic(http.ErrAbortHandler) // the client sees the cut too
	}
	if chunked {
		_ = http.NewResponseController(w).Flush() // framed as it came
	}
}

// fillBody records a whole answer's body: JSON as body, anything else as
// text, and whether it came in chunks.
func fillBody(r *fixtures.Response, body []byte, resp *http.Response) {
	if isJSON(r.ContentType) && json.Valid(body) {
		r.Body = append([]byte(nil), body...)
	} else {
		r.Text = string(body)
	}
	r.Chunked = len(body) > 0 && resp.ContentLength < 0 && len(resp.TransferEncoding) > 0 && resp.TransferEncoding[0] == "chunked"
}

// streamItem is what the stream reader hands to the forwarding loop: an
// event, or the end of the stream (tail bytes and the read error).
type streamItem struct {
	ev   *sseEvent
	tail []byte
	err  error
}

// stream forwards an SSE answer event by event, recording each event when it
// is read.
func (p *Proxy) stream(ctx context.Context, cancel context.CancelFunc, w http.ResponseWriter, resp *http.Response, ex *fixtures.Exchange) {
	items := make(chan streamItem)
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		rd := newSSEReader(resp.Body)
		for {
			ev, tail, err := rd.next()
			if ev != nil {
				p.record(ex, ev)
			} else {
				p.finish(ctx, ex, err)
			}
			select {
			case items <- streamItem{ev, tail, err}:
			case <-ctx.Done():
				return
			}
			if ev == nil {
				return
			}
		}
	}()
	defer func() {
		cancel()
		resp.Body.Close()
		<-readerDone
	}()

	rc := http.NewResponseController(w)
	sent := false
	sendHeaders := func() {
		sent = true
		copyHeaders(w.Header(), resp.Header)
		w.Header().Del("Content-Length")
		w.WriteHeader(resp.StatusCode)
		_ = rc.Flush()
	}
	wait := time.NewTimer(p.headerWait)
	defer wait.Stop()
	for {
		select {
		case it := <-items:
			if !sent {
				sendHeaders()
			}
			if it.ev != nil {
				if _, err := w.Write(it.ev.raw); err != nil {
					return
				}
				_ = rc.Flush()
				continue
			}
			if len(it.tail) > 0 {
				w.Write(it.tail)
				_ = rc.Flush()
			}
			if !errors.Is(it.err, io.EOF) && ctx.Err() == nil {
				panic(http.ErrAbortHandler) // the client sees the cut too
			}
			return
		case <-wait.C:
			if !sent {
				sendHeaders()
			}
		case <-ctx.Done():
			return
		}
	}
}

// notifySettle is how long the streams must stay quiet before the answer
// to a client notification is passed on (see settle).
const notifySettle = 50 * time.Millisecond

// settle holds the answer to a client notification until no event has
// been read for notifySettle (at most HeaderWait): what the server sends
// on its streams in reaction (server-everything's tools/list_changed after
// notifications/initialized) is read before the client can send its next
// request, so that a recording places it the same way every time.
func (p *Proxy) settle(ctx context.Context) {
	start := time.Now()
	deadline := start.Add(p.headerWait)
	for {
		last := max(start.UnixNano(), p.lastEvent.Load())
		quiet := time.Since(time.Unix(0, last))
		if quiet >= notifySettle || time.Now().After(deadline) {
			return
		}
		select {
		case <-time.After(notifySettle - quiet):
		case <-ctx.Done():
			return
		}
	}
}

// isNotification reports whether a request body is one JSON-RPC
// notification.
func isNotification(body []byte) bool {
	msgs := parseMessages(body, true)
	return len(msgs) == 1 && msgs[0].method != "" && msgs[0].id == nil
}

// record appends one event, placed after the last request that has arrived.
func (p *Proxy) record(ex *fixtures.Exchange, ev *sseEvent) {
	e := eventOf(ev)
	p.lastEvent.Store(time.Now().UnixNano())
	p.mu.Lock()
	e.After = len(p.exchanges)
	ex.Response.Events = append(ex.Response.Events, e)
	if ex.Request.Method == http.MethodGet && isRequest(e.Data) {
		for seq := range p.open {
			p.triggers[seq] = true
		}
	}
	p.mu.Unlock()
}

// isRequest reports whether data is one JSON-RPC request (method and id).
func isRequest(data []byte) bool {
	msgs := parseMessages(data, false)
	return len(msgs) == 1 && msgs[0].method != "" && msgs[0].id != nil
}

// eventOf is an event as a fixture holds it (off the timeline).
func eventOf(ev *sseEvent) fixtures.Event {
	e := fixtures.Event{Comment: ev.comment, Event: ev.event, ID: ev.id}
	if ev.hasData {
		e.Data = jsonOrString([]byte(ev.data))
		if e.Data == nil {
			e.Data = []byte(`""`)
		}
	}
	return e
}

// finish marks a stream that ended with an error as cut, unless the client
// left or the recorder is closing (then the stream simply ends there).
func (p *Proxy) finish(ctx context.Context, ex *fixtures.Exchange, err error) {
	if errors.Is(err, io.EOF) || ctx.Err() != nil {
		return
	}
	p.mu.Lock()
	ex.Response.Cut = true
	p.errs = append(p.errs, fmt.Errorf("request %d (%s %s): upstream stream cut: %v", ex.Seq, ex.Request.Method, ex.Request.Path, err))
	p.mu.Unlock()
}

func isEventStream(ct string) bool {
	mt, _, _ := mime.ParseMediaType(ct)
	return mt == "text/event-stream"
}

func isJSON(ct string) bool {
	mt, _, _ := mime.ParseMediaType(ct)
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// hopHeaders are connection-level headers a proxy never forwards.
var hopHeaders = []string{"Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization",
	"Proxy-Connection", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func copyHeaders(dst, src http.Header) {
	for k, vs := range src {
		dst[k] = append([]string(nil), vs...)
	}
	for _, h := range hopHeaders {
		dst.Del(h)
	}
}

// headerMap flattens headers: canonical keys, several values joined by ", ".
func headerMap(h http.Header) map[string]string {
	if len(h) == 0 {
		return nil
	}
	m := make(map[string]string, len(h))
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		ck := http.CanonicalHeaderKey(k)
		v := strings.Join(h[k], ", ")
		if old, ok := m[ck]; ok {
			v = old + ", " + v
		}
		m[ck] = v
	}
	return m
}

func copyMap(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}
