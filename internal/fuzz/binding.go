package fuzz

import (
	"maps"
	"slices"
	"strings"
)

// binding is what a configured server points at: a scenario server (its
// url, or its command and args), a command that is not found, nothing, or
// both a command and a url; with the other fields of its configuration.
type binding struct {
	spec   string // the scenario server, "" for none
	fields map[string]any
	// refusal is the clause a save of it is refused by (C3), "" if none.
	refusal string
}

// Binding kinds, the simplest first.
const (
	bindHTTP = iota
	bindStdio
	bindNotFound
	bindNeither
	bindBoth
)

// binding draws a configuration. Values a save trims get Go's white space
// around them (for a seed, never: it is used as stored, C2.4). Headers of
// an HTTP server and the env of a stdio server are values every stack
// sends as they are; the fields a transport ignores take any text.
func (g *generator) binding(s *stream, save bool) binding {
	http, stdio := g.specs(false), g.specs(true)
	kind := s.pick(5, 4, 3, 1, 1)
	if kind == bindHTTP && len(http) == 0 || kind == bindStdio && len(stdio) == 0 {
		kind = bindNotFound
	}
	b := binding{fields: map[string]any{}}
	pad := func(v string) string {
		if save {
			return s.padGo(v)
		}
		return v
	}
	switch kind {
	case bindHTTP:
		b.spec = oneOf(s, http)
		b.fields["url"] = pad("{url:" + b.spec + "}")
		g.blank(s, b.fields, "command")
		g.headers(s, b.fields, true)
		g.env(s, b.fields, false)
	case bindStdio:
		b.spec = oneOf(s, stdio)
		b.fields["command"] = pad("{cmd:" + b.spec + "}")
		b.fields["args"] = []string{"{args:" + b.spec + "}"}
		g.blank(s, b.fields, "url")
		g.env(s, b.fields, true)
		g.headers(s, b.fields, false)
	case bindNotFound:
		b.fields["command"] = pad(g.notFound(s))
		g.args(s, b.fields)
		g.env(s, b.fields, false)
		g.headers(s, b.fields, false)
	case bindNeither:
		g.blank(s, b.fields, "command")
		g.blank(s, b.fields, "url")
		g.args(s, b.fields)
		b.refusal = "C3.2"
	case bindBoth:
		b.fields["command"] = pad(g.notFound(s))
		b.fields["url"] = pad("http://127.0.0.1:9/mcp")
		b.refusal = "C3.1"
	}
	return b
}

// specs lists the scenario servers reached by a command (stdio) or a url.
func (g *generator) specs(stdio bool) []string {
	var out []string
	for _, name := range slices.Sorted(maps.Keys(g.sc.Servers)) {
		if k := g.m.kinds[name]; k != nil && k.stdio == stdio {
			out = append(out, name)
		}
	}
	return out
}

// notFound is a command no PATH holds (P6.3), printable so that its error
// text quotes it as it is.
func (g *generator) notFound(s *stream) string {
	v := "fz-nope-" + s.printable()
	if s.chance(15) {
		v = strings.ToUpper(v[:1]) + v[1:]
	}
	return v
}

// blank sets field, now and then, to a value that is empty once trimmed.
func (g *generator) blank(s *stream, fields map[string]any, field string) {
	switch s.pick(6, 1, 2) {
	case 1:
		fields[field] = ""
	case 2:
		fields[field] = oneOf(s, goSpace) + oneOf(s, goSpace)
	}
}

// padGo surrounds v with Go's white space now and then (a save trims it).
func (s *stream) padGo(v string) string {
	switch s.pick(6, 2, 2, 1) {
	case 1:
		return oneOf(s, goSpace) + v
	case 2:
		return v + oneOf(s, goSpace)
	case 3:
		return oneOf(s, goSpace) + v + oneOf(s, goSpace)
	}
	return v
}

// args sets args, now and then, to strings kept as sent (C4.4).
func (g *generator) args(s *stream, fields map[string]any) {
	if !s.chance(40) {
		return
	}
	args := make([]string, s.intn(4))
	for i := range args {
		args[i] = s.text()
	}
	fields["args"] = args
}

// env sets env now and then; safe: a stdio server's process gets it.
func (g *generator) env(s *stream, fields map[string]any, safe bool) {
	if !s.chance(35) {
		return
	}
	env := map[string]string{}
	for n := s.intn(3); n >= 0; n-- {
		if safe {
			env[s.envKey()] = s.envValue()
		} else {
			env[s.text()] = s.text()
		}
	}
	fields["env"] = env
}

// headers sets headers now and then; safe: an HTTP server gets them (a
// name of letters, digits and "-" under X-Fz-, a printable ASCII value).
func (g *generator) headers(s *stream, fields map[string]any, safe bool) {
	if !s.chance(35) {
		return
	}
	h := map[string]string{}
	for n := s.intn(3); n >= 0; n-- {
		if safe {
			h["X-Fz-"+s.token()] = s.headerValue()
		} else {
			h[s.text()] = s.text()
		}
	}
	fields["headers"] = h
}
