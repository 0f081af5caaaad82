package scripted_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/internal/scripted"
)

// TestCompareVolatile changes the echo call's answers in a committed
// recording of each form (SSE events, JSON bodies, stdio lines): named
// volatile, the change is accepted and listed; not named, or named for
// another field or call, it drifts, named by its path and call; a change
// of the request itself always drifts.
func TestCompareVolatile(t *testing.T) {
	echo := map[string]any{"message": "Bonjour 🙂 — parité"}
	for _, file := range []string{"sdk/sse.json", "sdk/json.json", "sdk/stdio.json"} {
		t.Run(file, func(t *testing.T) {
			stored, err := os.ReadFile(filepath.Join(committed, file))
			if err != nil {
				t.Fatal(err)
			}
			answers := []byte(strings.ReplaceAll(string(stored), `"text": "Bonjour 🙂`, `"text": "Salut 🙂`))
			requests := []byte(strings.ReplaceAll(string(stored), `"message": "Bonjour 🙂`, `"message": "Salut 🙂`))
			for _, c := range []struct {
				name     string
				fresh    []byte
				calls    []scripted.Call
				drifted  bool
				volatile int
			}{
				{"named", answers, []scripted.Call{{Tool: "echo", Args: echo, Volatile: []string{"content[0].text"}}}, false, 2},
				{"named above", answers, []scripted.Call{{Tool: "echo", Args: echo, Volatile: []string{"content"}}}, false, 2},
				{"glob", answers, []scripted.Call{{Tool: "echo", Args: echo, Volatile: []string{"content[*].text"}}}, false, 2},
				{"not named", answers, nil, true, 0},
				{"another field", answers, []scripted.Call{{Tool: "echo", Args: echo, Volatile: []string{"structuredContent"}}}, true, 0},
				{"other args", answers, []scripted.Call{{Tool: "echo", Args: map[string]any{"message": "x"}, Volatile: []string{"content"}}}, true, 0},
				{"another call", answers, []scripted.Call{{Tool: "multi_text", Volatile: []string{"content"}}}, true, 0},
				{"request", requests, []scripted.Call{{Tool: "echo", Args: echo, Volatile: []string{"content"}}}, true, 0},
			} {
				d, err := scripted.Compare(stored, c.fresh, c.calls)
				if err != nil {
					t.Fatal(err)
				}
				if d.Drifted() != c.drifted || len(d.Volatile) != c.volatile {
					t.Errorf("%s: drifted %v with %d volatile, want %v with %d:\n%s", c.name, d.Drifted(), len(d.Volatile), c.drifted, c.volatile, d)
				}
				if c.drifted && c.fresh != nil && !strings.Contains(d.String(), `"Salut 🙂 — parité"`) {
					t.Errorf("%s: the drift does not show the fresh value:\n%s", c.name, d)
				}
				if c.name == "not named" && !strings.Contains(d.String(), ".result.content[0].text (answer to tools/call echo)") {
					t.Errorf("the drift does not name the path and its call:\n%s", d)
				}
			}
		})
	}
}

// TestCompareProbeLinesByWhatTheyAre: a stdio probe's lines in another
// order (a server's notification before or after its answer) are the same
// recording; a probe's answer changed drifts, and so do the same values in
// the same order laid out otherwise.
func TestCompareProbeLinesByWhatTheyAre(t *testing.T) {
	probe := func(lines ...string) []byte {
		return []byte(`{"format":1,"probes":[{"kind":"unknown-method","lines":[` + strings.Join(lines, ",") + `]}]}`)
	}
	req := `{"dir":"send","message":{"jsonrpc":"2.0","id":2,"method":"mcpparity/unknown-method"}}`
	note := `{"dir":"recv","message":{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}}`
	answer := `{"dir":"recv","message":{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"Method not found"}}}`
	other := `{"dir":"recv","message":{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"nope"}}}`
	stored := probe(req, note, answer)
	for _, c := range []struct {
		name    string
		fresh   []byte
		drifted bool
	}{
		{"reordered", probe(req, answer, note), false},
		{"another answer", probe(req, note, other), true},
		{"laid out otherwise", []byte(strings.ReplaceAll(string(stored), `,"lines"`, `, "lines"`)), true},
	} {
		d, err := scripted.Compare(stored, c.fresh, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d.Drifted() != c.drifted {
			t.Errorf("%s: drifted %v, want %v:\n%s", c.name, d.Drifted(), c.drifted, d)
		}
	}
}

// TestCompareTimingBornProbes: a no-standalone-stream probe one recording
// holds and the other does not is timing (a server writing on a timer
// during a call or between two), and the probes after it are compared
// with their own; any other probe missing, or answered otherwise, drifts.
func TestCompareTimingBornProbes(t *testing.T) {
	nss := func(id int) string {
		return `{"kind":"no-standalone-stream","request":{"method":"POST","path":"/mcp","body":{"id":` + strconv.Itoa(id) + `,"method":"tools/call"}},"response":{"status":200}}`
	}
	lack := func(status int) string {
		return `{"kind":"unknown-method","request":{"method":"POST","path":"/mcp","body":{"id":2,"method":"mcpparity/unknown-method"}},"response":{"status":` + strconv.Itoa(status) + `}}`
	}
	fx := func(probes ...string) []byte {
		return []byte(`{"format":1,"probes":[` + strings.Join(probes, ",") + `]}`)
	}
	stored := fx(nss(3), nss(4), lack(400))
	for _, c := range []struct {
		name    string
		fresh   []byte
		drifted bool
	}{
		{"a trigger missing", fx(nss(4), lack(400)), false},
		{"a trigger more", fx(nss(3), nss(4), nss(5), lack(400)), false},
		{"a trigger missing, another probe answered otherwise", fx(nss(4), lack(200)), true},
		{"another probe missing", fx(nss(3), nss(4)), true},
	} {
		d, err := scripted.Compare(stored, c.fresh, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d.Drifted() != c.drifted {
			t.Errorf("%s: drifted %v, want %v:\n%s", c.name, d.Drifted(), c.drifted, d)
		}
	}
}
