package recorder

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/fixtures/probekind"
)

// probeVersion is the version the unknown-version probe asks for when the
// server accepts the client's own.
const probeVersion = "2099-01-01"

// probeOtherName is the Mcp-Name of the name-mismatch probe.
const probeOtherName = "mcpparity-probe-other-name"

// modernTemplate is what the probes of the 2026-07-28 revision copy from
// the recorded requests of a client of that revision.
type modernTemplate struct {
	path   string
	header http.Header
	// meta is the _meta of its first request; version, the protocol
	// version it carries; accepted, whether a server/discover result
	// listed that version in its supportedVersions.
	meta     map[string]json.RawMessage
	version  string
	accepted bool
	// call is the body of its first answered tools/call (nil: none).
	call []byte
}

// findModern reads the template from the recorded requests whose _meta
// carries a protocol version; nil when there are none.
func findModern(exs []fixtures.Exchange) *modernTemplate {
	var t *modernTemplate
	for _, ex := range exs {
		if ex.Request.Method != http.MethodPost {
			continue
		}
		var m struct {
			Method string `json:"method"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
		}
		if json.Unmarshal(ex.Request.Body, &m) != nil {
			continue
		}
		v := fixtures.MetaVersion(paramsOf(ex.Request.Body))
		if v == "" {
			continue
		}
		if t == nil {
			t = &modernTemplate{path: ex.Request.Path, header: templateHeader(ex.Request.Headers), meta: m.Params.Meta, version: v}
		}
		switch {
		case m.Method == "server/discover" && slices.Contains(fixtures.SupportedVersions(ex.Response), v):
			t.accepted = true
		case m.Method == "tools/call" && t.call == nil && ex.Response.Status == http.StatusOK:
			t.call = ex.Request.Body
		}
	}
	return t
}

// paramsOf is the params of a JSON-RPC body (nil for none).
func paramsOf(body []byte) json.RawMessage {
	var m struct {
		Params json.RawMessage `json:"params"`
	}
	_ = json.Unmarshal(body, &m)
	return m.Params
}

// body is a request of the revision: method with params, its _meta the
// template's asking for version (no _meta when version is "").
func (t *modernTemplate) body(method string, params map[string]json.RawMessage, version string) []byte {
	if version == "" {
		return request(method, params, nil)
	}
	meta := map[string]json.RawMessage{}
	for k, v := range t.meta {
		meta[k] = v
	}
	meta[fixtures.MetaProtocolVersion], _ = json.Marshal(version)
	return request(method, params, meta)
}

// request is a JSON-RPC request of id 1 with params and meta (nil: none).
func request(method string, params map[string]json.RawMessage, meta map[string]json.RawMessage) []byte {
	p := map[string]any{}
	for k, v := range params {
		p[k] = v
	}
	if meta != nil {
		p["_meta"] = meta
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": p})
	return b
}

// versionOnly is a _meta holding only the protocol version.
func versionOnly(version string) map[string]json.RawMessage {
	v, _ := json.Marshal(version)
	return map[string]json.RawMessage{fixtures.MetaProtocolVersion: v}
}

// headers are the template's with the headers of the revision: version,
// method and name ("" leaves one out).
func (t *modernTemplate) headers(version, method, name string) http.Header {
	h := t.header.Clone()
	for k, v := range map[string]string{"Mcp-Protocol-Version": version, "Mcp-Method": method, "Mcp-Name": name} {
		if v != "" {
			h.Set(k, v)
		}
	}
	return h
}

// probeReq is one probe to send: its kind, headers and body.
type probeReq struct {
	kind string
	h    http.Header
	body []byte
}

// modernProbes send the requests of the 2026-07-28 revision a live server
// checks: a version it does not support, then, when it supports the
// client's, each header missing or differing from the body.
func (pr *prober) modernProbes(ctx context.Context) error {
	t := pr.modern
	if t == nil {
		return nil
	}
	v, list := t.version, "tools/list"
	if !t.accepted {
		return pr.send1(ctx, probeReq{probekind.UnknownVersion, t.headers(v, list, ""), t.body(list, nil, v)})
	}
	probes := []probeReq{
		{probekind.ModernNoMeta, t.headers(v, list, ""), t.body(list, nil, "")},
		{probekind.UnknownVersion, t.headers(probeVersion, list, ""), t.body(list, nil, probeVersion)},
		{probekind.IncompleteMeta, t.headers(v, list, ""), request(list, nil, versionOnly(v))},
		{probekind.NoVersionHeader, t.headers("", list, ""), t.body(list, nil, v)},
		{probekind.VersionMismatch, t.headers(otherVersion(v), list, ""), t.body(list, nil, v)},
		{probekind.NoMethodHeader, t.headers(v, "", ""), t.body(list, nil, v)},
		{probekind.MethodMismatch, t.headers(v, "tools/call", ""), t.body(list, nil, v)},
	}
	if params := callParams(t.call); params != nil {
		call := t.body("tools/call", params, v)
		probes = append(probes,
			probeReq{probekind.NoNameHeader, t.headers(v, "tools/call", ""), call},
			probeReq{probekind.NameMismatch, t.headers(v, "tools/call", probeOtherName), call})
	}
	for _, p := range probes {
		if err := pr.send1(ctx, p); err != nil {
			return err
		}
	}
	return nil
}

// send1 sends one POST probe.
func (pr *prober) send1(ctx context.Context, p probeReq) error {
	return pr.probe(ctx, p.kind, http.MethodPost, p.h, p.body)
}

// otherVersion is a version of the handshake era, other than v.
func otherVersion(v string) string {
	if v == "2025-11-25" {
		return "2025-06-18"
	}
	return "2025-11-25"
}

// callParams is a recorded tools/call's params without their _meta.
func callParams(body []byte) map[string]json.RawMessage {
	if body == nil {
		return nil
	}
	var p map[string]json.RawMessage
	if json.Unmarshal(paramsOf(body), &p) != nil || p == nil {
		return nil
	}
	delete(p, "_meta")
	return p
}

// sessionlessProbes send a GET and a DELETE without session id, and, to a
// server that handed out no session, a request with neither _meta nor
// session nor version header (a client that skipped both the handshake and
// server/discover).
func (pr *prober) sessionlessProbes(ctx context.Context) error {
	get := pr.header.Clone()
	get.Set("Accept", "text/event-stream")
	get.Del("Content-Type")
	del := pr.header.Clone()
	del.Del("Content-Type")
	del.Del("Accept")
	if err := pr.probe(ctx, probekind.GETNoSession, http.MethodGet, get, nil); err != nil {
		return err
	}
	if err := pr.probe(ctx, probekind.DELETENoSession, http.MethodDelete, del, nil); err != nil {
		return err
	}
	if pr.p.HandedOutSession() {
		return nil
	}
	return pr.probe(ctx, probekind.NoMetaNoSession, http.MethodPost, pr.header.Clone(), []byte(probeList))
}
