package fuzz

import (
	"encoding/json"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/scenario"
)

// faultMask is where a call whose attempts both met a fault (a stream
// cut, a session expired) reads the transport's own text past its prefix
// (P10.5): the target's stack's words, a session id.
var faultMask = map[string]string{"body.output": `[erreur MCP] calling "tools/call": `}

// callUnit calls a tool of a configured server (its hidden ones too) with
// arguments a replay answers or a gen server's description, or a name
// the registry does not hold.
func (g *generator) callUnit(s *stream) {
	var servers []string
	for _, n := range g.m.names() {
		if g.m.kinds[g.m.servers[n].spec] != nil {
			servers = append(servers, n)
		}
	}
	if len(servers) == 0 || s.pick(6, 2) == 1 {
		g.unknownCall(s)
		return
	}
	server := oneOf(s, servers)
	spec := g.m.servers[server].spec
	k := g.m.kinds[spec]
	var tool, args, cw string
	rules := []string{"P7.1", "P7.2", "P9.2", "P11.1", "P11.2", "P13.2", "P15.1", "P15.2", "P15.3", "P10.3"}
	if k.calls != nil {
		rc := oneOf(s, k.calls)
		tool, args, cw = rc.Tool, g.rewrite(s, rc.Args), g.contextWindow(s)
		if args == "{}" {
			args = oneOf(s, []string{"{}", "", "null"}) // H4.3
		}
	} else {
		tool = oneOf(s, k.tools)
		args, cw, rules = g.genArgs(s)
	}
	st := g.callStep(s, impl.ExposedName(server, tool), args, cw, rules)
	if slices.Contains(rules, "P11.6") {
		st.Masks = faultMask // a result the SDK cannot read: the decoder's own text
	}
	g.add(st)
}

// callStep is a call of exposed with args and contextWindow ("" absent).
func (g *generator) callStep(s *stream, exposed, args, cw string, rules []string) scenario.Step {
	ms := []member{{"name", s.jsonString(exposed)}}
	if args != "" {
		ms = append(ms, member{"args", args})
	}
	if cw != "" {
		ms = append(ms, member{"contextWindow", cw})
	}
	st := withBody(request("call "+quote(exposed), rules, scenario.Request{Method: "POST", Path: "/internal/facade/v1/mcp/call"}),
		s.object(ms))
	if g.reachesFaults(exposed) {
		st.Masks = faultMask
	}
	return st
}

// reachesFaults reports whether a configured server exposing this name
// (an unknown name may be one by chance) has faults on its calls.
func (g *generator) reachesFaults(exposed string) bool {
	for _, name := range g.m.names() {
		spec := g.m.servers[name].spec
		if g.faulty[spec] && slices.Contains(g.m.exposed(name, spec), exposed) {
			return true
		}
	}
	return false
}

// unknownCall calls a name no registry holds, with arguments made for the
// label (P9, P15).
func (g *generator) unknownCall(s *stream) {
	var name string
	switch s.pick(3, 2, 2, 1) {
	case 0:
		name = s.text()
	case 1:
		name = "mcp__" + impl.Sanitize(s.name()) + "__" + s.text()
	case 2:
		name = impl.ExposedName(s.name(), oneOf(s, []string{"gen", "echo", "fail"}))
	case 3:
		if n, ok := g.m.known(s); ok {
			name = impl.ExposedName(n, "nope")
		}
	}
	var args string
	switch s.pick(2, 3, 2, 2, 1) {
	case 1:
		args = g.labelBoundary(s)
	case 2:
		args = s.object(g.labelMembers(s, nil))
	case 3:
		args = s.jsonObject(2)
	case 4:
		args = oneOf(s, []string{"{}", "null"})
	}
	g.add(g.callStep(s, name, args, g.contextWindow(s), []string{"P9.1", "P15.1", "P15.2", "P15.3", "H4.3", "J1.1", "J1.2", "J1.3"}))
}

// contextWindow draws a call's contextWindow ("" absent): around the cap
// and away from it (P12.2).
func (g *generator) contextWindow(s *stream) string {
	return oneOf(s, []string{"", "12000", "11999", "12001", "0", "-1", "20000", "null", "2147483647"})
}

