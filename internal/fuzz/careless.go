package fuzz

import (
	"maps"
	"slices"
	"strconv"
	"strings"
)

// A careless server's results (P11.4–P11.6): a gen call's rawResult,
// written as it is. Most read, fields missing or null, types of blocks
// and structured content of every kind; now and then a member of the
// wrong JSON type, which fails the whole result.

// carelessResult writes a result as a careless server may.
func (g *generator) carelessResult(s *stream) string {
	switch s.pick(30, 1, 1) {
	case 1:
		return "null"
	case 2:
		return oneOf(s, []string{"5", `"x"`, "[]", "true"})
	}
	var ms []member
	if v, ok := s.member(carelessContent(g, s)); ok {
		ms = append(ms, member{"content", v})
	}
	if v, ok := s.member(func() string { return carelessValue(s) }); ok {
		ms = append(ms, member{"structuredContent", v})
	}
	if v, ok := s.member(func() string { return oneOf(s, []string{"true", "false"}) }, `"true"`, "1"); ok {
		ms = append(ms, member{"isError", v})
	}
	if v, ok := s.member(func() string { return s.jsonObject(1) }, "5", `"m"`); ok {
		ms = append(ms, member{"_meta", v})
	}
	if s.chance(10) {
		// Not resultType: the reference's go-sdk v1.8.0 types it, the Go
		// pool's v1.6.1 ignores it (docs/go-pool.md).
		ms = append(ms, member{oneOf(s, []string{"extra", "Content"}), s.jsonValue(1)})
	}
	return s.object(ms)
}

// member draws a member's value: absent (ok false), null, one of its own
// type (well), or now and then one of another type (wrong).
func (s *stream) member(well func() string, wrong ...string) (string, bool) {
	if len(wrong) == 0 {
		wrong = []string{"5", `"x"`, "{}", "[]", "true"}
	}
	switch s.pick(5, 2, 10, 1) {
	case 0:
		return "", false
	case 1:
		return "null", true
	case 3:
		return oneOf(s, wrong), true
	}
	return well(), true
}

// carelessValue is structured content of any JSON type.
func carelessValue(s *stream) string {
	if s.chance(40) {
		return s.jsonObject(2)
	}
	return s.jsonValue(2)
}

// carelessContent draws a content array: a few blocks, none, or now and
// then many small ones (a huge list, cut by P12).
func carelessContent(g *generator, s *stream) func() string {
	return func() string {
		n := s.intn(4)
		many := s.chance(3)
		blocks := make([]string, 0, n)
		for i := 0; i < n; i++ {
			blocks = append(blocks, g.carelessBlock(s, false))
		}
		if many {
			for i := 0; i < 1500; i++ {
				blocks = append(blocks, `{"type":"text","text":"b`+strconv.Itoa(i)+`"}`)
			}
		}
		return "[" + strings.Join(blocks, ",") + "]"
	}
}

// carelessTypes are a block's types: the seven the go-sdk reads, and
// types it does not.
var carelessTypes = []string{`"text"`, `"image"`, `"audio"`, `"resource_link"`, `"resource"`, `"tool_use"`, `"tool_result"`}

// carelessBlock is one block; nested, one of a tool_result's.
func (g *generator) carelessBlock(s *stream, nested bool) string {
	if s.chance(3) {
		return "null"
	}
	typ, ok := s.member(func() string { return oneOf(s, carelessTypes) }, `"video"`, `"TEXT"`, "5")
	var ms []member
	if ok {
		ms = append(ms, member{"type", typ})
	}
	str := func() string { return s.jsonString(s.text()) }
	fields := map[string]func() string{
		"text": str, "mimeType": func() string { return s.jsonString(oneOf(s, []string{"image/png", "", s.text()})) },
		"uri": func() string { return s.jsonString("mcpparity://" + s.text()) }, "name": str, "title": str,
		"data":        func() string { return oneOf(s, []string{`"aGk="`, `"AAAA"`, `""`, `"aGk"`, `"%%%"`}) },
		"size":        func() string { return oneOf(s, []string{"0", "12", "1e3", "1.5", "-2"}) },
		"annotations": func() string { return s.object([]member{{"priority", oneOf(s, []string{"1", "0.5"})}}) },
		"_meta":       func() string { return s.jsonObject(1) }, "id": str, "toolUseId": str,
		"input": func() string { return s.jsonObject(1) },
		"resource": func() string {
			return s.object([]member{{"uri", str()}, {oneOf(s, []string{"text", "blob"}), oneOf(s, []string{str(), `"aGk="`})}})
		},
	}
	for _, f := range slices.Sorted(maps.Keys(fields)) {
		if !s.chance(35) {
			continue
		}
		if v, ok := s.member(fields[f]); ok {
			ms = append(ms, member{f, v})
		}
	}
	if !nested && strings.Contains(typ, "tool_result") && s.chance(50) {
		ms = append(ms, member{"content", "[" + g.carelessBlock(s, true) + "]"})
	}
	return s.object(ms)
}
