package fuzz

import (
	"encoding/json"
	"sort"

	"github.com/mcpparity/mcpparity/internal/suite"
)

// barrierKinds are the servers of a timed sequence: replays that answer
// their first initialize only once all three got theirs (P8.1, P16.2,
// H4.4: a target that connects them one after the other waits out the
// first one's deadline).
var barrierKinds = map[string]string{"b1": "rsse", "b2": "rjson", "b3": "rsse"}

// header draws the scenario's servers, environment and seeded store, and
// for a timed sequence the step that connects its barrier.
func (g *generator) header(h *stream, ks map[string]*kind) {
	g.timed = h.chance(20)
	g.sc.HideCommands = []string{"npx", "uvx", "uv"}
	g.sc.Env = map[string]string{"PATH": "{workspace}/bin:{path}"}
	if g.timed {
		// Stdio servers stay out: the close grace, scaled, would be too
		// short for a replay to write its report.
		g.sc.Env["MCPPARITY_TIME_SCALE"] = TimeScale
		for _, name := range sortedKeys(barrierKinds) {
			spec := ks[barrierKinds[name]].spec
			spec.Barrier = "connect"
			g.sc.Servers[name], g.m.kinds[name] = spec, ks[barrierKinds[name]]
		}
	}
	// Each kind draws all its choices, taken or not, so that the shrinker
	// dropping one leaves the others' choices where they were.
	for _, name := range kindNames {
		k := ks[name]
		include, faulty, faults := h.chance(55), h.chance(30), oneOf(h, toolFaults)
		if g.timed && k.stdio || !include {
			continue
		}
		spec := k.spec
		if k.faulty && faulty {
			spec.Faults = faults
			g.cutting[name] = cuts(faults)
		}
		g.sc.Servers[name], g.m.kinds[name] = spec, k
	}
	if h.chance(15) {
		g.sc.Launchers = oneOf(h, [][]string{{"npx"}, {"uvx"}, {"npx", "uvx"}})
	}
	g.seed(h)
	if g.timed {
		g.prelude(h)
	}
}

// seed draws the seeded store: servers as a save would never write them
// (names not trimmed, enabled null or absent, keys in other letter cases,
// hidden tools), and now and then a store only partly readable (C8.4).
func (g *generator) seed(h *stream) {
	obj := map[string]any{}
	for _, spec := range sortedKeys(barrierKinds) {
		name := h.name() // drawn in every sequence, as the kinds' choices
		if g.timed {
			name = g.m.unique(name, spec)
			obj[name] = map[string]any{"url": "{url:" + spec + "}"}
			g.m.servers[name] = &configured{spec: spec, enabled: true}
		}
	}
	for n := h.pick(4, 3, 3, 2, 1); n > 0; n-- {
		b := g.binding(h, false)
		name := g.m.unique(h.pad(h.name()), b.spec)
		entry := b.fields
		g.seedEnabled(h, entry)
		if k := g.m.kinds[b.spec]; k != nil && h.chance(30) {
			entry["disabledTools"] = []string{oneOf(h, k.tools), h.text()}
		}
		if h.chance(10) {
			entry["note"] = h.text() // unknown: ignored (C8.3)
		}
		obj[name] = caseVariant(h, entry)
		g.m.servers[name] = &configured{spec: b.spec, enabled: true}
	}
	var seed any = obj
	switch h.pick(20, 1, 1, 1) {
	case 1:
		obj[h.name()] = oneOf(h, []any{5, "x", []any{}, map[string]any{"url": 5}, nil}) // C8.4
	case 2:
		seed = oneOf(h, []any{"text", []any{1, 2}, nil, 5}) // not an object: no servers
	case 3:
		obj["\u00a0"] = nil // a null server reads as {} (C8.4)
	}
	if m, isObj := seed.(map[string]any); isObj && len(m) == 0 {
		return
	}
	raw, _ := json.Marshal(seed)
	g.sc.Seed = raw
}

// seedEnabled stores enabled as a save never does: absent, null, false,
// or under another letter case (C1).
func (g *generator) seedEnabled(h *stream, entry map[string]any) {
	switch h.pick(4, 2, 2, 1, 1) {
	case 1:
		entry["enabled"] = true
	case 2:
		entry["enabled"] = false
	case 3:
		entry["enabled"] = nil
	case 4:
		entry["Enabled"] = oneOf(h, []bool{false, true})
	}
}

// caseVariant writes now and then a field under another letter case
// (C8.3: matched without regard to case).
func caseVariant(h *stream, entry map[string]any) map[string]any {
	if !h.chance(10) {
		return entry
	}
	other := map[string]string{"url": "URL", "command": "Command", "args": "ARGS", "env": "Env", "headers": "Headers"}
	for _, k := range sortedKeys(entry) {
		if o, ok := other[k]; ok && h.chance(50) {
			entry[o] = entry[k]
			delete(entry, k)
		}
	}
	return entry
}

// prelude is a timed sequence's first step: one that connects every
// server, by the tools route, the status, a prewarm, or a change.
func (g *generator) prelude(h *stream) {
	switch h.pick(4, 3, 2, 1) {
	case 0:
		g.add(toolsStep("{}"))
	case 1:
		g.add(statusStep())
	case 2:
		g.add(prewarmStep("{}"), statusStep())
	case 3:
		g.add(suite.Step{Name: "test of an unknown name", Rules: []string{"C5.2", "P16.2"}, Method: "POST",
			Path: "/api/mcp/test", Body: json.RawMessage(`{"name":"ghost"}`)})
	}
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
