package scenario

import (
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/internal/strictjson"
)

// validateSteps decodes a scenario with these steps (JSON, comma-separated)
// and two stdio replays, "a" holding requests, and checks it.
func validateSteps(steps string) error {
	doc := `{"description": "t", "servers": {
		"a": {"replay": "sdk/sse.json", "stdio": true, "holds": ["tools/call#1"]},
		"b": {"replay": "sdk/sse.json", "stdio": true}},
		"steps": [` + steps + `]}`
	var s Scenario
	if err := strictjson.Decode("t.json", "scenario", []byte(doc), &s); err != nil {
		return err
	}
	return s.validate()
}

// TestStepKinds: each kind takes its own fields and refuses the others', an
// unknown kind and a step without one are refused, and each kind's own
// rules hold.
func TestStepKinds(t *testing.T) {
	const waits = `"waitStarted": {"a": 1}, "waitReceived": {"a": {"initialize": 1}}, "release": ["a"]`
	const observe = `"store": true, "processes": ["a"], "alive": ["b"], "settle": "1s"`
	kinds := strings.Join(Kinds, ", ")
	for _, c := range []struct {
		name, steps string
		err         string // "" when the steps are accepted
	}{
		// Each kind with every field it takes.
		{"request", `{"name": "r", "kind": "request", "rules": ["C4.2"], "method": "POST", "path": "/api/mcp/save", "body": {"name": "x"},
			"padTo": 100, "shortBody": true, "headers": ["Allow"], "compare": "refusal", "masks": {"body.error": "x"},
			"expect": {"step": "r", "status": 200}, ` + observe + `, ` + waits + `}`, ""},
		{"request with a raw body", `{"name": "r", "kind": "request", "method": "POST", "path": "/", "rawBody": "{"}`, ""},
		{"observe", `{"name": "o", "kind": "observe", ` + observe + `, ` + waits + `}`, ""},
		{"observe the store", `{"name": "o", "kind": "observe", "store": true}`, ""},
		{"release", `{"name": "l", "kind": "release", ` + waits + `}`, ""},
		{"parallel", `{"name": "p", "kind": "parallel", "parallel": [
			{"name": "r", "kind": "request", "method": "GET", "path": "/api/mcp", "waitReceived": {"a": {"tools/call": 1}}},
			{"name": "o", "kind": "observe", "store": true, "after": "r"},
			{"name": "l", "kind": "release", "release": ["a"], "after": "o"}]}`, ""},
		{"changes", `{"name": "c", "kind": "changes"}`, ""},
		{"replays", `{"name": "x", "kind": "replays", "processes": ["a"], "alive": ["b"], "settle": "1s"}`, ""},

		// A field of another kind.
		{"request with parallel", `{"name": "r", "kind": "request", "method": "GET", "path": "/", "parallel": [{"name": "s", "kind": "changes"}]}`,
			`step "r": kind request takes no parallel`},
		{"observe with a method", `{"name": "o", "kind": "observe", "store": true, "method": "GET"}`, `step "o": kind observe takes no method`},
		{"observe with masks", `{"name": "o", "kind": "observe", "store": true, "masks": {"store.x": "y"}}`, `step "o": kind observe takes no masks`},
		{"release with store", `{"name": "l", "kind": "release", "release": ["a"], "store": true}`, `step "l": kind release takes no store`},
		{"parallel with a wait", `{"name": "p", "kind": "parallel", "waitStarted": {"a": 1}, "parallel": [{"name": "o", "kind": "observe", "store": true}]}`,
			`step "p": kind parallel takes no waitStarted`},
		{"changes with store", `{"name": "c", "kind": "changes", "store": true}`, `step "c": kind changes takes no store`},
		{"replays with store", `{"name": "x", "kind": "replays", "store": true}`, `step "x": kind replays takes no store`},
		{"replays with a wait", `{"name": "x", "kind": "replays", "waitReceived": {"a": {"initialize": 1}}}`, `step "x": kind replays takes no waitReceived`},
		{"a parallel step's step with a field of another kind", `{"name": "p", "kind": "parallel", "parallel": [{"name": "l", "kind": "release", "release": ["a"], "path": "/"}]}`,
			`step "p": step "l": kind release takes no path`},

		// No kind, an unknown kind, the flags the kinds replaced.
		{"no kind", `{"name": "s", "method": "GET", "path": "/"}`, `step "s": no kind: want one of ` + kinds},
		{"unknown kind", `{"name": "s", "kind": "fetch", "method": "GET", "path": "/"}`, `step "s": kind "fetch": want one of ` + kinds},
		{"replays flag", `{"name": "x", "kind": "replays", "replays": true}`, `unknown field "replays"`},
		{"changes flag", `{"name": "c", "kind": "changes", "changes": true}`, `unknown field "changes"`},

		// Each kind's own rules.
		{"no name", `{"kind": "changes"}`, "every step needs a name"},
		{"unknown clause", `{"name": "c", "kind": "changes", "rules": ["Z9.9"]}`, `step "c": unknown clause "Z9.9"`},
		{"request without path", `{"name": "r", "kind": "request", "method": "GET"}`, `step "r": kind request needs a method and a path`},
		{"request without method", `{"name": "r", "kind": "request", "path": "/", "store": true}`, `step "r": kind request needs a method and a path`},
		{"unknown compare", `{"name": "r", "kind": "request", "method": "GET", "path": "/", "compare": "loose"}`, `step "r": compare "loose"`},
		{"raw body beside body", `{"name": "r", "kind": "request", "method": "POST", "path": "/", "rawBody": "{", "body": {}}`, "rawBody goes alone"},
		{"bad mask", `{"name": "r", "kind": "request", "method": "GET", "path": "/", "masks": {"body..x": "y"}}`, `step "r": mask "body..x"`},
		{"observe nothing", `{"name": "o", "kind": "observe", "waitStarted": {"a": 1}}`, `step "o": kind observe observes nothing`},
		{"release nothing", `{"name": "l", "kind": "release", "waitStarted": {"a": 1}}`, `step "l": kind release releases nothing`},
		{"release of a replay holding nothing", `{"name": "l", "kind": "release", "release": ["b"]}`, `release: "b" is not a replay of this scenario that holds requests`},
		{"waitStarted of an unknown server", `{"name": "o", "kind": "observe", "store": true, "waitStarted": {"z": 1}}`, `waitStarted: "z" is not a stdio replay`},
		{"waitReceived of an unknown server", `{"name": "o", "kind": "observe", "store": true, "waitReceived": {"z": {"initialize": 1}}}`, `waitReceived: "z" is not a replay`},
		{"processes and alive", `{"name": "o", "kind": "observe", "processes": ["a"], "alive": ["a"]}`, `"a" is in processes and alive`},
		{"bare settle", `{"name": "r", "kind": "request", "method": "GET", "path": "/", "settle": "1s"}`, `settle "1s": want a positive duration, with processes or alive`},
		{"after outside a parallel step", `{"name": "o", "kind": "observe", "store": true, "after": "x"}`, "after is for the steps of a parallel step"},
		{"empty parallel", `{"name": "p", "kind": "parallel"}`, `step "p": kind parallel holds no steps`},
		{"nested parallel", `{"name": "p", "kind": "parallel", "parallel": [{"name": "q", "kind": "parallel", "parallel": [{"name": "c", "kind": "changes"}]}]}`,
			"a parallel step holds only its steps (not nested)"},
		{"changes in a parallel step", `{"name": "p", "kind": "parallel", "parallel": [{"name": "c", "kind": "changes"}]}`,
			`step "c": kind changes is not for the steps of a parallel step`},
		{"replays in a parallel step", `{"name": "p", "kind": "parallel", "parallel": [{"name": "x", "kind": "replays"}]}`,
			`step "x": kind replays is not for the steps of a parallel step`},
		{"after an unknown sibling", `{"name": "p", "kind": "parallel", "parallel": [{"name": "o", "kind": "observe", "store": true, "after": "z"}]}`,
			`"o" comes after "z", which is not one of its steps`},
		{"after in a cycle", `{"name": "p", "kind": "parallel", "parallel": [{"name": "o", "kind": "observe", "store": true, "after": "q"},
			{"name": "q", "kind": "observe", "store": true, "after": "o"}]}`, "its steps wait for each other in a cycle"},
		{"replays not last", `{"name": "x", "kind": "replays"}, {"name": "c", "kind": "changes"}`, `step "x": the replays step stops the target, so it comes last`},
	} {
		err := validateSteps(c.steps)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && err == nil:
			t.Errorf("%s: accepted, want an error with %q", c.name, c.err)
		case c.err != "" && !strings.Contains(err.Error(), c.err):
			t.Errorf("%s: error %q, want one with %q", c.name, err, c.err)
		}
	}
}

// TestKindFields: every field of a step is taken by some kind.
func TestKindFields(t *testing.T) {
	taken := map[string]bool{}
	for _, kind := range Kinds {
		for _, f := range kindFields[kind] {
			taken[f] = true
		}
	}
	for _, group := range [][]string{requestFields, observeFields, waitFields, {"parallel"}} {
		for _, f := range group {
			if !taken[f] {
				t.Errorf("field %s: no kind takes it", f)
			}
		}
	}
	if len(kindFields) != len(Kinds) {
		t.Errorf("%d kinds with fields, %d kinds", len(kindFields), len(Kinds))
	}
}
