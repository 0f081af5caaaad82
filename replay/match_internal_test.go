package replay

import (
	"encoding/json"
	"testing"
)

// A tools/call without arguments matches whatever form "no arguments"
// takes (absent, null, {}); other methods and other arguments keep theirs.
func TestMatchNoArguments(t *testing.T) {
	m, err := newMatcher(DefaultIgnorePaths)
	if err != nil {
		t.Fatal(err)
	}
	key := func(method, params string) string {
		t.Helper()
		k, _, err := m.key(method, json.RawMessage(params))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	want := key("tools/call", `{"name":"image","arguments":{}}`)
	for _, p := range []string{`{"name":"image"}`, `{"name":"image","arguments":null}`, `{"arguments":{},"name":"image","_meta":{"k":1}}`} {
		if got := key("tools/call", p); got != want {
			t.Errorf("tools/call %s: key %s, want %s", p, got, want)
		}
	}
	if key("tools/call", `{"name":"image","arguments":{"x":1}}`) == want {
		t.Error("arguments {x:1} matched no arguments")
	}
	if key("prompts/get", `{"name":"p"}`) == key("prompts/get", `{"name":"p","arguments":{}}`) {
		t.Error("prompts/get: absent arguments made {}; only tools/call is normalized")
	}
	if key("initialize", `{"clientInfo":{"name":"loki","version":"0.12.3"},"protocolVersion":"2025-11-25"}`) !=
		key("initialize", `{"clientInfo":{"name":"mcpparity-ref","version":"1.0.0","title":"x"},"protocolVersion":"2025-11-25"}`) {
		t.Error("initialize: clientInfo changed the key; it is the implementation's own")
	}
}
