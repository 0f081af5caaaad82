package compare

import "testing"

// TestDeviationsIn: a deviation of an era accepts in that era only; one
// without era in both.
func TestDeviationsIn(t *testing.T) {
	ds := []Deviation{{Reason: "both"}, {Reason: "modern", Era: "2026-07-28"}, {Reason: "handshake", Era: "2025-11-25"}}
	for era, want := range map[string][]string{"2025-11-25": {"both", "handshake"}, "2026-07-28": {"both", "modern"}} {
		var got []string
		for _, d := range DeviationsIn(ds, era) {
			got = append(got, d.Reason)
		}
		if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
			t.Errorf("in %s: %v, want %v", era, got, want)
		}
	}
}
