package recorder

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/fixtures/probekind"
	"github.com/mcpparity/mcpparity/internal/sdkserver"
)

// Recording is raw captured traffic, before normalization: HTTP exchanges
// (from a Proxy) or stdio lines (from a Stdio), in the order observed.
type Recording struct {
	Transport string
	Exchanges []fixtures.Exchange
	// Probes are the server's answers to faulty requests (Proxy.Probe).
	Probes []fixtures.Probe
	Lines  []fixtures.Line
}

// Config is what the builder needs beyond the traffic.
type Config struct {
	// Name of the recording (manifest.name), required.
	Name string
	// SDKModule and SDKVersion name the server's SDK (see GoSDK), for
	// manifest.sdkModule and sdkVersion. When both are empty and the server
	// announces itself as the harness's own (sdkserver.Name), the go-sdk
	// linked into this binary is written; otherwise they stay empty: the
	// SDK of another server is not guessed (manifest.server says who it is).
	SDKModule  string
	SDKVersion string
	// Headers names the configured request headers: they are kept in the
	// fixture and their values are secrets.
	Headers []string
	// Secrets are further values never to be written (configured tokens,
	// configured environment values).
	Secrets []string
	// SecretPatterns: every match of each in the traffic (a path, a
	// header value, a string of a message, decoded) is a secret too.
	SecretPatterns []*regexp.Regexp
}

// minCheckedSecret is the shortest secret whose absence Build verifies in
// the encoded fixture; shorter values are still replaced where they occur.
const minCheckedSecret = 4

// Build normalizes a recording into a fixture and fills its manifest from the
// traffic. The result is deterministic: the same traffic gives the same bytes
// through fixtures.Encode.
func Build(rec Recording, cfg Config) (*fixtures.Fixture, error) {
	if cfg.Name == "" {
		return nil, errors.New("recorder: the fixture has no name")
	}
	f := &fixtures.Fixture{Format: fixtures.FormatVersion, Manifest: fixtures.Manifest{
		Name:       cfg.Name,
		Transport:  rec.Transport,
		SDKModule:  cfg.SDKModule,
		SDKVersion: cfg.SDKVersion,
		Tools:      []string{},
	}}
	secrets := collectSecrets(rec, cfg)
	var msgs []message // every JSON-RPC message, for the manifest
	switch rec.Transport {
	case fixtures.TransportHTTP:
		var err error
		if msgs, err = buildHTTP(f, rec, cfg, secrets); err != nil {
			return nil, err
		}
	case fixtures.TransportStdio:
		if len(rec.Lines) == 0 {
			return nil, errors.New("recorder: no stdio line was recorded")
		}
		r := newReplacer(secrets, nil)
		lines := func(in []fixtures.Line) []fixtures.Line {
			var out []fixtures.Line
			for _, l := range in {
				out = append(out, fixtures.Line{Dir: l.Dir, Message: r.json(l.Message), Process: l.Process})
			}
			return out
		}
		f.Stdio = lines(rec.Lines)
		for _, l := range rec.Lines {
			msgs = append(msgs, within(l.ProcessOf(), parseMessages(l.Message, l.Dir == fixtures.DirSend))...)
		}
		for _, p := range sortProbes(rec.Probes) {
			f.Probes = append(f.Probes, fixtures.Probe{Kind: p.Kind, Lines: lines(p.Lines)})
		}
	default:
		return nil, fmt.Errorf("recorder: unknown transport %q", rec.Transport)
	}
	if err := fillManifest(&f.Manifest, msgs); err != nil {
		return nil, err
	}
	if m := &f.Manifest; m.SDKModule == "" && m.SDKVersion == "" &&
		(m.Server == sdkserver.Name || strings.HasPrefix(m.Server, sdkserver.Name+"/")) {
		m.SDKModule, m.SDKVersion = GoSDK()
	}
	if err := f.Validate(); err != nil {
		return nil, fmt.Errorf("recorder: built fixture is invalid: %w", err)
	}
	data, err := fixtures.Encode(f)
	if err != nil {
		return nil, fmt.Errorf("recorder: encoding the fixture: %w", err)
	}
	if survives(data, secrets) {
		return nil, errors.New("recorder: a secret value survived normalization (as it is, JSON-escaped or percent-encoded); refusing to build the fixture")
	}
	return f, nil
}

