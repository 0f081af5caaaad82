package fuzz

import (
	"encoding/json"

	"github.com/mcpparity/mcpparity/internal/scenario"
)

// Bad input is compared as docs/contract.md says (H1, H2): a refusal's
// status and ok, a wrong method's answer below 500, an unknown route's
// status; a null body or field, and unknown fields, read as absent and are
// compared exactly.

// bodyRoutes are the routes that read a body, and the fields they know.
var bodyRoutes = []struct {
	path   string
	fields []member // a well-typed value of each known field
}{
	{"/api/mcp/save", []member{{"name", `"x"`}, {"command", `"c"`}, {"args", `["a"]`}, {"env", `{"K":"V"}`}, {"url", `"u"`}, {"headers", `{"H":"V"}`}, {"enabled", "true"}}},
	{"/api/mcp/delete", []member{{"name", `"x"`}}},
	{"/api/mcp/toggle", []member{{"name", `"x"`}, {"on", "true"}}},
	{"/api/mcp/tool", []member{{"name", `"x"`}, {"tool", `"t"`}, {"on", "true"}}},
	{"/api/mcp/test", []member{{"name", `"x"`}}},
	{"/internal/facade/v1/mcp/call", []member{{"name", `"x"`}, {"args", `{}`}, {"contextWindow", "1"}}},
	{"/internal/facade/v1/mcp/tools", nil},
	{"/internal/facade/v1/mcp/prewarm", nil},
}

// malformed bodies: not JSON at all (H1.1).
var malformed = []string{"{", `{"name":`, "nul", "[", `"open`, `{"name":"a",}`, `{'name':'a'}`, `{"name":"\x"}`, `{"name" "a"}`, "\u00a0{}", "+1"}

// trailing bodies are outside what the UI and the agent send (H2.3): sent
// only to routes that refuse their first value, {} (an empty name, an
// unknown one), where every implementation refuses them.
var trailing = []string{"", "{}}", "{} {}", `{"name":""} {"x":1}`}

// refusesEmpty are the routes that refuse {}.
var refusesEmpty = map[string]bool{"/api/mcp/save": true, "/api/mcp/delete": true, "/api/mcp/toggle": true, "/api/mcp/tool": true}

// wrongShapes are valid JSON that is not one object (H2.2).
var wrongShapes = []string{"[]", `"text"`, "5", "true", `[{"name":"x"}]`}

// wrongTypes are known fields with a value of the wrong type (H2.2).
var wrongTypes = map[string][]string{
	"name": {"5", "true", `["x"]`, `{"a":1}`}, "command": {"5", `["c"]`}, "args": {`"a"`, "5", `{"a":"b"}`, "[1]"},
	"env": {"[]", `"K=V"`, `{"K":5}`}, "url": {"5", "{}"}, "headers": {`"h"`, "[]", `{"H":1}`},
	"enabled": {`"yes"`, "1"}, "on": {`"true"`, "1", "[]"}, "tool": {"5", "{}"},
	"contextWindow": {"1.5", `"12000"`, "true", "{}"},
	// a call's args are an object
	"call args": {`"a"`, "5", "true"},
}

func (g *generator) badBodyUnit(s *stream) {
	r := oneOf(s, bodyRoutes)
	st := request("", nil, scenario.Request{Method: "POST", Path: r.path, Compare: scenario.CompareRefusal})
	kind := s.pick(2, 3, 4, 3, 2, 1)
	if kind == 2 && len(r.fields) == 0 || kind == 5 && !refusesEmpty[r.path] {
		kind = 1
	}
	switch kind {
	case 0: // null, absent: exactly as {} (H2.1)
		raw := "null"
		st.Name, st.Rules, st.RawBody, st.Compare = "null body", []string{"H2.1"}, &raw, scenario.CompareExact
	case 1:
		raw := oneOf(s, malformed)
		st.Name, st.Rules, st.RawBody = "malformed body", []string{"H1.1"}, &raw
	case 2:
		f := oneOf(s, r.fields)
		key := f.key
		if key == "args" && r.path == "/internal/facade/v1/mcp/call" {
			key = "call args"
		}
		ms := []member{{f.key, oneOf(s, wrongTypes[key])}}
		if f.key != "name" {
			ms = append(ms, member{"name", `"x"`})
		}
		st.Name, st.Rules = "field "+f.key+" of the wrong type", []string{"H1.1", "H2.2"}
		st = withBody(st, s.object(ms))
	case 3:
		raw := oneOf(s, wrongShapes)
		st.Name, st.Rules, st.RawBody = "body of the wrong shape", []string{"H1.1", "H2.2"}, &raw
	case 4:
		g.nullFields(s, &st, r.fields)
	case 5:
		raw := oneOf(s, trailing)
		st.Name, st.Rules, st.RawBody = "empty body or a second value", []string{"H2.3", "H1.1"}, &raw
	}
	st.Name += " on " + r.path
	st.Store = s.chance(25) // nothing stored (H1.1)
	g.add(st)
	if r.path == "/internal/facade/v1/mcp/prewarm" {
		g.add(statusStep()) // a prewarm answered connects in the background
	}
}

