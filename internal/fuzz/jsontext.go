package fuzz

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// JSON text written where Go and JavaScript differ: keys out of order,
// escapes of every kind, numbers in forms that decode to the same value
// but are written back differently (J1.1–J1.3).

// member is one key and value of an object written as JSON text.
type member struct {
	key string
	raw string // the value's JSON text
}

// numberForms are JSON numbers whose text is not what Go writes back.
var numberForms = []string{"1", "0", "-0", "1.0", "1E2", "1e21", "1e+21", "1e20", "1e-7", "0.000001",
	"123456789012345678901234567890", "100000000000000000000", "5e-324", "0.1", "-12.5e+3", "9007199254740993", "2.50",
	"123456789012345678901", "-2838448192244661000"} // integers whose double has more digits than its shortest form

// jsonKeys are object keys whose order differs by UTF-8 bytes, UTF-16
// units and insertion, and keys JSON escapes.
var jsonKeys = []string{"b", "a", "B", "é", "🙂", "！", "_", "10", "9", "", "a b", "<k>", "z\u2028", "Z", "\uffff"}

// object writes members in the order the stream picks (the simplest:
// sorted by UTF-8 bytes, as Go writes a map), now and then with a key
// repeated (the last one wins in Go and JavaScript alike).
func (s *stream) object(ms []member) string {
	sort.SliceStable(ms, func(i, j int) bool { return ms[i].key < ms[j].key })
	if s.chance(60) {
		for i := len(ms) - 1; i > 0; i-- {
			j := s.intn(i + 1)
			ms[i], ms[j] = ms[j], ms[i]
		}
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, m := range ms {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(s.jsonString(m.key))
		b.WriteByte(':')
		b.WriteString(m.raw)
	}
	b.WriteByte('}')
	return b.String()
}

// jsonString writes v as a JSON string: as Go writes it (the simplest),
// with as few escapes as JSON allows, or with every character outside
// ASCII escaped (surrogate pairs beyond the BMP).
func (s *stream) jsonString(v string) string {
	switch s.pick(6, 3, 1) {
	case 1:
		return escapedString(v, false)
	case 2:
		return escapedString(v, true)
	}
	raw, _ := json.Marshal(v)
	return string(raw)
}

// escapedString writes v as a JSON string: escaped only where JSON needs it
// (controls in upper-case hex), or, with ascii, every rune outside
// printable ASCII escaped (lower-case hex, a surrogate pair beyond the BMP).
func escapedString(v string, ascii bool) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range v {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case !ascii && r < 0x20:
			fmt.Fprintf(&b, `\u%04X`, r)
		case !ascii || r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// jsonValue writes a value of at most depth levels: strings, numbers in
// their odd forms, booleans, null, arrays and objects.
func (s *stream) jsonValue(depth int) string {
	kinds := []int{4, 3, 1, 1, 0, 0}
	if depth > 0 {
		kinds[4], kinds[5] = 2, 2
	}
	switch s.pick(kinds...) {
	case 1:
		return oneOf(s, numberForms)
	case 2:
		return oneOf(s, []string{"true", "false"})
	case 3:
		return "null"
	case 4:
		parts := make([]string, s.intn(4))
		for i := range parts {
			parts[i] = s.jsonValue(depth - 1)
		}
		return "[" + strings.Join(parts, ",") + "]"
	case 5:
		return s.jsonObject(depth - 1)
	}
	return s.jsonString(s.text())
}

// jsonObject writes an object of generated keys and values.
func (s *stream) jsonObject(depth int) string {
	n := s.intn(5)
	ms := make([]member, 0, n)
	for i := 0; i < n; i++ {
		key := oneOf(s, jsonKeys)
		if s.chance(20) {
			key = s.text()
		}
		ms = append(ms, member{key, s.jsonValue(depth)})
	}
	return s.object(ms)
}

// canonical returns raw as Go writes it back (sorted keys, Go's escapes,
// numbers as float64) and whether that is raw itself.
func canonical(raw string) (string, bool) {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return raw, false
	}
	out, err := json.Marshal(v)
	if err != nil {
		return raw, false
	}
	return string(out), string(out) == raw
}
