package fuzz

import (
	"slices"
	"sort"
	"strconv"

	"github.com/mcpparity/mcpparity/impl"
)

// configured is what the generator knows of a configured server: the
// scenario server it is bound to ("" for none: a command not found, no
// transport), whether it is enabled, and its hidden tools.
type configured struct {
	spec    string
	enabled bool
	hidden  []string
}

// model is the configuration as the generator expects the reference to
// hold it after each step. It serves to pick names that exist and to keep
// every exposed tool name unique: when two servers expose the same name,
// which one a call reaches is unspecified (P7), so no sequence may depend
// on it. Seeded servers count as configured whether or not a partial
// store read them (C8.4).
type model struct {
	servers map[string]*configured
	kinds   map[string]*kind // by scenario server name
	fresh   int
}

func newModel(ks map[string]*kind) *model {
	return &model{servers: map[string]*configured{}, kinds: ks}
}

// names returns the configured names, sorted.
func (m *model) names() []string {
	out := make([]string, 0, len(m.servers))
	for n := range m.servers {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// exposed returns the exposed names of a server bound to spec.
func (m *model) exposed(name, spec string) []string {
	k := m.kinds[spec]
	if k == nil {
		return nil
	}
	out := make([]string, len(k.tools))
	for i, t := range k.tools {
		out[i] = impl.ExposedName(name, t)
	}
	return out
}

// clashes reports whether a server name bound to spec would expose a name
// that another configured server exposes.
func (m *model) clashes(name, spec string) bool {
	mine := m.exposed(name, spec)
	if len(mine) == 0 {
		return false
	}
	for other, c := range m.servers {
		if other == name {
			continue
		}
		for _, e := range m.exposed(other, c.spec) {
			if slices.Contains(mine, e) {
				return true
			}
		}
	}
	return false
}

// unique returns name, or when bound to spec it would clash, a plain name
// that does not.
func (m *model) unique(name, spec string) string {
	for m.clashes(name, spec) {
		m.fresh++
		name = "n" + strconv.Itoa(m.fresh)
	}
	return name
}

// known picks a configured name (ok false when there is none). The choice
// is drawn either way, so that a shrunk sequence whose earlier units no
// longer configure a name keeps the choices after it in place.
func (m *model) known(s *stream) (string, bool) {
	names := m.names()
	i := s.intn(len(names))
	if len(names) == 0 {
		return "", false
	}
	return names[i], true
}