// labelBoundary is arguments whose JSON is 119 to 122 runes long, made of
// one character repeated: ASCII, two bytes, three, or beyond the BMP (one
// rune, two UTF-16 units) at the cut (P15.2).
func (g *generator) labelBoundary(s *stream) string {
	total := 119 + s.intn(4)
	unit := oneOf(s, []string{"x", "🙂", "é", "漢"})
	return `{"k":"` + strings.Repeat(unit, total-8) + `"}`
}

// labelKeys are the arguments a label is taken from, in order (P15.1).
var labelKeys = []string{"path", "file", "query", "command", "url", "name"}

// labelMembers adds, now and then, label keys whose values are strings
// (empty, white space only) or not strings.
func (g *generator) labelMembers(s *stream, ms []member) []member {
	for _, k := range labelKeys {
		if !s.chance(25) {
			continue
		}
		v := oneOf(s, []string{s.jsonString(s.text()), `""`, `" "`, `"\u3000"`, "5", "null", `["a"]`, `{"a":"b"}`})
		ms = append(ms, member{k, v})
	}
	return ms
}

// rewrite writes a JSON value again with the stream's key order and
// escapes (the same value: a replay still matches it).
func (g *generator) rewrite(s *stream, raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	return g.write(s, v)
}

func (g *generator) write(s *stream, v any) string {
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		ms := make([]member, len(keys))
		for i, k := range keys {
			ms[i] = member{k, g.write(s, v[k])}
		}
		return s.object(ms)
	case []any:
		parts := make([]string, len(v))
		for i, e := range v {
			parts[i] = g.write(s, e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case string:
		return s.jsonString(v)
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// genArgs describes a gen server's result (sdkserver.GenArgs): blocks of
// every type, a text sized around the cap, or structured content; a tool
// error, a JSON-RPC error; with label keys. It returns the arguments, the
// contextWindow and the rules the call tests.
func (g *generator) genArgs(s *stream) (args, cw string, rules []string) {
	var ms []member
	rules = []string{"P7.1", "P7.2", "P11.1", "P11.2", "P13.1", "P13.2", "P15.1", "P15.2", "J1.4"}
	switch s.pick(6, 3, 2, 2) {
	case 0:
		blocks := make([]string, s.intn(4))
		for i := range blocks {
			blocks[i] = g.block(s)
		}
		ms = append(ms, member{"blocks", "[" + strings.Join(blocks, ",") + "]"})
		cw = g.contextWindow(s)
	case 1:
		var block string
		block, cw = g.capBoundary(s)
		ms = append(ms, member{"blocks", "[" + block + "]"})
		rules = append(rules, "P12.1", "P12.2", "P12.3")
	case 2:
		if s.chance(50) {
			ms = append(ms, member{"blocks", `[{"type":"text","text":` + s.jsonString(s.space()+s.space()) + `}]`})
		}
		ms = append(ms, member{"structured", s.jsonString(s.jsonObject(3))})
		rules = append(rules, "P11.3", "J1.1", "J1.2", "J1.3", "J1.5")
	case 3:
		ms = append(ms, member{"rawResult", s.jsonString(g.carelessResult(s))})
		rules = append(rules, "P11.4", "P11.5", "P11.6", "P10.3")
	}
	if s.chance(20) {
		ms = append(ms, member{"isError", "true"})
	}
	if s.chance(5) {
		ms = append(ms, member{"roots", "true"})
		rules = append(rules, "P5.3")
	}
	if s.chance(6) {
		ms = append(ms, member{"rpcError", s.jsonString(s.text())})
		rules = append(rules, "P10.3", "P10.4", "P10.5")
	}
	ms = g.labelMembers(s, ms)
	return s.object(ms), cw, rules
}

// capBoundary is a text block whose output is one rune short of the cap, at
// it, or past it, in characters of one to four bytes, and the
// contextWindow that sets the cap (P12).
func (g *generator) capBoundary(s *stream) (block, cw string) {
	cw = oneOf(s, []string{"", "12000", "11999", "12001", "0", "-3", "12345", "15000"})
	limit := 12000
	if n, err := strconv.Atoi(cw); err == nil && n > limit {
		limit = n
	}
	total := limit + oneOf(s, []int{0, -1, 1, 2})
	unit := oneOf(s, []string{"x", "🙂", "é", "漢"})
	prefix := oneOf(s, []string{"début:", "🙂", "x"})
	repeat := total - runes(prefix)
	return `{"type":"text","text":` + s.jsonString(prefix) + `,"unit":` + s.jsonString(unit) + `,"repeat":` + strconv.Itoa(repeat) + `}`, cw
}

// block is one content block of a gen result.
func (g *generator) block(s *stream) string {
	switch s.pick(6, 2, 1, 2, 2) {
	case 1:
		return s.object([]member{{"type", `"image"`}, {"mimeType", s.jsonString(oneOf(s, []string{"image/png", s.text()}))}})
	case 2:
		return s.object([]member{{"type", `"audio"`}, {"mimeType", s.jsonString(oneOf(s, []string{"audio/wav", s.text()}))}})
	case 3:
		return s.object(g.linkMembers(s, []member{{"type", `"resource_link"`}}))
	case 4:
		ms := []member{{"type", `"resource"`}, {"uri", s.jsonString("mcpparity://" + s.text())}}
		if s.chance(50) {
			ms = append(ms, member{"mimeType", s.jsonString(s.text())})
		}
		if s.chance(70) {
			ms = append(ms, member{"text", s.jsonString(s.text())})
		} else {
			ms = append(ms, member{"blob", s.jsonString(s.text())})
		}
		return s.object(g.metaMembers(s, ms, resourceForeign))
	}
	text := s.text()
	if s.chance(20) {
		text = "" // an empty block still counts as a part (P11.2)
	}
	ms := []member{{"type", `"text"`}, {"text", s.jsonString(text)}}
	if s.chance(15) {
		ms = append(ms, member{"unit", s.jsonString(s.text())}, member{"repeat", strconv.Itoa(s.intn(40))})
	}
	return s.object(ms)
}

// linkMembers are a resource link's fields, each but uri and name now and
// then, their values text of every kind.
func (g *generator) linkMembers(s *stream, ms []member) []member {
	ms = append(ms, member{"uri", s.jsonString("mcpparity://" + s.text())}, member{"name", s.jsonString("n" + s.text())})
	for _, f := range []string{"title", "description", "mimeType"} {
		if s.chance(40) {
			ms = append(ms, member{f, s.jsonString(s.text())})
		}
	}
	if s.chance(25) {
		ms = append(ms, member{"size", strconv.Itoa(oneOf(s, []int{0, s.intn(5000)}))})
	}
	return g.metaMembers(s, ms, linkForeign)
}

// Fields of other block types, which a block of these types does not have
// (J1.4: dropped), as a server in another language may send them.
var (
	linkForeign     = []member{{"data", `"AAAA"`}, {"text", `"t"`}, {"resource", `{"uri":"mcpparity://r","text":"r"}`}}
	resourceForeign = []member{{"uri", `"mcpparity://top"`}, {"name", `"top"`}, {"mimeType", `"text/plain"`}, {"data", `"AAAA"`}, {"text", `"t"`}}
)

// metaMembers adds, now and then, _meta and annotations (J1.4: the
// go-sdk's three keys, sorted, empty ones omitted; _meta a map), or fields
// of another block type. Raw annotations reach the wire as written: in any
// order, with empty values and a key the go-sdk does not know.
func (g *generator) metaMembers(s *stream, ms []member, foreign []member) []member {
	if s.chance(25) {
		ms = append(ms, member{"meta", s.jsonObject(1)})
	}
	if s.chance(10) {
		raw := []member{oneOf(s, foreign)}
		if s.chance(40) {
			raw = append(raw, oneOf(s, foreign))
		}
		return append(ms, member{"rawMembers", s.jsonString(s.object(raw))})
	}
	if s.chance(25) {
		ann := []member{{"priority", oneOf(s, []string{"0.5", "1", "0.25", "0"})}}
		if s.chance(50) {
			ann = append(ann, member{"audience", oneOf(s, []string{`["user"]`, `["assistant","user"]`, `[]`})})
		}
		if s.chance(50) {
			ann = append(ann, member{"lastModified", oneOf(s, []string{`"2025-01-12T15:00:58Z"`, `""`})})
		}
		if s.chance(50) {
			ms = append(ms, member{"annotations", s.object(ann)})
			return ms
		}
		if s.chance(30) {
			ann = append(ann, member{oneOf(s, jsonKeys), s.jsonValue(1)})
		}
		ms = append(ms, member{"rawAnnotations", s.jsonString(s.object(ann))})
	}
	return ms
}
