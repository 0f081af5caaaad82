package fuzz

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/mcpparity/mcpparity/internal/scenario"
)

// Unit kinds with their weights; the first is the simplest.
var unitWeights = []struct {
	weight int
	make   func(g *generator, s *stream)
}{
	{8, (*generator).statusUnit},
	{14, (*generator).saveUnit},
	{22, (*generator).callUnit},
	{7, (*generator).toolsUnit},
	{6, (*generator).toggleUnit},
	{6, (*generator).toolToggleUnit},
	{4, (*generator).testUnit},
	{5, (*generator).deleteUnit},
	{4, (*generator).prewarmUnit},
	{2, (*generator).catalogUnit},
	{9, (*generator).badBodyUnit},
	{3, (*generator).wrongMethodUnit},
	{2, (*generator).unknownRouteUnit},
	{1, (*generator).bigBodyUnit},
	{2, (*generator).storeUnit},
}

// unit draws one unit: a step, or a few that belong together.
func (g *generator) unit(s *stream, _ int) {
	weights := make([]int, len(unitWeights))
	for i, u := range unitWeights {
		weights[i] = u.weight
	}
	unitWeights[s.pick(weights...)].make(g, s)
}

// request is a step of kind request.
func request(name string, rules []string, req scenario.Request) scenario.Step {
	return scenario.Step{Name: name, Kind: scenario.KindRequest, Rules: rules, Request: req}
}

func statusStep() scenario.Step {
	return request("status", []string{"P16.1", "P16.2", "C8.6", "H3.1"}, scenario.Request{Method: "GET", Path: "/api/mcp"})
}

func toolsStep(body string) scenario.Step {
	return withBody(request("tools", []string{"P8.1", "P8.2", "P8.3", "P8.4", "P14.1", "P14.2", "H4.2"},
		scenario.Request{Method: "POST", Path: "/internal/facade/v1/mcp/tools"}), body)
}

func prewarmStep(body string) scenario.Step {
	return withBody(request("prewarm", []string{"H4.4"}, scenario.Request{Method: "POST", Path: "/internal/facade/v1/mcp/prewarm"}), body)
}

// withBody sets a step's body: as body when Go writes it back the same
// (the scenario file reads better), as rawBody otherwise (key order,
// escapes and number forms sent as generated).
func withBody(st scenario.Step, raw string) scenario.Step {
	if _, same := canonical(raw); same {
		st.Body = json.RawMessage(raw)
	} else {
		st.RawBody = &raw
	}
	return st
}

func (g *generator) statusUnit(*stream) { g.add(statusStep()) }

func (g *generator) toolsUnit(s *stream) {
	g.add(toolsStep(oneOf(s, []string{"{}", "null", `{"extra":1}`})))
}

// prewarmUnit is a prewarm and the status or tools request after it:
// prewarm connects in the background, and only a request that waits for
// those connections makes what follows independent of their timing.
func (g *generator) prewarmUnit(s *stream) {
	next := statusStep()
	if s.chance(50) {
		next = toolsStep("{}")
	}
	g.add(prewarmStep(oneOf(s, []string{"{}", "null"})), next)
}

func (g *generator) catalogUnit(*stream) {
	g.add(request("catalog", []string{"P17.1", "P17.2", "P17.3", "P17.4", "P17.5"}, scenario.Request{Method: "GET", Path: "/api/mcp/catalog"}))
}

func (g *generator) storeUnit(*stream) {
	g.add(scenario.Step{Name: "store", Kind: scenario.KindObserve, Rules: []string{"C8.1", "C8.2"}, Observe: scenario.Observe{Store: true}})
}

// saveUnit saves a server: a new name, a configured one (replaced whole),
// or one a save refuses; with a configuration drawn by binding.
func (g *generator) saveUnit(s *stream) {
	raw, rules := g.saveName(s)
	b := g.binding(s, true)
	trimmed := strings.TrimSpace(raw)
	refused := trimmed == "" || strings.Contains(trimmed, "__") // C4.2, C4.3: the name's checks first
	if !refused && b.refusal == "" {
		if u := g.m.unique(trimmed, b.spec); u != trimmed {
			raw, trimmed = u, u
		}
	}
	body := map[string]any{"name": raw}
	for k, v := range b.fields {
		body[k] = v
	}
	enabled := true
	switch s.pick(5, 2, 2, 1) {
	case 1:
		body["enabled"], enabled = false, false
	case 2:
		body["enabled"] = true
	case 3:
		body["enabled"] = nil // C4.6: null is true
	}
	switch {
	case trimmed == "":
		rules = append(rules, "C4.2")
	case strings.Contains(trimmed, "__"):
		rules = append(rules, "C4.3")
	case b.refusal != "":
		rules = append(rules, b.refusal)
	}
	if b.refusal != "" {
		rules = append(rules, "C4.5")
	}
	if !refused && b.refusal == "" {
		g.m.servers[trimmed] = &configured{spec: b.spec, enabled: enabled}
		rules = append(rules, "C4.4", "C4.6", "C4.7", "H4.1")
	}
	raw2, _ := json.Marshal(body)
	g.add(g.observeStore(s, request("save "+quote(trimmed), rules, scenario.Request{Method: "POST", Path: "/api/mcp/save", Body: raw2})))
}

