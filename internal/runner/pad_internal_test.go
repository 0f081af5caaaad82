package runner

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestPadJSON: a padded body is exactly n bytes of JSON, its fields kept
// and its pad all x, whatever else it holds (a nested "pad" included).
func TestPadJSON(t *testing.T) {
	for _, body := range []string{``, `{}`, `{"name":"x","nested":{"pad":""},"s":"pad"}`} {
		const n = 1<<20 + 1
		out, err := padJSON([]byte(body), n)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if len(out) != n || json.Unmarshal(out, &m) != nil {
			t.Fatalf("%s: %d bytes, JSON: %v", body, len(out), json.Valid(out))
		}
		pad, _ := m["pad"].(string)
		if strings.Trim(pad, "x") != "" || len(pad) < n-100 {
			t.Errorf("%s: pad of %d bytes, not all x", body, len(pad))
		}
		if body != "" && body != "{}" && m["name"] != "x" {
			t.Errorf("%s: fields lost: %v", body, m["name"])
		}
	}
	if _, err := padJSON([]byte(`{"a":"`+strings.Repeat("y", 100)+`"}`), 50); err == nil {
		t.Error("a body longer than n padded")
	}
}
