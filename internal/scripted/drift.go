package scripted

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/mcpparity/mcpparity/fixtures/probekind"
	"github.com/mcpparity/mcpparity/internal/compare"
)

// Drift is how a fresh recording differs from the stored one, by path in
// the fixture (as check names its differences).
type Drift struct {
	// Diffs are the differences outside the fields the calls name as
	// volatile.
	Diffs []compare.Diff
	// Volatile are the differences in those fields.
	Volatile []compare.Diff
	// calls names the answer of each path's call, for the listing.
	calls map[string]string
}

// Drifted reports whether the recordings differ outside volatile fields.
func (d Drift) Drifted() bool { return len(d.Diffs) > 0 }

// String lists the differences outside volatile fields, each with the
// call it answers when it is in a call's answer.
func (d Drift) String() string {
	var b strings.Builder
	for _, x := range d.Diffs {
		fmt.Fprintf(&b, "  %s%s\n", x.Path, d.callOf(x.Path))
		if x.At != "" {
			fmt.Fprintf(&b, "    at:     %s\n", x.At)
		}
		fmt.Fprintf(&b, "    stored: %s\n    fresh:  %s\n", x.Want, x.Got)
	}
	return b.String()
}

// VolatilePaths are the paths of the volatile fields that changed.
func (d Drift) VolatilePaths() []string {
	var out []string
	for _, x := range d.Volatile {
		out = append(out, x.Path+d.callOf(x.Path))
	}
	return out
}

func (d Drift) callOf(path string) string {
	for prefix, tool := range d.calls {
		if strings.HasPrefix(path, prefix+".") {
			return " (answer to tools/call " + tool + ")"
		}
	}
	return ""
}

// Compare compares a stored fixture with a fresh recording of it: a
// difference inside a call's result, at a field the call names as
// volatile (or below it), is volatile; every other one drifts. HTTP
// exchanges are compared by request and stdio lines by what they ask or
// answer, not by place: the order of messages of two streams, and so the
// timeline fields seq and after, depend on timing (a server's own request
// sent on a timer).
func Compare(stored, fresh []byte, calls []Call) (Drift, error) {
	if bytes.Equal(stored, fresh) {
		return Drift{}, nil
	}
	a, err := decodeAny(stored)
	if err != nil {
		return Drift{}, fmt.Errorf("the stored fixture: %w", err)
	}
	b, err := decodeAny(fresh)
	if err != nil {
		return Drift{}, fmt.Errorf("the fresh fixture: %w", err)
	}
	align(a, b)
	answers := append(callAnswers(a), callAnswers(b)...)
	d := Drift{calls: map[string]string{}}
	for _, ans := range answers {
		d.calls[ans.prefix] = ans.tool
	}
	for _, x := range compare.Compare(a, b) {
		if isVolatile(x.Path, answers, calls) {
			d.Volatile = append(d.Volatile, x)
		} else {
			d.Diffs = append(d.Diffs, x)
		}
	}
	if len(d.Diffs) == 0 && len(d.Volatile) == 0 && !reordered(stored, fresh) {
		// Equal values in the same order, different bytes: the layout changed.
		d.Diffs = []compare.Diff{{Path: "(the file)", Want: "as stored", Got: "the same values, laid out otherwise"}}
	}
	return d, nil
}

// reordered reports whether two recordings hold their values in another
// order (messages of two streams, a server's notifications): what align
// puts back in place.
func reordered(stored, fresh []byte) bool {
	a, errA := decodeAny(stored)
	b, errB := decodeAny(fresh)
	return errA == nil && errB == nil && len(compare.Compare(a, b)) > 0
}

