package runner

import (
	"net/url"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
)

// normalizer replaces the volatile parts of observations (temp folders,
// ports, the harness's own path) by stable placeholders, so that a diff
// shows behaviour only.
type normalizer struct {
	paths *strings.Replacer // folders, addresses, … longest first
}

var loopbackPort = regexp.MustCompile(`127\.0\.0\.1:\d+`)

func newNormalizer(env target.Env, targetURL string, srv *running, harness []string) *normalizer {
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

// sessionID is the go-sdk's naming of a missing session (P10.7), whose id
// is drawn afresh by each server: "{session}" stands for any id but none.
var sessionID = regexp.MustCompile(`\(session ID: [^)\s]+\)`)

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
	if strings.Contains(s, "(session ID: ") {
		s = sessionID.ReplaceAllString(s, "(session ID: {session})")
	}
	return s
}

// apply normalizes every string of o (keys included), its lists and maps
// made anew. observed is false for a declared expectation, written with
// the placeholders already.
func (n *normalizer) apply(o *scenario.Observation, observed bool) error {
	str := func(s string) string { return n.string(s, observed) }
	o.Step = str(o.Step)
	o.Headers = mapKeysValues(o.Headers, str)
	o.Body = n.walk(o.Body, observed) // decoded JSON (generic) or a string
	o.Store = n.walk(o.Store, observed)
	o.Failures = mapStrings(o.Failures, str)
	o.Replays = mapKeys(o.Replays, str, func(r scenario.ReplayObservation) scenario.ReplayObservation {
		r.Unmatched, r.HeaderMismatches = mapStrings(r.Unmatched, str), mapStrings(r.HeaderMismatches, str)
		r.MissingAnswers, r.EnvMismatches, r.Faults = mapStrings(r.MissingAnswers, str), mapStrings(r.EnvMismatches, str), mapStrings(r.Faults, str)
		return r
	})
	o.Processes = mapKeys(o.Processes, str, func(c scenario.ProcessCount) scenario.ProcessCount { return c })
	o.Alive = mapKeys(o.Alive, str, func(n int) int { return n })
	if o.Parallel != nil {
		o.Parallel = append([]scenario.Observation(nil), o.Parallel...)
		for i := range o.Parallel {
			if err := n.apply(&o.Parallel[i], observed); err != nil {
				return err
			}
		}
	}
	return nil
}

// mapStrings is list with each string through fn, in a new slice (an
// expectation's lists belong to its scenario).
func mapStrings(list []string, fn func(string) string) []string {
	if list == nil {
		return nil
	}
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = fn(s)
	}
	return out
}

// mapKeys is m with each key through key and each value through value
// (nil stays nil).
func mapKeys[V any](m map[string]V, key func(string) string, value func(V) V) map[string]V {
	if m == nil {
		return nil
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[key(k)] = value(v)
	}
	return out
}

func mapKeysValues(m map[string]string, fn func(string) string) map[string]string {
	return mapKeys(m, fn, fn)
}

// all normalizes a scenario's observations and its steps' declared
// expectations (nil where a step declares none).
func (n *normalizer) all(obs []scenario.Observation, expects []*scenario.Observation) error {
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

func (n *normalizer) walk(v any, observed bool) any {
	switch v := v.(type) {
	case string:
		return n.string(v, observed)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = n.walk(e, observed)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[n.string(k, observed)] = n.walk(e, observed)
		}
		return out
	}
	return v
}
