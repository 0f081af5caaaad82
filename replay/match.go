package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpparity/mcpparity/fixtures"
)

// DefaultIgnorePaths are the volatile fields left out of matching when
// Options.IgnorePaths is nil.
var DefaultIgnorePaths = []string{"params._meta", "params.clientInfo"}

// matcher turns a method and its params into a match key: the method and the
// params as canonical JSON (sorted keys), with the ignored paths removed.
// Absent params, null and {} are the same, and so are absent, null and {}
// arguments.
type matcher struct {
	ignore [][]string // each path split on dots, without the leading "params"
}

func newMatcher(paths []string) (*matcher, error) {
	m := &matcher{}
	for _, p := range paths {
		parts := strings.Split(p, ".")
		if len(parts) < 2 || parts[0] != "params" {
			return nil, fmt.Errorf("ignore path %q: want params.<field>[.<field>...] (\"*\" matches any field)", p)
		}
		for _, s := range parts {
			if s == "" {
				return nil, fmt.Errorf("ignore path %q: empty field", p)
			}
		}
		m.ignore = append(m.ignore, parts[1:])
	}
	return m, nil
}

// tree decodes params and removes the ignored paths; with revision, a
// request of the 2026-07-28 revision keeps its _meta (revisionMeta).
func (m *matcher) tree(params json.RawMessage, revision bool) (any, error) {
	p := bytes.TrimSpace(params)
	if len(p) == 0 || string(p) == "null" {
		return map[string]any{}, nil
	}
	var v any
	if err := json.Unmarshal(p, &v); err != nil {
		return nil, err
	}
	var meta map[string]any
	if revision {
		meta = revisionMeta(v)
	}
	for _, path := range m.ignore {
		v = remove(v, path)
	}
	if meta != nil {
		v.(map[string]any)["_meta"] = meta
	}
	return v, nil
}

// revisionMeta is the part of a request's _meta that matching compares
// whatever the ignored paths: in a request of the 2026-07-28 revision (its
// _meta names a version), the whole _meta, but for the values of
// clientInfo's name and version (an implementation's own), of which only
// the presence as strings counts. nil for a request of the handshake era.
func revisionMeta(v any) map[string]any {
	params, _ := v.(map[string]any)
	meta, _ := params["_meta"].(map[string]any)
	if _, ok := meta[fixtures.MetaProtocolVersion]; !ok {
		return nil
	}
	out := make(map[string]any, len(meta))
	for k, x := range meta {
		out[k] = x
	}
	if info, ok := meta[fixtures.MetaClientInfo].(map[string]any); ok {
		shape := map[string]any{}
		for _, f := range []string{"name", "version"} {
			if s, ok := info[f].(string); ok && s != "" {
				shape[f] = "(a string)"
			} else if x, ok := info[f]; ok {
				shape[f] = x
			}
		}
		out[fixtures.MetaClientInfo] = shape
	}
	return out
}

// noArguments gives a tools/call's absent or null arguments as {}: SDKs
// send "no arguments" in each of these ways, and a go-sdk server reads them
// alike.
func noArguments(v any) any {
	if m, ok := v.(map[string]any); ok && m["arguments"] == nil {
		m["arguments"] = map[string]any{}
	}
	return v
}

// key returns the match key of a message and its canonical params tree.
func (m *matcher) key(method string, params json.RawMessage) (string, any, error) {
	return m.keyIn(method, params, true)
}

// keyIn is key for a request served in the revision's era or not: one
// whose _meta names the revision but that a server serves in the
// handshake era (its version header says so, and the server routes on
// it) is matched as that era's requests are, its _meta aside.
func (m *matcher) keyIn(method string, params json.RawMessage, revision bool) (string, any, error) {
	t, err := m.tree(params, revision)
	if err != nil {
		return "", nil, err
	}
	if method == "tools/call" {
		t = noArguments(t)
	}
	b, err := json.Marshal(t) // maps marshal with sorted keys
	if err != nil {
		return "", nil, err
	}
	return method + " " + string(b), t, nil
}

func remove(v any, path []string) any {
	switch x := v.(type) {
	case map[string]any:
		if len(path) == 1 {
			if path[0] == "*" {
				clear(x)
			} else {
				delete(x, path[0])
			}
			return x
		}
		if path[0] == "*" {
			for k, c := range x {
				x[k] = remove(c, path[1:])
			}
		} else if c, ok := x[path[0]]; ok {
			x[path[0]] = remove(c, path[1:])
		}
	case []any:
		if path[0] != "*" {
			return x
		}
		if len(path) == 1 {
			return x[:0]
		}
		for i, c := range x {
			x[i] = remove(c, path[1:])
		}
	}
	return v
}

// diffPaths lists the JSON paths where a and b differ, at most limit.
func diffPaths(prefix string, a, b any, out []string, limit int) []string {
	if len(out) >= limit {
		return out
	}
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return append(out, prefix)
		}
		keys := make([]string, 0, len(x)+len(y))
		for k := range x {
			keys = append(keys, k)
		}
		for k := range y {
			if _, ok := x[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		for _, k := range keys {
			xv, xok := x[k]
			yv, yok := y[k]
			p := prefix + "." + k
			if xok != yok {
				out = append(out, p)
			} else {
				out = diffPaths(p, xv, yv, out, limit)
			}
			if len(out) >= limit {
				break
			}
		}
		return out
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return append(out, prefix)
		}
		for i := range x {
			out = diffPaths(prefix+"["+strconv.Itoa(i)+"]", x[i], y[i], out, limit)
		}
		return out
	default:
		if a != b {
			return append(out, prefix)
		}
		return out
	}
}