func decodeAny(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// answer is where a recording holds the answer to a tools/call: the path
// of the answering message (its result is prefix + ".result").
type answer struct {
	prefix string
	tool   string
	args   any
}

// isVolatile reports whether path is in the result of a call's answer, at
// one of the fields the call names as volatile or below it.
func isVolatile(path string, answers []answer, calls []Call) bool {
	for _, a := range answers {
		rest, ok := strings.CutPrefix(path, a.prefix+".result.")
		if !ok {
			continue
		}
		for _, c := range calls {
			if c.Tool == a.tool && sameArgs(c.Args, a.args) && volatileField(c.Volatile, rest) {
				return true
			}
		}
	}
	return false
}

// volatileField reports whether rest (a path in a result) is one of the
// fields or below one of them.
func volatileField(fields []string, rest string) bool {
	for _, f := range fields {
		if compare.GlobMatch(f, rest) || compare.GlobMatch(f+".*", rest) || compare.GlobMatch(f+"[*", rest) {
			return true
		}
	}
	return false
}

// sameArgs reports whether a script's arguments are those of a recorded
// request (as JSON: absent and empty alike).
func sameArgs(script map[string]any, recorded any) bool {
	if len(script) == 0 {
		m, ok := recorded.(map[string]any)
		return recorded == nil || ok && len(m) == 0
	}
	raw, err := json.Marshal(script)
	if err != nil {
		return false
	}
	want, err := decodeAny(raw)
	return err == nil && reflect.DeepEqual(want, recorded)
}

// callAnswers finds the answers to tools/call in a decoded fixture: in an
// HTTP exchange's body or events, or a stdio line of the same process.
func callAnswers(fx any) []answer {
	root, _ := fx.(map[string]any)
	var out []answer
	exchanges, _ := root["exchanges"].([]any)
	for i, e := range exchanges {
		ex, _ := e.(map[string]any)
		req, _ := ex["request"].(map[string]any)
		id, tool, args, ok := toolCall(req["body"])
		if !ok {
			continue
		}
		resp, _ := ex["response"].(map[string]any)
		if answers(resp["body"], id) {
			out = append(out, answer{fmt.Sprintf("exchanges[%d].response.body", i), tool, args})
		}
		events, _ := resp["events"].([]any)
		for j, ev := range events {
			evm, _ := ev.(map[string]any)
			if answers(evm["data"], id) {
				out = append(out, answer{fmt.Sprintf("exchanges[%d].response.events[%d].data", i, j), tool, args})
			}
		}
	}
	return append(out, stdioAnswers(root)...)
}

// stdioAnswers finds the answers to tools/call among stdio lines.
func stdioAnswers(root map[string]any) []answer {
	type key struct{ process, id string }
	pending := map[key]answer{}
	var out []answer
	lines, _ := root["lines"].([]any)
	for i, l := range lines {
		line, _ := l.(map[string]any)
		proc := fmt.Sprint(line["process"])
		msg, _ := line["message"].(map[string]any)
		if line["dir"] == "send" {
			if id, tool, args, ok := toolCall(msg); ok {
				pending[key{proc, fmt.Sprint(id)}] = answer{tool: tool, args: args}
			}
			continue
		}
		k := key{proc, fmt.Sprint(msg["id"])}
		if a, ok := pending[k]; ok && msg["id"] != nil {
			a.prefix = fmt.Sprintf("lines[%d].message", i)
			out = append(out, a)
			delete(pending, k)
		}
	}
	return out
}

// toolCall reads a JSON-RPC tools/call request: its id, tool and
// arguments.
func toolCall(v any) (id any, tool string, args any, ok bool) {
	m, _ := v.(map[string]any)
	if m["method"] != "tools/call" || m["id"] == nil {
		return nil, "", nil, false
	}
	params, _ := m["params"].(map[string]any)
	tool, ok = params["name"].(string)
	return m["id"], tool, params["arguments"], ok
}

// answers reports whether v is a JSON-RPC answer to id.
func answers(v any, id any) bool {
	m, ok := v.(map[string]any)
	return ok && m["id"] != nil && reflect.DeepEqual(m["id"], id) && m["method"] == nil
}

// align prepares two decoded recordings for comparison, their HTTP
// exchanges and their stdio lines (a stdio probe's too) alike: the fresh items are put in the
// places of the stored ones with the same key (the n-th of a key with its
// n-th), those without one after them, and the exchanges' timeline fields
// (seq, events' after) are dropped from both.
func align(stored, fresh any) {
	a, _ := stored.(map[string]any)
	b, _ := fresh.(map[string]any)
	alignList(a, b, "exchanges", requestKey)
	alignList(a, b, "lines", lineKey)
	alignList(a, b, "probes", probeKey)
	dropTimingProbes(a, b)
	pa, _ := a["probes"].([]any)
	pb, _ := b["probes"].([]any)
	for i := range min(len(pa), len(pb)) {
		x, _ := pa[i].(map[string]any)
		y, _ := pb[i].(map[string]any)
		if x != nil && y != nil {
			alignList(x, y, "lines", lineKey) // a server's notifications come when they come
		}
	}
	for _, m := range []map[string]any{a, b} {
		if x, ok := m["exchanges"].([]any); ok {
			dropTimeline(x)
		}
	}
}

// alignList aligns the fresh list field of b on a's, by key.
func alignList(a, b map[string]any, field string, key func(any) string) {
	xa, _ := a[field].([]any)
	xb, _ := b[field].([]any)
	if xa == nil || xb == nil {
		return
	}
	places := map[string][]int{} // key → its places in stored, in order
	for i, x := range xa {
		k := key(x)
		places[k] = append(places[k], i)
	}
	aligned := make([]any, len(xa))
	var rest []any
	for _, x := range xb {
		k := key(x)
		if p := places[k]; len(p) > 0 {
			aligned[p[0]], places[k] = x, p[1:]
		} else {
			rest = append(rest, x)
		}
	}
	for i, x := range aligned {
		if x == nil {
			aligned[i] = map[string]any{} // stored only: every field absent
		}
	}
	b[field] = append(aligned, rest...)
}

// lineKey is a stdio line's process, direction and message without its
// result or error: what the line asks or answers, not its answer.
func lineKey(l any) string {
	m, _ := l.(map[string]any)
	msg, _ := m["message"].(map[string]any)
	k := map[string]any{"process": m["process"], "dir": m["dir"]}
	for f, v := range msg {
		if f != "result" && f != "error" {
			k[f] = v
		}
	}
	raw, _ := json.Marshal(k)
	return string(raw)
}

// requestKey is an exchange's request as JSON.
func requestKey(ex any) string {
	m, _ := ex.(map[string]any)
	raw, _ := json.Marshal(m["request"])
	return string(raw)
}

// probeKey is a probe's kind and what it sent (its request body, or its
// first line).
func probeKey(p any) string {
	m, _ := p.(map[string]any)
	req, _ := m["request"].(map[string]any)
	var first any
	if lines, _ := m["lines"].([]any); len(lines) > 0 {
		first = lines[0]
	}
	raw, _ := json.Marshal([]any{m["kind"], req["body"], first})
	return string(raw)
}

// dropTimingProbes leaves out, from two aligned probe lists, the
// no-standalone-stream probes one side holds and the other does not: a
// call is re-sent as such a probe when the server wrote to its standalone
// stream during it, and a server that writes on a timer does so during a
// call or between two as the machine's timing has it.
func dropTimingProbes(a, b map[string]any) {
	pa, _ := a["probes"].([]any)
	pb, _ := b["probes"].([]any)
	var ka, kb []any
	for i := range max(len(pa), len(pb)) {
		x, y := at(pa, i), at(pb, i)
		if len(x) == 0 && y["kind"] == probekind.NoStandaloneStream || len(y) == 0 && x["kind"] == probekind.NoStandaloneStream {
			continue
		}
		if i < len(pa) {
			ka = append(ka, pa[i])
		}
		if i < len(pb) {
			kb = append(kb, pb[i])
		}
	}
	if pa != nil {
		a["probes"] = ka
	}
	if pb != nil {
		b["probes"] = kb
	}
}

// at is the i-th item of list as an object (nil past its end).
func at(list []any, i int) map[string]any {
	if i >= len(list) {
		return nil
	}
	m, _ := list[i].(map[string]any)
	return m
}

// dropTimeline removes seq and the events' after from exchanges.
func dropTimeline(exchanges []any) {
	for _, ex := range exchanges {
		m, _ := ex.(map[string]any)
		delete(m, "seq")
		resp, _ := m["response"].(map[string]any)
		events, _ := resp["events"].([]any)
		for _, ev := range events {
			if e, ok := ev.(map[string]any); ok {
				delete(e, "after")
			}
		}
	}
}
