package recorder

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"github.com/mcpparity/mcpparity/fixtures"
)

// RequestHeaders are the request headers kept in a fixture, besides the
// configured ones (Config.Headers). Keys are canonical.
var RequestHeaders = []string{
	"Accept", "Authorization", "Content-Type", "Last-Event-Id",
	"Mcp-Method", "Mcp-Name", "Mcp-Protocol-Version", "Mcp-Session-Id",
}

// ResponseHeaders are the response headers kept in a fixture (the content
// type has its own field, Response.ContentType).
var ResponseHeaders = []string{"Mcp-Session-Id"}

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

// replacer rewrites secrets to fixtures.SecretPlaceholder and session ids to
// their placeholders, in plain text and inside JSON string literals.
type replacer struct {
	pairs []string // old, new, ... longest old first
}

func newReplacer(secrets []string, sessions map[string]string) *replacer {
	olds := map[string]string{}
	add := func(old, repl string) {
		if old == "" {
			return
		}
		if _, seen := olds[old]; !seen {
			olds[old] = repl
		}
	}
	for _, s := range secrets {
		add(s, fixtures.SecretPlaceholder)
	}
	for id, ph := range sessions {
		add(id, ph)
	}
	// Each value also as it reads inside a JSON string, in both escapings
	// (with and without HTML escaping).
	for old, repl := range copyMap(olds) {
		for _, esc := range jsonEscapings(old) {
			add(esc, repl)
		}
	}
	keys := make([]string, 0, len(olds))
	for k := range olds {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) > len(keys[j])
		}
		return keys[i] < keys[j]
	})
	r := &replacer{}
	for _, k := range keys {
		r.pairs = append(r.pairs, k, olds[k])
	}
	return r
}

func jsonEscapings(s string) []string {
	plain := string(marshalString(s))
	html, _ := json.Marshal(s)
	return []string{plain[1 : len(plain)-1], string(html[1 : len(html)-1])}
}

func (r *replacer) text(s string) string {
	if len(r.pairs) == 0 || s == "" {
		return s
	}
	return strings.NewReplacer(r.pairs...).Replace(s)
}

// json rewrites only inside string literals, so the result stays valid JSON
// whatever the values are. Placeholders need no escaping.
func (r *replacer) json(data json.RawMessage) json.RawMessage {
	if len(r.pairs) == 0 || len(data) == 0 {
		return data
	}
	var out bytes.Buffer
	for i := 0; i < len(data); {
		if data[i] != '"' {
			out.WriteByte(data[i])
			i++
			continue
		}
		j := i + 1
		for j < len(data) && data[j] != '"' {
			if data[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(data) {
			out.Write(data[i:])
			break
		}
		out.WriteByte('"')
		out.WriteString(r.text(string(data[i+1 : j])))
		out.WriteByte('"')
		i = j + 1
	}
	return out.Bytes()
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