// buildHTTP fills the exchanges, probes and response mode of f; it returns
// every JSON-RPC message, for the manifest.
func buildHTTP(f *fixtures.Fixture, rec Recording, cfg Config, secrets []string) ([]message, error) {
	exs := bySession(answered(rec.Exchanges))
	if len(exs) == 0 {
		return nil, errors.New("recorder: no answered HTTP exchange was recorded")
	}
	probes := sortProbes(rec.Probes)
	n := &normalizer{r: newReplacer(secrets, sessionPlaceholders(exs, probes)),
		reqAllowed: allowSet(requestHeaders, cfg.Headers), respAllowed: allowSet(responseHeaders),
		events: eventPlaceholders(exs, probes)}
	var msgs []message
	for _, ex := range exs {
		f.HTTP = append(f.HTTP, n.exchange(ex))
		msgs = append(msgs, within(ex.Seq, exchangeMessages(ex))...)
	}
	for _, p := range probes {
		ex := n.exchange(fixtures.Exchange{Request: p.Request, Response: p.Response})
		f.Probes = append(f.Probes, fixtures.Probe{Kind: p.Kind, Request: ex.Request, Response: ex.Response})
	}
	f.Manifest.ResponseMode = responseMode(exs)
	return msgs, nil
}

// collectSecrets gathers the configured secrets, the Authorization values
// (whole, the credentials after the scheme, and for Basic the decoded
// user:password and password), the values of configured headers seen in
// requests, and query values that look like credentials (see
// secretQueryValue).
func collectSecrets(rec Recording, cfg Config) []string {
	var out []string
	for _, s := range cfg.Secrets {
		if s != "" {
			out = append(out, s)
		}
	}
	out = append(out, matchedSecrets(rec, cfg.SecretPatterns)...)
	secretHeaders := allowSet([]string{"Authorization"}, cfg.Headers)
	for _, ex := range rec.Exchanges {
		for k, v := range ex.Request.Headers {
			if !secretHeaders[http.CanonicalHeaderKey(k)] {
				continue
			}
			for _, part := range strings.Split(v, ", ") {
				out = append(out, v, part)
				scheme, cred, ok := strings.Cut(part, " ")
				if cred = strings.TrimSpace(cred); !ok || cred == "" {
					continue
				}
				out = append(out, cred)
				if strings.EqualFold(scheme, "Basic") {
					if dec, err := base64.StdEncoding.DecodeString(cred); err == nil {
						out = append(out, string(dec))
						if _, pass, ok := strings.Cut(string(dec), ":"); ok && pass != "" {
							out = append(out, pass)
						}
					}
				}
			}
		}
		_, query, _ := strings.Cut(ex.Request.Path, "?")
		for _, kv := range strings.Split(query, "&") {
			name, value, _ := strings.Cut(kv, "=")
			if secretQueryValue(name, value) {
				out = append(out, value)
				if dec, err := url.QueryUnescape(value); err == nil {
					out = append(out, dec)
				}
			}
		}
	}
	return out
}

// credentialWords mark a query parameter whose value is a secret.
var credentialWords = []string{"key", "token", "secret", "auth", "pass", "pwd", "sig", "cred", "session", "code", "jwt", "bearer", "cookie"}