// nullFields sends every known field null, or absent, and unknown ones:
// read as absent (H2.1), compared exactly. A save so read has an empty
// name and is refused (C4.2).
func (g *generator) nullFields(s *stream, st *scenario.Step, fields []member) {
	ms := []member{{"extra", s.jsonValue(1)}}
	for _, f := range fields {
		if s.chance(50) {
			ms = append(ms, member{f.key, "null"})
		}
	}
	st.Name, st.Rules, st.Compare = "null and unknown fields", []string{"H2.1"}, scenario.CompareExact
	*st = withBody(*st, s.object(ms))
}

// changeRoutes are the POST routes whose handlers, served any method with
// an empty body, refuse it: a wrong method there connects nothing in any
// implementation (H1.3).
var changeRoutes = []string{"/api/mcp/save", "/api/mcp/delete", "/api/mcp/toggle", "/api/mcp/tool", "/internal/facade/v1/mcp/call"}

func (g *generator) wrongMethodUnit(s *stream) {
	path := oneOf(s, changeRoutes)
	if s.chance(30) {
		g.caseMethodUnit(s, path)
		return
	}
	method := oneOf(s, []string{"GET", "PUT", "PATCH", "DELETE"})
	st := request(method+" "+path, []string{"H1.3"}, scenario.Request{Method: method, Path: path, Compare: scenario.CompareAnswered})
	st.Store = s.chance(50)
	g.add(st)
}

// caseMethodUnit sends POST in another case (methods are case-sensitive:
// `post` is a wrong method, H1.3) with a body the route would act on: a
// new server for save, a configured name for the others. The store after
// it shows whether it was served.
func (g *generator) caseMethodUnit(s *stream, path string) {
	method := oneOf(s, []string{"post", "Post", "pOST"})
	name, ok := g.m.known(s)
	if !ok || path == "/api/mcp/save" {
		name = "post-" + s.name()
	}
	ms := []member{{"name", s.jsonString(name)}}
	switch path {
	case "/api/mcp/save":
		ms = append(ms, member{"url", `"http://127.0.0.1:1/mcp"`})
	case "/api/mcp/toggle":
		ms = append(ms, member{"on", "false"})
	case "/api/mcp/tool":
		ms = append(ms, member{"tool", `"echo"`}, member{"on", "false"})
	}
	st := withBody(request(method+" "+path, []string{"H1.3"}, scenario.Request{Method: method, Path: path, Compare: scenario.CompareAnswered}),
		s.object(ms))
	st.Store = true
	g.add(st)
}

func (g *generator) unknownRouteUnit(s *stream) {
	path := oneOf(s, []string{"/nope", "/api/mcp/save/x", "/api/mcpx", "/internal/facade/v1/mcp/ghost", "/api/mcp/catalog/x", "/api/mcp/%C3%A9"})
	method := oneOf(s, []string{"GET", "POST"})
	g.add(request(method+" "+path, []string{"H1.4"}, scenario.Request{Method: method, Path: path, Compare: scenario.CompareStatus}))
}

// bigBodyUnit sends a save of one byte over 1 MiB (refused with 413), or
// of exactly 1 MiB, read and refused by its name (H1.5, C4.3).
func (g *generator) bigBodyUnit(s *stream) {
	st := request("a body over 1 MiB", []string{"H1.5"}, scenario.Request{Method: "POST", Path: "/api/mcp/save", PadTo: 1<<20 + 1})
	body := map[string]any{"name": s.name(), "command": "fz-nope"}
	if s.chance(50) {
		st.Name, st.PadTo, st.Rules = "a body of exactly 1 MiB", 1<<20, []string{"H1.5", "C4.3"}
		body["name"] = "big__body"
	}
	st.Body, _ = json.Marshal(body)
	g.add(st)
}
