package fuzz

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/internal/scenario"
)

// generated returns the scenarios of seeds 1..n.
func generated(t *testing.T, n int) []*Program {
	t.Helper()
	var out []*Program
	for seed := uint64(1); seed <= uint64(n); seed++ {
		p, err := fromSeed(seed, DefaultSteps, ScenarioName(seed))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

func scenarioJSON(t *testing.T, sc *scenario.Scenario) string {
	t.Helper()
	raw, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	return string(raw)
}

// TestGenerationIsReproducible: a seed makes the same sequence every
// time, and the choices it recorded make it again.
func TestGenerationIsReproducible(t *testing.T) {
	for _, p := range generated(t, 60) {
		again, err := fromSeed(p.Seed, DefaultSteps, p.Scenario.Name)
		if err != nil {
			t.Fatal(err)
		}
		replayed, err := fromChoices(p.Choices, p.Scenario.Name)
		if err != nil {
			t.Fatal(err)
		}
		want := scenarioJSON(t, p.Scenario)
		if got := scenarioJSON(t, again.Scenario); got != want {
			t.Fatalf("seed %d: two generations differ:\n%s\n%s", p.Seed, want, got)
		}
		if got := scenarioJSON(t, replayed.Scenario); got != want {
			t.Fatalf("seed %d: generation from its choices differs:\n%s\n%s", p.Seed, want, got)
		}
	}
}

// TestGeneratedScenariosLoad: every generated scenario, written as a
// scenario file, loads as check loads scenarios.
func TestGeneratedScenariosLoad(t *testing.T) {
	dir := t.TempDir()
	for _, p := range generated(t, 150) {
		raw, err := encodeScenario(p.Scenario)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p.Scenario.Name+".json"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	scs, err := scenario.LoadScenarios(os.DirFS(dir), ".")
	if err != nil {
		t.Fatal(err)
	}
	if len(scs) != 150 {
		t.Errorf("%d scenarios loaded, want 150", len(scs))
	}
}

// TestPrewarmIsFollowed: a prewarm answered connects in the background;
// the step after it waits for those connections (a status or the tools
// route), so that nothing after it depends on their timing.
func TestPrewarmIsFollowed(t *testing.T) {
	seen := 0
	for _, p := range generated(t, 300) {
		steps := p.Scenario.Steps
		for i, st := range steps {
			if st.Path != "/internal/facade/v1/mcp/prewarm" {
				continue
			}
			seen++
			if i+1 == len(steps) || steps[i+1].Path != "/api/mcp" && steps[i+1].Path != "/internal/facade/v1/mcp/tools" {
				t.Fatalf("seed %d: step %q is not followed by a status or tools step", p.Seed, st.Name)
			}
		}
	}
	if seen == 0 {
		t.Fatal("no prewarm generated")
	}
}

// TestGeneratorReachesTheEdges: over a few hundred seeds, the generator
// draws each of the values where implementations are known to differ.
func TestGeneratorReachesTheEdges(t *testing.T) {
	want := map[string]func(sc *scenario.Scenario, text string) bool{
		"a barrier":                    func(sc *scenario.Scenario, _ string) bool { return sc.Servers["b1"].Barrier != "" },
		"a held handshake, launched":   func(sc *scenario.Scenario, _ string) bool { return sc.Servers["h2"].Launcher == "npx.cmd.exe" },
		"a live gen server over stdio": func(sc *scenario.Scenario, _ string) bool { _, ok := sc.Servers["gen-stdio"]; return ok },
		"a replay with faults":         func(sc *scenario.Scenario, _ string) bool { return len(sc.Servers["sdk-sse"].Faults) > 0 },
		"an output of exactly the cap": func(_ *scenario.Scenario, text string) bool { return strings.Contains(text, `\"repeat\":11999`) },
		"a name beyond the BMP":        func(_ *scenario.Scenario, text string) bool { return strings.Contains(text, "🙂") },
		"U+2028":                       func(_ *scenario.Scenario, text string) bool { return strings.Contains(text, `\u2028`) }, // as Go writes it
		"NEL":                          func(_ *scenario.Scenario, text string) bool { return strings.Contains(text, "\u0085") },
		"BOM":                          func(_ *scenario.Scenario, text string) bool { return strings.Contains(text, "\ufeff") },
		"U+180E":                       func(_ *scenario.Scenario, text string) bool { return strings.Contains(text, "\u180e") },
		"a name with __": func(_ *scenario.Scenario, text string) bool {
			return strings.Contains(text, `__\"`) || strings.Contains(text, `"__`)
		},
		"-0":          func(_ *scenario.Scenario, text string) bool { return strings.Contains(text, "-0") },
		"a null body": func(_ *scenario.Scenario, text string) bool { return strings.Contains(text, `"rawBody":"null"`) },
		"a body over 1 MiB": func(sc *scenario.Scenario, _ string) bool {
			return hasStep(sc, func(st scenario.Step) bool { return st.PadTo > 1<<20 })
		},
		"a label at 120 runes": func(_ *scenario.Scenario, text string) bool {
			return strings.Contains(text, strings.Repeat("🙂", 112))
		},
		"keys out of order": func(_ *scenario.Scenario, text string) bool { return strings.Contains(text, `"rawBody":"{\"on\"`) },
		"a partial store":   func(sc *scenario.Scenario, _ string) bool { return strings.Contains(string(sc.Seed), ":5") },
		"a wrong method": func(sc *scenario.Scenario, _ string) bool {
			return hasStep(sc, func(st scenario.Step) bool { return st.Compare == scenario.CompareAnswered })
		},
		"POST in another case, with a body": func(sc *scenario.Scenario, _ string) bool {
			return hasStep(sc, func(st scenario.Step) bool {
				return st.Method != "POST" && strings.EqualFold(st.Method, "POST") && st.RawBody != nil
			})
		},
	}
	found := map[string]bool{}
	for _, p := range generated(t, 400) {
		text := scenarioJSON(t, p.Scenario)
		for what, has := range want {
			if has(p.Scenario, text) {
				found[what] = true
			}
		}
	}
	for what := range want {
		if !found[what] {
			t.Errorf("never generated: %s", what)
		}
	}
}

func hasStep(sc *scenario.Scenario, f func(scenario.Step) bool) bool {
	for _, st := range sc.Steps {
		if f(st) {
			return true
		}
	}
	return false
}

// TestExposedNamesStayUnique: no two configured servers a sequence
// expects may expose the same tool name (which one a call reaches is
// unspecified, P7).
func TestExposedNamesStayUnique(t *testing.T) {
	ks, err := kinds()
	if err != nil {
		t.Fatal(err)
	}
	m := newModel(map[string]*kind{"a": ks["gen-sse"], "b": ks["sdk-sse"]})
	m.servers["x!"] = &configured{spec: "a"}
	if !m.clashes("x?", "a") || m.clashes("x?", "b") || m.clashes("x!", "a") {
		t.Error("clashes: x? bound to a must clash with x! bound to a, and not when bound to b")
	}
	if got := m.unique("x?", "a"); got == "x?" || m.clashes(got, "a") {
		t.Errorf("unique(x?) = %q", got)
	}
}