// secretQueryValue says whether a query value is a secret everywhere in the
// recording (every query value is replaced in request.path anyway): the
// parameter's name holds a credential word, or the value has 16 bytes or
// more (an opaque token). Shorter values of other names (v=2, mode=json)
// are not looked for elsewhere; declare them with --secret if needed.
func secretQueryValue(name, value string) bool {
	if value == "" {
		return false
	}
	if len(value) >= 16 {
		return true
	}
	name = strings.ToLower(name)
	for _, w := range credentialWords {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// answered drops the exchanges that never got an answer (the client left
// first) and renumbers the rest, moving event positions along.
func answered(in []fixtures.Exchange) []fixtures.Exchange {
	newSeq := make([]int, len(in)+1) // old seq -> new seq of the last kept request at or before it
	var out []fixtures.Exchange
	for i, ex := range in {
		if ex.Response.Status != 0 {
			out = append(out, ex)
		}
		newSeq[i+1] = len(out)
	}
	for i := range out {
		out[i].Seq = i + 1
		evs := make([]fixtures.Event, len(out[i].Response.Events))
		for j, e := range out[i].Response.Events {
			if e.After >= 0 && e.After < len(newSeq) {
				e.After = newSeq[e.After]
			}
			evs[j] = e
		}
		if len(evs) == 0 {
			evs = nil
		}
		out[i].Response.Events = evs
	}
	return out
}

// sessionPlaceholders numbers the distinct session ids in order of first
// appearance (request header, then response header, exchange by exchange,
// then probe by probe).
func sessionPlaceholders(exs []fixtures.Exchange, probes []fixtures.Probe) map[string]string {
	m := map[string]string{}
	see := func(h map[string]string) {
		for k, v := range h {
			if http.CanonicalHeaderKey(k) == "Mcp-Session-Id" && v != "" {
				if _, ok := m[v]; !ok {
					m[v] = fixtures.SessionPlaceholder(len(m) + 1)
				}
			}
		}
	}
	for _, ex := range exs {
		see(ex.Request.Headers)
		see(ex.Response.Headers)
	}
	for _, p := range probes {
		see(p.Request.Headers)
		see(p.Response.Headers)
	}
	return m
}

// eventPlaceholders numbers the distinct SSE event ids in order of first
// appearance (exchange by exchange, then probe by probe): servers draw them
// at random (the TypeScript SDK: UUIDs), and a recording is the same every
// time only without them.
func eventPlaceholders(exs []fixtures.Exchange, probes []fixtures.Probe) map[string]string {
	m := map[string]string{}
	see := func(evs []fixtures.Event) {
		for _, e := range evs {
			if _, ok := m[e.ID]; e.ID != "" && !ok {
				m[e.ID] = fixtures.EventPlaceholder(len(m) + 1)
			}
		}
	}
	for _, ex := range exs {
		see(ex.Response.Events)
	}
	for _, p := range probes {
		see(p.Response.Events)
	}
	return m
}

// sortProbes orders probes as probekind.All, each kind's in the
// order they were sent.
func sortProbes(probes []fixtures.Probe) []fixtures.Probe {
	rank := map[string]int{}
	for i, k := range probekind.All {
		rank[k.ID] = i
	}
	out := slices.Clone(probes)
	slices.SortStableFunc(out, func(a, b fixtures.Probe) int { return rank[a.Kind] - rank[b.Kind] })
	return out
}

// normalizer rewrites exchanges and probes for the fixture.
type normalizer struct {
	r                       *replacer
	reqAllowed, respAllowed map[string]bool
	events                  map[string]string // event id -> placeholder
}

// event renames an event id (in an event or a Last-Event-Id header).
func (n *normalizer) event(id string) string {
	if ph, ok := n.events[id]; ok {
		return ph
	}
	return n.r.text(id)
}

func (n *normalizer) exchange(ex fixtures.Exchange) fixtures.Exchange {
	r := n.r
	reqHeaders := filterHeaders(ex.Request.Headers, n.reqAllowed, r)
	if id, ok := reqHeaders["Last-Event-Id"]; ok {
		reqHeaders["Last-Event-Id"] = n.event(id)
	}
	out := fixtures.Exchange{
		Seq: ex.Seq,
		Request: fixtures.Request{
			Method:  ex.Request.Method,
			Path:    r.path(ex.Request.Path),
			Headers: reqHeaders,
			Body:    r.json(ex.Request.Body),
		},
		Response: fixtures.Response{
			Status:      ex.Response.Status,
			ContentType: ex.Response.ContentType,
			Headers:     filterHeaders(ex.Response.Headers, n.respAllowed, r),
			Body:        r.json(ex.Response.Body),
			Text:        r.text(ex.Response.Text),
			Chunked:     ex.Response.Chunked,
			Cut:         ex.Response.Cut,
		},
	}
	for _, e := range ex.Response.Events {
		out.Response.Events = append(out.Response.Events, fixtures.Event{
			After:   e.After,
			Comment: r.text(e.Comment),
			Event:   r.text(e.Event),
			ID:      n.event(e.ID),
			Data:    r.json(e.Data),
		})
	}
	return out
}

// responseMode is "sse" or "json" after the content type of the first
// answered tools/call, else of the first answered request with an id.
func responseMode(exs []fixtures.Exchange) string {
	mode := func(ct string) string {
		switch mt, _, _ := mime.ParseMediaType(ct); mt {
		case "text/event-stream":
			return "sse"
		case "application/json":
			return "json"
		}
		return ""
	}
	for _, pass := range []func(message) bool{
		func(m message) bool { return m.method == "tools/call" },
		func(m message) bool { return m.method != "" },
	} {
		for _, ex := range exs {
			if ex.Request.Method != http.MethodPost || ex.Response.Status != http.StatusOK {
				continue
			}
			for _, m := range parseMessages(ex.Request.Body, true) {
				if m.id != nil && pass(m) {
					if md := mode(ex.Response.ContentType); md != "" {
						return md
					}
				}
			}
		}
	}
	return ""
}

// message is one JSON-RPC message, reduced to what the manifest needs.
type message struct {
	fromClient bool
	id         json.RawMessage
	method     string
	params     json.RawMessage
	result     json.RawMessage
	// unit is where an answer to it can be: its exchange (HTTP) or its
	// server process (stdio).
	unit int
}

// within places msgs in unit.
func within(unit int, msgs []message) []message {
	for i := range msgs {
		msgs[i].unit = unit
	}
	return msgs
}

func parseMessages(raw json.RawMessage, fromClient bool) []message {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	var batch []json.RawMessage
	if raw[0] == '[' {
		if json.Unmarshal(raw, &batch) != nil {
			return nil
		}
	} else {
		batch = []json.RawMessage{raw}
	}
	var out []message
	for _, b := range batch {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(b, &m) == nil {
			out = append(out, message{fromClient: fromClient, id: compact(m.ID), method: m.Method, params: m.Params, result: m.Result})
		}
	}
	return out
}

func compact(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func exchangeMessages(ex fixtures.Exchange) []message {
	msgs := parseMessages(ex.Request.Body, true)
	msgs = append(msgs, parseMessages(ex.Response.Body, false)...)
	for _, e := range ex.Response.Events {
		msgs = append(msgs, parseMessages(e.Data, false)...)
	}
	return msgs
}

// fillManifest reads the negotiated version and the server from the
// initialize result, the version agreed by server/discover (a client of
// the 2026-07-28 revision: the version it asked for in
// params._meta["io.modelcontextprotocol/protocolVersion"], when the
// result's supportedVersions hold it), the server from the discover
// result when no initialize succeeded, and the tools from the first
// tools/list result.
func fillManifest(m *fixtures.Manifest, msgs []message) error {
	call := func(method string) (params, result json.RawMessage) {
		for i, req := range msgs {
			if !req.fromClient || req.method != method || req.id == nil {
				continue
			}
			for _, resp := range msgs[i+1:] {
				if !resp.fromClient && resp.method == "" && resp.unit == req.unit && bytes.Equal(resp.id, req.id) && resp.result != nil {
					return req.params, resp.result
				}
			}
		}
		return nil, nil
	}
	type serverInfo struct {
		Name    string `json:"name"`
		Version string `json:"version"`
	}
	var discServer serverInfo
	if params, disc := call("server/discover"); disc != nil {
		var dp struct {
			Meta map[string]json.RawMessage `json:"_meta"`
		}
		var dr struct {
			Meta struct {
				ServerInfo serverInfo `json:"io.modelcontextprotocol/serverInfo"`
			} `json:"_meta"`
			SupportedVersions []string `json:"supportedVersions"`
		}
		_ = json.Unmarshal(params, &dp)
		if err := json.Unmarshal(disc, &dr); err != nil {
			return fmt.Errorf("recorder: reading the server/discover result: %w", err)
		}
		var requested string
		_ = json.Unmarshal(dp.Meta[fixtures.MetaProtocolVersion], &requested)
		if slices.Contains(dr.SupportedVersions, requested) {
			m.DiscoverVersion, discServer = requested, dr.Meta.ServerInfo
		}
	}
	if _, init := call("initialize"); init != nil {
		var ir struct {
			ProtocolVersion string     `json:"protocolVersion"`
			ServerInfo      serverInfo `json:"serverInfo"`
		}
		if err := json.Unmarshal(init, &ir); err != nil {
			return fmt.Errorf("recorder: reading the initialize result: %w", err)
		}
		m.ProtocolVersion = ir.ProtocolVersion
		m.Server = fixtures.ServerLabel(ir.ServerInfo.Name, ir.ServerInfo.Version)
	} else if m.DiscoverVersion != "" {
		m.ProtocolVersion = m.DiscoverVersion
		m.Server = fixtures.ServerLabel(discServer.Name, discServer.Version)
	} else {
		return errors.New("recorder: the fixture holds neither an initialize result nor a server/discover result that accepted the version asked for")
	}
	if _, list := call("tools/list"); list != nil {
		var lr struct {
			Tools []struct {
				Name string `json:"name"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(list, &lr); err != nil {
			return fmt.Errorf("recorder: reading the tools/list result: %w", err)
		}
		for _, t := range lr.Tools {
			m.Tools = append(m.Tools, t.Name)
		}
	}
	m.ToolCount = len(m.Tools)
	return nil
}
