package suite

import (
	"encoding/json"
	"net/url"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// normalizer replaces the volatile parts of observations (temp folders,
// ports, the harness's own path) by stable placeholders, so that a diff
// shows behaviour only.
type normalizer struct {
	paths *strings.Replacer // folders, addresses, … longest first
}

var loopbackPort = regexp.MustCompile(`127\.0\.0\.1:\d+`)

func newNormalizer(env Env, targetURL string, srv *running, harness []string) *normalizer {
	m := map[string]string{
		env.State:                            "{state}",
		env.Workspace:                        "{workspace}",
		filepath.Dir(env.State) + "/reports": "{reports}",
	}
	if u, err := url.Parse(targetURL); err == nil && u.Host != "" {
		m[u.Host] = "{target}"
	}
	for name, u := range srv.urls {
		m[u] = "{url:" + name + "}"
	}
	if len(harness) > 0 {
		m[harness[0]] = "{mcpparity}"
	}
	olds := make([]string, 0, len(m))
	for k := range m {
		if k != "" {
			olds = append(olds, k)
		}
	}
	sort.Slice(olds, func(i, j int) bool {
		return len(olds[i]) > len(olds[j]) || len(olds[i]) == len(olds[j]) && olds[i] < olds[j]
	})
	var pairs []string
	for _, o := range olds {
		pairs = append(pairs, o, m[o])
	}
	return &normalizer{paths: strings.NewReplacer(pairs...)}
}

// unresolved marks the target's placeholders that reach an observation
// as they were given: a target that forgot to resolve {workspace} must not
// look like one that resolved it to the normalized workspace path.
var unresolved = strings.NewReplacer("{workspace}", "{unresolved:workspace}", "{state}", "{unresolved:state}", "{addr}", "{unresolved:addr}")

// ownDetail matches the texts whose detail is each implementation's own
// (docs/rules.md): only their prefix is compared.
var ownDetail = regexp.MustCompile(`(JSON invalide|lecture de la configuration|écriture de la configuration|lecture du corps): .*`)

func (n *normalizer) string(s string, observed bool) string {
	if observed {
		s = unresolved.Replace(s)
	}
	s = n.paths.Replace(s)
	if strings.Contains(s, ": ") {
		s = ownDetail.ReplaceAllString(s, "$1: …")
	}
	if strings.Contains(s, "127.0.0.1:") {
		s = loopbackPort.ReplaceAllString(s, "127.0.0.1:{port}")
	}
	return s
}

// apply normalizes every string of o (keys included). observed is false
// for a declared expectation, written with the placeholders already.
func (n *normalizer) apply(o *Observation, observed bool) error {
	return rewrite(o, func(v any) any { return n.walk(v, observed) })
}

// all normalizes a scenario's observations and its steps' declared
// expectations (nil where a step declares none).
func (n *normalizer) all(obs []Observation, expects []*Observation) error {
	for i := range obs {
		if expects[i] != nil {
			if err := n.apply(expects[i], false); err != nil {
				return err
			}
		}
		if err := n.apply(&obs[i], true); err != nil {
			return err
		}
	}
	return nil
}

// rewrite applies fn to o as plain JSON values (map[string]any, []any, …).
func rewrite(o *Observation, fn func(any) any) error {
	raw, err := json.Marshal(o)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	raw, err = json.Marshal(fn(v))
	if err != nil {
		return err
	}
	*o = Observation{}
	return json.Unmarshal(raw, o)
}

func (n *normalizer) walk(v any, observed bool) any {
	switch v := v.(type) {
	case string:
		return n.string(v, observed)
	case []any:
		for i, e := range v {
			v[i] = n.walk(e, observed)
		}
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[n.string(k, observed)] = n.walk(e, observed)
		}
		return out
	}
	return v
}
