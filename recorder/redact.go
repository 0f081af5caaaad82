package recorder

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/mcpparity/mcpparity/fixtures"
)

// Secrets and session ids are found in decoded text, not in bytes: a value
// may reach the recording in any JSON escape (\/, \u0043, either hex case,
// surrogate pairs), percent-encoded, or several of these nested (JSON text
// inside a JSON string). A view is one decoding of a source text that
// remembers, for each decoded byte, the source bytes it came from, so that
// what is found in a view is replaced in the source, whole escapes at a
// time, and JSON stays valid.

// maxDepth bounds the nesting of decodings tried.
const maxDepth = 4

// view is a decoding of a source text: b[i] comes from source bytes
// start[i] to end[i] (exclusive). The source itself has nil start and end.
type view struct {
	b          []byte
	start, end []int
}

func (v view) srcStart(i int) int {
	if v.start == nil {
		return i
	}
	return v.start[i]
}

func (v view) srcEnd(i int) int {
	if v.end == nil {
		return i + 1
	}
	return v.end[i]
}

// emit appends the bytes p, decoded from v.b[i:j].
func (v view) emit(out *view, p []byte, i, j int) {
	for _, c := range p {
		out.b = append(out.b, c)
		out.start = append(out.start, v.srcStart(i))
		out.end = append(out.end, v.srcEnd(j-1))
	}
}

func newView(n int) view {
	return view{b: make([]byte, 0, n), start: make([]int, 0, n), end: make([]int, 0, n)}
}

// unescapeJSON decodes JSON string escapes; a malformed one stays as it
// is. ok reports that something was decoded.
func (v view) unescapeJSON() (view, bool) {
	if bytes.IndexByte(v.b, '\\') < 0 {
		return v, false
	}
	out := newView(len(v.b))
	changed := false
	var buf [utf8.UTFMax]byte
	for i := 0; i < len(v.b); {
		c := v.b[i]
		if c != '\\' || i+1 >= len(v.b) {
			v.emit(&out, v.b[i:i+1], i, i+1)
			i++
			continue
		}
		var dec byte
		switch v.b[i+1] {
		case '"', '\\', '/':
			dec = v.b[i+1]
		case 'b':
			dec = '\b'
		case 'f':
			dec = '\f'
		case 'n':
			dec = '\n'
		case 'r':
			dec = '\r'
		case 't':
			dec = '\t'
		case 'u':
			r, size := decodeU(v.b[i:])
			if size == 0 {
				v.emit(&out, v.b[i:i+1], i, i+1)
				i++
				continue
			}
			n := utf8.EncodeRune(buf[:], r)
			v.emit(&out, buf[:n], i, i+size)
			i += size
			changed = true
			continue
		default:
			v.emit(&out, v.b[i:i+1], i, i+1)
			i++
			continue
		}
		v.emit(&out, []byte{dec}, i, i+2)
		i += 2
		changed = true
	}
	return out, changed
}

// decodeU decodes \uXXXX at the start of b, or a surrogate pair
// \uXXXX\uXXXX; size is 0 when there is none.
func decodeU(b []byte) (rune, int) {
	r, ok := hex4(b)
	if !ok {
		return 0, 0
	}
	if !utf16.IsSurrogate(r) {
		return r, 6
	}
	if r2, ok := hex4(b[6:]); ok && r < 0xDC00 {
		if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
			return d, 12
		}
	}
	return 0, 0
}

