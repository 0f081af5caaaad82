package scenario

import (
	"bytes"
	"encoding/json"
)

// Before steps named their kind, a step's kind was read from its fields,
// and two flags, "replays": true and "changes": true, stood for two kinds.
// A scenario file of that format still loads: each step without "kind"
// gets the kind its fields say and the flags are dropped (inferKinds); the
// scenario counts those steps (Scenario.InferredKinds) so that the command
// can say once which suites to update.

// inferKinds rewrites the steps without a kind of a scenario file; n counts
// them. A file whose every step names its kind is returned as is.
func inferKinds(data []byte) (out []byte, n int, err error) {
	if !bytes.Contains(data, []byte(`"steps"`)) {
		return data, 0, nil
	}
	var file map[string]json.RawMessage
	if err := json.Unmarshal(data, &file); err != nil {
		return data, 0, nil // the strict decoder says where it is malformed
	}
	var steps []map[string]json.RawMessage
	if err := json.Unmarshal(file["steps"], &steps); err != nil {
		return data, 0, nil
	}
	for _, st := range steps {
		n += inferKind(st)
	}
	if n == 0 {
		return data, 0, nil
	}
	if file["steps"], err = json.Marshal(steps); err != nil {
		return nil, 0, err
	}
	out, err = json.Marshal(file)
	return out, n, err
}

// inferKind gives st (and its parallel steps) the kind its fields say,
// when it names none; it returns how many steps it changed.
func inferKind(st map[string]json.RawMessage) int {
	n := 0
	if raw, ok := st["parallel"]; ok {
		var subs []map[string]json.RawMessage
		if json.Unmarshal(raw, &subs) == nil {
			for _, sub := range subs {
				n += inferKind(sub)
			}
			st["parallel"], _ = json.Marshal(subs)
		}
	}
	if _, ok := st["kind"]; ok {
		return n
	}
	kind := legacyKind(st)
	if kind == "" {
		return n
	}
	delete(st, "replays")
	delete(st, "changes")
	st["kind"], _ = json.Marshal(kind)
	return n + 1
}

// legacyKind is the kind a step's fields said before steps named it.
func legacyKind(st map[string]json.RawMessage) string {
	has := func(k string) bool { _, ok := st[k]; return ok }
	switch {
	case string(st["replays"]) == "true":
		return KindReplays
	case string(st["changes"]) == "true":
		return KindChanges
	case has("parallel"):
		return KindParallel
	case has("method"):
		return KindRequest
	case has("store"), has("processes"), has("alive"):
		return KindObserve
	case has("release"):
		return KindRelease
	}
	return ""
}