// saveName draws the name a save sends, with the rules it tests.
func (g *generator) saveName(s *stream) (string, []string) {
	switch s.pick(6, 3, 1, 1) {
	case 1:
		if name, ok := g.m.known(s); ok {
			return s.padGo(name), []string{"C4.1", "C4.6"}
		}
	case 2:
		return oneOf(s, []string{"", " ", "\u3000\t", "\u0085", "\u2028 "}), []string{"C4.1"}
	case 3:
		r := []rune(s.name())
		at := []int{0, len(r) / 2, len(r)}[s.intn(3)]
		w := string(r[:at]) + "__" + string(r[at:])
		if strings.TrimSpace(w) == "" || !strings.Contains(strings.TrimSpace(w), "__") {
			w = "a__b"
		}
		return w, nil
	}
	return s.pad(s.name()), []string{"C4.1"}
}

// target draws the name a delete, toggle, tool toggle or test sends: a
// configured name, one padded (not trimmed: unknown, H2.4), or another.
func (g *generator) target(s *stream) (name string, known bool) {
	switch s.pick(6, 2, 2) {
	case 0:
		if n, ok := g.m.known(s); ok {
			return n, true
		}
	case 1:
		if n, ok := g.m.known(s); ok {
			p := s.pad(n)
			if p == n {
				p = " " + n
			}
			return p, false
		}
	}
	return s.name(), false
}

// onField is the "on" of a toggle: true, false, absent or null (H2.4:
// absent reads as false, H2.1: null as absent).
func (g *generator) onField(s *stream, ms []member) ([]member, bool) {
	switch s.pick(4, 3, 1, 1) {
	case 0:
		return append(ms, member{"on", "true"}), true
	case 1:
		return append(ms, member{"on", "false"}), false
	case 2:
		return append(ms, member{"on", "null"}), false
	}
	return ms, false
}

func (g *generator) toggleUnit(s *stream) {
	name, known := g.target(s)
	ms, on := g.onField(s, []member{{"name", s.jsonString(name)}})
	rules := []string{"C5.1", "H2.4"}
	if c := g.m.servers[name]; known && c != nil {
		c.enabled = on
		rules = []string{"C7.1", "C7.3", "H4.1"}
	}
	st := withBody(request("toggle "+quote(name)+" "+strconv.FormatBool(on), rules, scenario.Request{Method: "POST", Path: "/api/mcp/toggle"}),
		s.object(ms))
	g.add(g.observeStore(s, st))
}

func (g *generator) toolToggleUnit(s *stream) {
	name, known := g.target(s)
	tool := s.text()
	if c := g.m.servers[name]; c != nil && g.m.kinds[c.spec] != nil && s.chance(75) {
		tool = oneOf(s, g.m.kinds[c.spec].tools)
	} else if s.chance(20) {
		tool = ""
	}
	ms, on := g.onField(s, []member{{"name", s.jsonString(name)}, {"tool", s.jsonString(tool)}})
	rules := []string{"C5.1", "H2.4"}
	if known {
		rules = []string{"C6.1", "C6.2", "C6.3", "C7.1", "H4.1"}
	}
	st := withBody(request("tool "+quote(name)+" "+quote(tool)+" "+strconv.FormatBool(on), rules,
		scenario.Request{Method: "POST", Path: "/api/mcp/tool"}), s.object(ms))
	g.add(g.observeStore(s, st))
}

func (g *generator) testUnit(s *stream) {
	name, known := g.target(s)
	rules := []string{"C5.2"}
	if known {
		rules = []string{"C7.1", "C7.3", "P1.3"}
	}
	g.add(withBody(request("test "+quote(name), rules, scenario.Request{Method: "POST", Path: "/api/mcp/test"}),
		s.object([]member{{"name", s.jsonString(name)}})))
}

func (g *generator) deleteUnit(s *stream) {
	name, known := g.target(s)
	rules := []string{"C5.1", "H2.4"}
	if known {
		delete(g.m.servers, name)
		rules = []string{"C7.1", "C8.1", "H4.1"}
	}
	st := withBody(request("delete "+quote(name), rules, scenario.Request{Method: "POST", Path: "/api/mcp/delete"}),
		s.object([]member{{"name", s.jsonString(name)}}))
	g.add(g.observeStore(s, st))
}

// observeStore observes the store after a change now and then.
func (g *generator) observeStore(s *stream, st scenario.Step) scenario.Step {
	if s.chance(30) {
		st.Store = true
		st.Rules = append(st.Rules, "C8.1")
	}
	return st
}

// quote writes a name in a step's name, escapes for what cannot be read.
func quote(v string) string { return strconv.QuoteToGraphic(v) }