// hex4 reads \uXXXX (either hex case) at the start of b.
func hex4(b []byte) (rune, bool) {
	if len(b) < 6 || b[0] != '\\' || b[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range b[2:6] {
		d, ok := hexDigit(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(d)
	}
	return r, true
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// unescapePercent decodes %XX (either hex case), and with form a '+' as a
// space; a malformed escape stays as it is.
func (v view) unescapePercent(form bool) (view, bool) {
	if bytes.IndexByte(v.b, '%') < 0 && (!form || bytes.IndexByte(v.b, '+') < 0) {
		return v, false
	}
	out := newView(len(v.b))
	changed := false
	for i := 0; i < len(v.b); {
		if v.b[i] == '%' && i+2 < len(v.b) {
			hi, ok1 := hexDigit(v.b[i+1])
			lo, ok2 := hexDigit(v.b[i+2])
			if ok1 && ok2 {
				v.emit(&out, []byte{hi<<4 | lo}, i, i+3)
				i += 3
				changed = true
				continue
			}
		}
		if form && v.b[i] == '+' {
			v.emit(&out, []byte{' '}, i, i+1)
			i++
			changed = true
			continue
		}
		v.emit(&out, v.b[i:i+1], i, i+1)
		i++
	}
	return out, changed
}

// views returns the decodings of src to search: src itself (unless it is
// the content of a JSON string literal, whose first view is its value),
// then every nested decoding (JSON escapes, percent-encoding, and with form
// form-encoding, in any order) up to maxDepth.
func views(src []byte, jsonString, form bool) []view {
	first := view{b: src}
	if jsonString {
		first, _ = first.unescapeJSON()
	}
	out := []view{first}
	if bytes.IndexByte(first.b, '\\') < 0 && bytes.IndexByte(first.b, '%') < 0 && (!form || bytes.IndexByte(first.b, '+') < 0) {
		return out // the common case: nothing more to decode
	}
	decoders := []func(view) (view, bool){
		view.unescapeJSON,
		func(v view) (view, bool) { return v.unescapePercent(false) },
	}
	if form {
		decoders = append(decoders, func(v view) (view, bool) { return v.unescapePercent(true) })
	}
	seen := map[string]bool{string(first.b): true}
	frontier := out
	for depth := 0; depth < maxDepth && len(frontier) > 0; depth++ {
		var next []view
		for _, v := range frontier {
			for _, dec := range decoders {
				if w, ok := dec(v); ok && !seen[string(w.b)] {
					seen[string(w.b)] = true
					next = append(next, w)
				}
			}
		}
		out = append(out, next...)
		frontier = next
	}
	return out
}

// replacer rewrites secrets to fixtures.SecretPlaceholder and session ids to
// their placeholders, in any of their encodings.
type replacer struct {
	olds  [][]byte // longest first
	repls []string
	form  bool // a value holds a space: also look for its form-encoding ('+')
}

func newReplacer(secrets []string, sessions map[string]string) *replacer {
	m := map[string]string{}
	for id, ph := range sessions {
		if id != "" {
			m[id] = ph
		}
	}
	for _, s := range secrets {
		if s != "" {
			m[s] = fixtures.SecretPlaceholder // a secret wins over a session id
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
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
		r.olds = append(r.olds, []byte(k))
		r.repls = append(r.repls, m[k])
	}
	r.form = needsForm(keys)
	return r
}

// needsForm says whether a value holds a space that no other value inside
// it avoids: only then is form-encoding ('+' for a space) decoded ("Bearer
// tok" needs none, "tok" is found in "Bearer+tok"), which spares a copy of
// every string holding a '+' (base64 data).
func needsForm(values []string) bool {
	for _, v := range values {
		if !strings.Contains(v, " ") {
			continue
		}
		covered := false
		for _, w := range values {
			if w != "" && !strings.Contains(w, " ") && strings.Contains(v, w) {
				covered = true
				break
			}
		}
		if !covered {
			return true
		}
	}
	return false
}

// hit is a source range to replace.
type hit struct {
	start, end int
	repl       string
}

// rewrite replaces every occurrence found in any view of src.
func (r *replacer) rewrite(src []byte, jsonString bool) []byte {
	if len(r.olds) == 0 || len(src) == 0 {
		return src
	}
	var hits []hit
	for _, v := range views(src, jsonString, r.form) {
		for k, old := range r.olds {
			for off := 0; ; {
				i := bytes.Index(v.b[off:], old)
				if i < 0 {
					break
				}
				a, b := off+i, off+i+len(old)
				hits = append(hits, hit{v.srcStart(a), v.srcEnd(b - 1), r.repls[k]})
				off = b
			}
		}
	}
	if len(hits) == 0 {
		return src
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].start != hits[j].start {
			return hits[i].start < hits[j].start
		}
		return hits[i].end > hits[j].end
	})
	var out []byte
	last := 0
	for i := 0; i < len(hits); {
		h := hits[i]
		// Overlapping hits become one; a secret wins.
		for i++; i < len(hits) && hits[i].start < h.end; i++ {
			h.end = max(h.end, hits[i].end)
			if hits[i].repl == fixtures.SecretPlaceholder {
				h.repl = fixtures.SecretPlaceholder
			}
		}
		out = append(out, src[last:h.start]...)
		out = append(out, h.repl...)
		last = h.end
	}
	return append(out, src[last:]...)
}

func (r *replacer) text(s string) string {
	if len(r.olds) == 0 || s == "" {
		return s
	}
	return string(r.rewrite([]byte(s), false))
}

// json rewrites inside string literals (keys and values) only, whole
// escapes at a time, so the result stays valid JSON whatever the values
// are; a literal without a hit keeps its own escapes. Placeholders need no
// escaping.
func (r *replacer) json(data json.RawMessage) json.RawMessage {
	if len(r.olds) == 0 || len(data) == 0 {
		return data
	}
	var out []byte
	last := 0
	eachString(data, func(i, j int) {
		content := data[i:j]
		rw := r.rewrite(content, true)
		if len(rw) == len(content) && bytes.Equal(rw, content) {
			return
		}
		out = append(out, data[last:i]...)
		out = append(out, rw...)
		last = j
	})
	if out == nil {
		return data
	}
	return append(out, data[last:]...)
}

// eachString calls f with the bounds of the content of every string
// literal of the JSON text data (between its quotes).
func eachString(data []byte, f func(i, j int)) {
	for i := 0; i < len(data); i++ {
		if data[i] != '"' {
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
			return
		}
		f(i+1, j)
		i = j
	}
}

// path rewrites a request path: secrets and session ids in the path, and
// the value of every query parameter becomes the secret placeholder (a
// value that is a session id, its placeholder). Names and order are kept.
func (r *replacer) path(p string) string {
	path, query, ok := strings.Cut(p, "?")
	path = r.text(path)
	if !ok {
		return path
	}
	parts := strings.Split(query, "&")
	for i, kv := range parts {
		name, value, hasValue := strings.Cut(kv, "=")
		name = r.text(name)
		if hasValue && value != "" {
			if v := r.text(value); isSessionPlaceholder(v) {
				value = v
			} else {
				value = fixtures.SecretPlaceholder
			}
		}
		if hasValue {
			name += "=" + value
		}
		parts[i] = name
	}
	return path + "?" + strings.Join(parts, "&")
}

func isSessionPlaceholder(s string) bool {
	n, ok := strings.CutPrefix(s, "{session-")
	n, ok2 := strings.CutSuffix(n, "}")
	if !ok || !ok2 || n == "" {
		return false
	}
	for _, c := range n {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// survives reports whether one of secrets is still in data, an encoded
// fixture: in its bytes, or in any decoding of any of its strings.
func survives(data []byte, secrets []string) bool {
	var checked [][]byte
	var long []string
	for _, s := range secrets {
		if len(s) >= minCheckedSecret {
			if bytes.Contains(data, []byte(s)) {
				return true
			}
			checked = append(checked, []byte(s))
			long = append(long, s)
		}
	}
	if len(checked) == 0 {
		return false
	}
	form := needsForm(long)
	found := false
	eachString(data, func(i, j int) {
		if found {
			return
		}
		for _, v := range views(data[i:j], true, form) {
			for _, s := range checked {
				if bytes.Contains(v.b, s) {
					found = true
					return
				}
			}
		}
	})
	return found
}
