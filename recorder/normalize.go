package recorder

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
)

// requestHeaders are the request headers kept in a fixture, besides the
// configured ones (Config.Headers). Keys are canonical. Host and Origin are
// in a Proxy's recording only when they do not name the proxy (see
// fixtures.OwnHost).
var requestHeaders = []string{
	"Accept", "Authorization", "Content-Type", "Host", "Last-Event-Id",
	"Mcp-Method", "Mcp-Name", "Mcp-Protocol-Version", "Mcp-Session-Id", "Origin",
}

// responseHeaders are the response headers kept in a fixture (the content
// type has its own field, Response.ContentType; the framing, Content-Length
// or chunks, Response.Chunked): those a client may act on.
var responseHeaders = []string{"Allow", "Cache-Control", "Connection", "Mcp-Session-Id", "Www-Authenticate",
	"X-Accel-Buffering", "X-Content-Type-Options"}

// jsonOrString returns data itself when it is JSON, else data as a JSON
// string; nil for no data.
func jsonOrString(data []byte) json.RawMessage {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if json.Valid(data) {
		return append(json.RawMessage(nil), data...)
	}
	return marshalString(string(data))
}

func marshalString(s string) json.RawMessage {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return bytes.TrimRight(buf.Bytes(), "\n")
}

// filterHeaders keeps the allowed headers (canonical keys) and rewrites
// their values.
func filterHeaders(h map[string]string, allowed map[string]bool, r *replacer) map[string]string {
	var out map[string]string
	for k, v := range h {
		ck := http.CanonicalHeaderKey(k)
		if !allowed[ck] {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		out[ck] = r.text(v)
	}
	return out
}

func allowSet(names ...[]string) map[string]bool {
	m := map[string]bool{}
	for _, list := range names {
		for _, n := range list {
			m[http.CanonicalHeaderKey(strings.TrimSpace(n))] = true
		}
	}
	return m
}
