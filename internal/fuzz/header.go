package fuzz

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"

	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/replay"
)

// Modes of a sequence: untimed, or timed where the outcome of its first
// connections is decided by the time scale alone.
const (
	untimed = iota
	// barrier: three replays answer their first initialize only once all
	// three got theirs (P8.1, P16.2, H4.4): a target that connects them
	// one after the other waits out the first one's deadline. Scale 0.1:
	// 2 s of handshake, which parallel connections never reach.
	barrier
	// deadline: stdio replays that never answer initialize, some started
	// through a launcher (P3, P4): every attempt times out, after 40 ms or,
	// for a launcher, 360 ms (scale 0.002), and the text says which. At
	// scale 0.0005 the reference was seen, on a loaded machine, to observe
	// one such sequence two ways: a verdict of timing.
	deadline
)

// timedKinds are the kinds of a timed sequence's three servers, named
// timedPrefix and their rank ("b1", "h2").
var (
	timedKinds  = map[int][]string{barrier: {"sdk-sse", "sdk-json", "sdk-sse"}, deadline: {"sdk-stdio", "sdk-stdio", "sdk-stdio"}}
	timedPrefix = map[int]string{barrier: "b", deadline: "h"}
)

// timedServer is the name and kind of a timed sequence's server i.
func (g *generator) timedServer(i int) (string, string) {
	return timedPrefix[g.mode] + strconv.Itoa(i+1), timedKinds[g.mode][i]
}

var timeScales = map[int]string{barrier: "0.1", deadline: "0.002"}

// launcherNames are what a held replay may be started as (P3.2): the
// launchers in every form and names that only look like them.
var launcherNames = []string{"", "npx", "NPX.EXE", "npx.cmd", "npx.cmd.exe", "UVX", "uvx.exe", "Npx.Cmd",
	"npx-wrapper", "npx.exe.cmd", "uv"}

// header draws the scenario's servers, environment and seeded store, and
// for a timed sequence the step that makes its first connections.
func (g *generator) header(h *stream, ks map[string]*kind) {
	g.mode = h.pick(15, 3, 2)
	g.sc.HideCommands = []string{"npx", "uvx", "uv"}
	g.sc.Env = map[string]string{"PATH": "{workspace}/bin:{path}"}
	if g.mode != untimed {
		g.sc.Env["MCPPARITY_TIME_SCALE"] = timeScales[g.mode]
	}
	for i := range 3 {
		launcher := oneOf(h, launcherNames) // drawn in every sequence
		if g.mode == untimed {
			continue
		}
		name, kind := g.timedServer(i)
		k := ks[kind]
		spec := k.spec
		if g.mode == barrier {
			spec.Barrier = "connect"
		} else {
			spec.Holds, spec.Launcher = []string{replay.Handshake}, launcher
		}
		g.sc.Servers[name], g.m.kinds[name] = spec, k
	}
	// Each kind draws all its choices, taken or not, so that the shrinker
	// dropping one leaves the others' choices where they were. A timed
	// sequence has none but its own: a stdio server's close grace, scaled,
	// is too short for a replay to write its report, and a deadline of 40
	// ms too short for a real handshake.
	for _, name := range kindNames {
		k := ks[name]
		include, faulty, faults := h.chance(55), h.chance(30), oneOf(h, toolFaults)
		if g.mode == deadline || g.mode == barrier && k.stdio || !include {
			continue
		}
		spec := k.spec
		if k.faulty && faulty {
			spec.Faults = faults
			g.faulty[name] = true
		}
		g.sc.Servers[name], g.m.kinds[name] = spec, k
	}
	if h.chance(15) {
		g.sc.Launchers = oneOf(h, [][]string{{"npx"}, {"uvx"}, {"npx", "uvx"}})
	}
	g.seed(h)
	if g.mode != untimed {
		g.prelude(h)
	}
}

// seed draws the seeded store: servers as a save would never write them
// (names not trimmed, enabled null or absent, keys in other letter cases,
// hidden tools), now and then a store only partly readable (C8.4), and
// written as a user's disk may hold it (disk).
func (g *generator) seed(h *stream) {
	obj := map[string]any{}
	for i := range 3 {
		name := h.name() // drawn in every sequence, as the kinds' choices
		if g.mode == untimed {
			continue
		}
		spec, _ := g.timedServer(i)
		name = g.m.unique(name, spec)
		if g.mode == barrier {
			obj[name] = map[string]any{"url": "{url:" + spec + "}"}
		} else {
			obj[name] = map[string]any{"command": "{cmd:" + spec + "}", "args": []string{"{args:" + spec + "}"}}
		}
		g.m.servers[name] = &configured{spec: spec, enabled: true}
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
	d := drawDisk(h)
	var seed any = obj
	switch h.pick(20, 1, 1, 1) {
	case 1:
		obj[h.name()] = oneOf(h, []any{5, "x", []any{}, map[string]any{"url": 5}, nil}) // C8.4
	case 2:
		seed = oneOf(h, []any{"text", []any{1, 2}, nil, 5}) // not an object: no servers
	case 3:
		obj["\u00a0"] = nil // a null server reads as {} (C8.4)
	}
	m, isObj := seed.(map[string]any)
	switch {
	case isObj && len(m) == 0:
	case isObj && d.form != diskJSON:
		g.sc.SeedText = d.text(m) // as a user's disk may hold it (C8.3, C8.4)
	default:
		raw, _ := json.Marshal(seed)
		g.sc.Seed = raw
	}
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
	for _, k := range slices.Sorted(maps.Keys(entry)) {
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
	kind := h.pick(4, 3, 2, 1)
	if g.mode == deadline {
		kind = 1
	}
	switch kind {
	case 0:
		g.add(toolsStep("{}"))
	case 1:
		g.add(statusStep())
	case 2:
		g.add(prewarmStep("{}"), statusStep())
	case 3:
		g.add(request("test of an unknown name", []string{"C5.2", "P16.2"},
			scenario.Request{Method: "POST", Path: "/api/mcp/test", Body: json.RawMessage(`{"name":"ghost"}`)}))
	}
}
