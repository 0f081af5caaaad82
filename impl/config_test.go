package impl

// The configuration through the contract: every change with the bbolt file
// read after it (C1, C3–C6, C8), invalidations (C7), the store (C8).

import (
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// change is one configuration change through its route: the stored value
// before it, the request, the answer and the stored value after it.
type change struct {
	name   string
	seed   string // raw state/mcp before ("" for none)
	path   string
	body   func(f *fixture) string
	status int
	want   func(f *fixture) any // expected decoded answer
	stored func(f *fixture) string
}

// changeWorld is what the change cases refer to: an http server any case
// may connect (at u), and the test binary as a stdio command.
type changeWorld struct{ u, self string }

func newChangeWorld(t *testing.T) changeWorld {
	shared := newFixture(t)
	return changeWorld{u: shared.httpServer(false, testServerOptions{}).URL, self: os.Args[0]}
}

// seedA is one http server stored without an "enabled" key (C1).
func (w changeWorld) seedA() string { return fmt.Sprintf(`{"a":{"url":%q}}`, w.u) }

// reach is the status of a connected http server at w.u.
func (w changeWorld) reach(name string, c ServerStatus) ServerStatus {
	c.Name, c.Transport, c.Enabled, c.Connected, c.URL = name, "http", true, true, w.u
	c.Tools = httpTools
	if c.Disabled == nil {
		c.Disabled = []string{}
	}
	return c
}

// helperEnv is the env of a saved stdio server (its pid goes to f's starts
// file, so the fixture checks it is gone after the test).
func helperEnv(f *fixture) map[string]string { return f.stdio(nil).Env }

func unchanged(seed string) func(*fixture) string { return func(*fixture) string { return seed } }

// runChanges runs each change on a fresh fixture and checks the answer and
// the bbolt file after it (C8).
func runChanges(t *testing.T, changes []change) {
	t.Helper()
	for _, m := range changes {
		t.Run(m.name, func(t *testing.T) {
			f := newFixture(t)
			if m.seed != "" {
				f.seedRaw(m.seed)
			}
			code, body := f.do(http.MethodPost, m.path, m.body(f))
			if code != m.status {
				t.Errorf("status = %d, want %d (body %s)", code, m.status, body)
			}
			want := m.want(f)
			if diff := cmp.Diff(want, decodeAs(t, body, want)); diff != "" {
				t.Errorf("answer (-want +got)\n%s", diff)
			}
			// C8: the state read from the bbolt file itself.
			if diff := cmp.Diff(m.stored(f), f.stored()); diff != "" {
				t.Errorf("C8 stored state/mcp (-want +got)\n%s", diff)
			}
		})
	}
}

// TestC4_SaveNew: a new server saved, command and url trimmed, the rest as
// sent (C4.4), enabled by default (C4.6).
func TestC4_SaveNew(t *testing.T) {
	w := newChangeWorld(t)
	u, self, reach := w.u, w.self, w.reach
	runChanges(t, []change{
		{
			name: "C4 save new stdio", path: "/api/mcp/save",
			body: func(f *fixture) string {
				return mustJSON(map[string]any{"name": "local", "command": self, "args": []string{"--flag"}, "env": helperEnv(f)})
			},
			status: 200,
			want: func(f *fixture) any {
				return serversBody{OK: true, Servers: []ServerStatus{{Name: "local", Transport: "stdio", Enabled: true, Connected: true,
					Tools: stdioTools, Disabled: []string{}, Command: self, Args: []string{"--flag"}, Env: helperEnv(f)}}}
			},
			stored: func(f *fixture) string {
				return fmt.Sprintf(`{"local":{"command":%s,"args":["--flag"],"env":%s,"enabled":true}}`, jsonString(self), mustJSON(helperEnv(f)))
			},
		},
		{
			name: "C4 save new http with headers", path: "/api/mcp/save",
			body: func(*fixture) string {
				return fmt.Sprintf(`{"name":"remote","url":%q,"headers":{"Authorization":"Bearer t"}}`, u)
			},
			status: 200,
			want: func(*fixture) any {
				return serversBody{OK: true, Servers: []ServerStatus{reach("remote", ServerStatus{Headers: map[string]string{"Authorization": "Bearer t"}})}}
			},
			stored: func(*fixture) string {
				return fmt.Sprintf(`{"remote":{"url":%q,"headers":{"Authorization":"Bearer t"},"enabled":true}}`, u)
			},
		},
		{
			name: "C4.4 command trimmed, args and env kept as sent", path: "/api/mcp/save",
			body: func(f *fixture) string {
				env := helperEnv(f)
				env["PADDED"] = " v "
				return mustJSON(map[string]any{"name": "local", "command": "\u0085 " + self + "\t", "args": []string{" --flag "}, "env": env})
			},
			status: 200,
			want: func(f *fixture) any {
				env := helperEnv(f)
				env["PADDED"] = " v "
				return serversBody{OK: true, Servers: []ServerStatus{{Name: "local", Transport: "stdio", Enabled: true, Connected: true,
					Tools: stdioTools, Disabled: []string{}, Command: self, Args: []string{" --flag "}, Env: env}}}
			},
			stored: func(f *fixture) string {
				env := helperEnv(f)
				env["PADDED"] = " v "
				return fmt.Sprintf(`{"local":{"command":%s,"args":[" --flag "],"env":%s,"enabled":true}}`, jsonString(self), mustJSON(env))
			},
		},
		{
			name: "C4.4 url trimmed, headers kept as sent", path: "/api/mcp/save",
			body: func(*fixture) string {
				return fmt.Sprintf(`{"name":"remote","url":"\u00a0 %s \n","headers":{"X-Pad":" v "}}`, u)
			},
			status: 200,
			want: func(*fixture) any {
				return serversBody{OK: true, Servers: []ServerStatus{reach("remote", ServerStatus{Headers: map[string]string{"X-Pad": " v "}})}}
			},
			stored: func(*fixture) string {
				return fmt.Sprintf(`{"remote":{"url":%q,"headers":{"X-Pad":" v "},"enabled":true}}`, u)
			},
		},
	})
}

// TestC4_6_SaveReplacesWhole: a save replaces the server of its name whole.
func TestC4_6_SaveReplacesWhole(t *testing.T) {
	w := newChangeWorld(t)
	u, reach := w.u, w.reach
	runChanges(t, []change{
		{
			name: "C4.6 save replaces a server whole: enabled, no hidden tools, no headers",
			seed: fmt.Sprintf(`{"a":{"url":%q,"headers":{"H":"1"},"enabled":false,"disabledTools":["echo","fail"]}}`, u),
			path: "/api/mcp/save", body: func(*fixture) string { return fmt.Sprintf(`{"name":"a","url":%q}`, u) },
			status: 200,
			want:   func(*fixture) any { return serversBody{OK: true, Servers: []ServerStatus{reach("a", ServerStatus{})}} },
			stored: func(*fixture) string { return fmt.Sprintf(`{"a":{"url":%q,"enabled":true}}`, u) },
		},
		{
			name: "C4.6 enabled null reads as absent",
			seed: fmt.Sprintf(`{"a":{"url":%q,"enabled":false}}`, u),
			path: "/api/mcp/save", body: func(*fixture) string { return fmt.Sprintf(`{"name":"a","url":%q,"enabled":null}`, u) },
			status: 200,
			want:   func(*fixture) any { return serversBody{OK: true, Servers: []ServerStatus{reach("a", ServerStatus{})}} },
			stored: func(*fixture) string { return fmt.Sprintf(`{"a":{"url":%q,"enabled":true}}`, u) },
		},
		{
			name: "C4.6 enabled false is saved as sent",
			seed: fmt.Sprintf(`{"a":{"url":%q,"disabledTools":["echo"]}}`, u),
			path: "/api/mcp/save", body: func(*fixture) string { return fmt.Sprintf(`{"name":"a","url":%q,"enabled":false}`, u) },
			status: 200,
			want: func(*fixture) any {
				return serversBody{OK: true, Servers: []ServerStatus{{Name: "a", Transport: "http", Tools: []string{}, Disabled: []string{}, URL: u}}}
			},
			stored: func(*fixture) string { return fmt.Sprintf(`{"a":{"url":%q,"enabled":false}}`, u) },
		},
		{
			name: "C4 save with enabled given overrides the kept value",
			seed: fmt.Sprintf(`{"a":{"url":%q,"enabled":false}}`, u),
			path: "/api/mcp/save", body: func(*fixture) string { return fmt.Sprintf(`{"name":"a","url":%q,"enabled":true}`, u) },
			status: 200,
			want:   func(*fixture) any { return serversBody{OK: true, Servers: []ServerStatus{reach("a", ServerStatus{})}} },
			stored: func(*fixture) string { return fmt.Sprintf(`{"a":{"url":%q,"enabled":true}}`, u) },
		},
	})
}

// TestC4_1_NameTrimmed: the name is trimmed of Unicode white space; a
// single _ is allowed (C4.3).
func TestC4_1_NameTrimmed(t *testing.T) {
	w := newChangeWorld(t)
	u, reach := w.u, w.reach
	runChanges(t, []change{
		{
			name: "C4 save trims the name", path: "/api/mcp/save",
			body:   func(*fixture) string { return fmt.Sprintf(`{"name":"  spaced \t","url":%q}`, u) },
			status: 200,
			want: func(*fixture) any {
				return serversBody{OK: true, Servers: []ServerStatus{reach("spaced", ServerStatus{})}}
			},
			stored: func(*fixture) string { return fmt.Sprintf(`{"spaced":{"url":%q,"enabled":true}}`, u) },
		},
		{
			name: "C4.1 Unicode white space trimmed from the name, a BOM kept", path: "/api/mcp/save",
			body:   func(*fixture) string { return fmt.Sprintf(`{"name":"\u0085\u00a0\ufeffb\u2028","url":%q}`, u) },
			status: 200,
			want: func(*fixture) any {
				return serversBody{OK: true, Servers: []ServerStatus{reach("\ufeffb", ServerStatus{})}}
			},
			stored: func(*fixture) string { return fmt.Sprintf(`{%s:{"url":%q,"enabled":true}}`, jsonString("\ufeffb"), u) },
		},
		{
			name: "C4.3 a single _ is allowed", path: "/api/mcp/save",
			body:   func(*fixture) string { return fmt.Sprintf(`{"name":"_a_b_","url":%q}`, u) },
			status: 200,
			want: func(*fixture) any {
				return serversBody{OK: true, Servers: []ServerStatus{reach("_a_b_", ServerStatus{})}}
			},
			stored: func(*fixture) string { return fmt.Sprintf(`{"_a_b_":{"url":%q,"enabled":true}}`, u) },
		},
	})
}

// TestC3C4_SaveRefused: a refused save changes nothing; the name's checks
// come first (C4.5).
func TestC3C4_SaveRefused(t *testing.T) {
	w := newChangeWorld(t)
	u, seedA := w.u, w.seedA()
	runChanges(t, []change{
		{
			name: "C4 empty name", seed: seedA, path: "/api/mcp/save",
			body:   func(*fixture) string { return fmt.Sprintf(`{"name":"   ","url":%q}`, u) },
			status: 400, want: func(*fixture) any { return ErrorBody{Error: textEmpty} }, stored: unchanged(seedA),
		},
		{
			name: "C4 name with __", seed: seedA, path: "/api/mcp/save",
			body:   func(*fixture) string { return fmt.Sprintf(`{"name":"a__b","url":%q}`, u) },
			status: 400, want: func(*fixture) any { return ErrorBody{Error: textReserved} }, stored: unchanged(seedA),
		},
		{
			name: "C4.3 a name starting with __", seed: seedA, path: "/api/mcp/save",
			body:   func(*fixture) string { return fmt.Sprintf(`{"name":"__a","url":%q}`, u) },
			status: 400, want: func(*fixture) any { return ErrorBody{Error: textReserved} }, stored: unchanged(seedA),
		},
		{
			name: "C4.3 a name ending with __", seed: seedA, path: "/api/mcp/save",
			body:   func(*fixture) string { return fmt.Sprintf(`{"name":"a__","url":%q}`, u) },
			status: 400, want: func(*fixture) any { return ErrorBody{Error: textReserved} }, stored: unchanged(seedA),
		},
		{
			name: "C4.5 a bad name and a bad configuration give the name's text", seed: seedA, path: "/api/mcp/save",
			body:   func(*fixture) string { return `{"name":"a__b"}` },
			status: 400, want: func(*fixture) any { return ErrorBody{Error: textReserved} }, stored: unchanged(seedA),
		},
		{
			name: "C4.5 an empty name and both transports give the name's text", seed: seedA, path: "/api/mcp/save",
			body:   func(*fixture) string { return fmt.Sprintf(`{"name":"\t","command":"x","url":%q}`, u) },
			status: 400, want: func(*fixture) any { return ErrorBody{Error: textEmpty} }, stored: unchanged(seedA),
		},
		{
			name: "C3 both command and url", seed: seedA, path: "/api/mcp/save",
			body:   func(*fixture) string { return fmt.Sprintf(`{"name":"x","command":"npx","url":%q}`, u) },
			status: 400, want: func(*fixture) any { return ErrorBody{Error: textBoth} }, stored: unchanged(seedA),
		},
		{
			name: "C3 neither command nor url", seed: seedA, path: "/api/mcp/save",
			body:   func(*fixture) string { return `{"name":"x","command":"  ","env":{"K":"V"}}` },
			status: 400, want: func(*fixture) any { return ErrorBody{Error: textNeither} }, stored: unchanged(seedA),
		},
	})
}

// TestC5_DeleteAndToggle: delete and toggle, of known servers and of names
// that are not configured (as sent, C5.1).
func TestC5_DeleteAndToggle(t *testing.T) {
	w := newChangeWorld(t)
	u, seedA, reach := w.u, w.seedA(), w.reach
	runChanges(t, []change{
		{
			name: "C5 delete", seed: fmt.Sprintf(`{"a":{"url":%q},"b":{"url":%q,"enabled":false}}`, u, u),
			path: "/api/mcp/delete", body: func(*fixture) string { return `{"name":"a"}` },
			status: 200, want: func(*fixture) any { return okBody{OK: true} },
			stored: func(*fixture) string { return fmt.Sprintf(`{"b":{"url":%q,"enabled":false}}`, u) },
		},
		{
			name: "C5 delete unknown", seed: seedA, path: "/api/mcp/delete",
			body:   func(*fixture) string { return `{"name":"nope"}` },
			status: 400, want: func(*fixture) any { return ErrorBody{Error: "serveur MCP inconnu: nope"} }, stored: unchanged(seedA),
		},
		{
			name: "C5 toggle off", seed: seedA, path: "/api/mcp/toggle",
			body:   func(*fixture) string { return `{"name":"a","on":false}` },
			status: 200,
			want: func(*fixture) any {
				return serversBody{OK: true, Servers: []ServerStatus{{Name: "a", Transport: "http", Tools: []string{}, Disabled: []string{}, URL: u}}}
			},
			stored: func(*fixture) string { return fmt.Sprintf(`{"a":{"url":%q,"enabled":false}}`, u) },
		},
		{
			name: "C5 toggle on", seed: fmt.Sprintf(`{"a":{"url":%q,"enabled":false}}`, u), path: "/api/mcp/toggle",
			body:   func(*fixture) string { return `{"name":"a","on":true}` },
			status: 200,
			want:   func(*fixture) any { return serversBody{OK: true, Servers: []ServerStatus{reach("a", ServerStatus{})}} },
			stored: func(*fixture) string { return fmt.Sprintf(`{"a":{"url":%q,"enabled":true}}`, u) },
		},
		{
			name: "C5 toggle unknown", seed: seedA, path: "/api/mcp/toggle",
			body:   func(*fixture) string { return `{"name":"nope","on":true}` },
			status: 400, want: func(*fixture) any { return ErrorBody{Error: "serveur MCP inconnu: nope"} }, stored: unchanged(seedA),
		},
		{
			name: "C5.1 toggle: the name is used as sent", seed: seedA, path: "/api/mcp/toggle",
			body:   func(*fixture) string { return `{"name":" a","on":false}` },
			status: 400, want: func(*fixture) any { return ErrorBody{Error: "serveur MCP inconnu:  a"} }, stored: unchanged(seedA),
		},
		{
			name: "C5.1 delete: the name is used as sent", seed: seedA, path: "/api/mcp/delete",
			body:   func(*fixture) string { return `{"name":"a "}` },
			status: 400, want: func(*fixture) any { return ErrorBody{Error: "serveur MCP inconnu: a "} }, stored: unchanged(seedA),
		},
		{
			name: "C5.1 tool: the name is used as sent", seed: seedA, path: "/api/mcp/tool",
			body:   func(*fixture) string { return `{"name":"\u00a0a","tool":"echo","on":false}` },
			status: 400, want: func(*fixture) any { return ErrorBody{Error: "serveur MCP inconnu: \u00a0a"} }, stored: unchanged(seedA),
		},
	})
}

// TestC6_ToolToggle: hiding and showing tools (C6), of an unknown server
// too (C5).
func TestC6_ToolToggle(t *testing.T) {
	w := newChangeWorld(t)
	u, seedA, reach := w.u, w.seedA(), w.reach
	runChanges(t, []change{
		{
			name: "C6 tool off", seed: seedA, path: "/api/mcp/tool",
			body:   func(*fixture) string { return `{"name":"a","tool":"echo","on":false}` },
			status: 200,
			want: func(*fixture) any {
				return serversBody{OK: true, Servers: []ServerStatus{reach("a", ServerStatus{Disabled: []string{"echo"}})}}
			},
			stored: func(*fixture) string {
				return fmt.Sprintf(`{"a":{"url":%q,"enabled":true,"disabledTools":["echo"]}}`, u)
			},
		},
		{
			name: "C6 tool off again (no duplicate, moved last)",
			seed: fmt.Sprintf(`{"a":{"url":%q,"disabledTools":["echo","fail"]}}`, u), path: "/api/mcp/tool",
			body:   func(*fixture) string { return `{"name":"a","tool":"echo","on":false}` },
			status: 200,
			want: func(*fixture) any {
				return serversBody{OK: true, Servers: []ServerStatus{reach("a", ServerStatus{Disabled: []string{"fail", "echo"}})}}
			},
			stored: func(*fixture) string {
				return fmt.Sprintf(`{"a":{"url":%q,"enabled":true,"disabledTools":["fail","echo"]}}`, u)
			},
		},
		{
			name: "C6.3 any tool name can be hidden, the empty one included", seed: seedA, path: "/api/mcp/tool",
			body:   func(*fixture) string { return `{"name":"a","tool":"","on":false}` },
			status: 200,
			want: func(*fixture) any {
				return serversBody{OK: true, Servers: []ServerStatus{reach("a", ServerStatus{Disabled: []string{""}})}}
			},
			stored: func(*fixture) string { return fmt.Sprintf(`{"a":{"url":%q,"enabled":true,"disabledTools":[""]}}`, u) },
		},
		{
			name: "C6 tool on", seed: fmt.Sprintf(`{"a":{"url":%q,"disabledTools":["titled","echo","fail"]}}`, u), path: "/api/mcp/tool",
			body:   func(*fixture) string { return `{"name":"a","tool":"echo","on":true}` },
			status: 200,
			want: func(*fixture) any {
				return serversBody{OK: true, Servers: []ServerStatus{reach("a", ServerStatus{Disabled: []string{"titled", "fail"}})}}
			},
			stored: func(*fixture) string {
				return fmt.Sprintf(`{"a":{"url":%q,"enabled":true,"disabledTools":["titled","fail"]}}`, u)
			},
		},
		{
			name: "C6 tool on of the last hidden tool", seed: fmt.Sprintf(`{"a":{"url":%q,"disabledTools":["echo"]}}`, u), path: "/api/mcp/tool",
			body:   func(*fixture) string { return `{"name":"a","tool":"echo","on":true}` },
			status: 200,
			want:   func(*fixture) any { return serversBody{OK: true, Servers: []ServerStatus{reach("a", ServerStatus{})}} },
			stored: func(*fixture) string { return fmt.Sprintf(`{"a":{"url":%q,"enabled":true}}`, u) },
		},
		{
			name: "C5 tool on unknown server", seed: seedA, path: "/api/mcp/tool",
			body:   func(*fixture) string { return `{"name":"nope","tool":"echo","on":true}` },
			status: 400, want: func(*fixture) any { return ErrorBody{Error: "serveur MCP inconnu: nope"} }, stored: unchanged(seedA),
		},
	})
}

// TestC7_ChangeInvalidates counts the sessions the server sees: every
// change of a server drops its session, the next status reconnects; a
// refused change and another server's change keep it.
func TestC7_ChangeInvalidates(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{})
	f.seedRaw(fmt.Sprintf(`{"a":{"url":%q},"b":{"url":%q,"enabled":false}}`, srv.URL, srv.URL))
	deletes := func() int {
		n := 0
		for _, r := range srv.requests() {
			if r.Method == http.MethodDelete {
				n++
			}
		}
		return n
	}
	steps := []struct {
		name, method, path, body string
		code, sessions           int
	}{
		{"first status connects", "GET", "/api/mcp", "", 200, 1},
		{"P1 next status keeps the session", "GET", "/api/mcp", "", 200, 1},
		{"C7.1 tool off", "POST", "/api/mcp/tool", `{"name":"a","tool":"echo","on":false}`, 200, 2},
		{"C7.1 tool on", "POST", "/api/mcp/tool", `{"name":"a","tool":"echo","on":true}`, 200, 3},
		{"C7.1 toggle off (no new session: disabled)", "POST", "/api/mcp/toggle", `{"name":"a","on":false}`, 200, 3},
		{"C7.1 toggle on", "POST", "/api/mcp/toggle", `{"name":"a","on":true}`, 200, 4},
		{"C7.1 save", "POST", "/api/mcp/save", fmt.Sprintf(`{"name":"a","url":%q}`, srv.URL), 200, 5},
		{"C7.1 test button", "POST", "/api/mcp/test", `{"name":"a"}`, 200, 6},
		{"C7.3 another server's change keeps this session", "POST", "/api/mcp/tool", `{"name":"b","tool":"echo","on":false}`, 200, 6},
		{"C5.2 test of an unknown server: the status, nothing dropped", "POST", "/api/mcp/test", `{"name":"ghost"}`, 200, 6},
		{"C7.2 refused save (no transport) keeps the session", "POST", "/api/mcp/save", `{"name":"a"}`, 400, 6},
		{"C7.2 refused save (both transports) keeps the session", "POST", "/api/mcp/save",
			fmt.Sprintf(`{"name":"a","command":"mcpparity-missing-binary","url":%q}`, srv.URL), 400, 6},
		{"C7.2 refused save (name) keeps the session", "POST", "/api/mcp/save", fmt.Sprintf(`{"name":"a__","url":%q}`, srv.URL), 400, 6},
		{"C7.2 refused toggle keeps the session", "POST", "/api/mcp/toggle", `{"name":" a","on":false}`, 400, 6},
		{"status again", "GET", "/api/mcp", "", 200, 6},
	}
	for _, s := range steps {
		code, body := f.do(s.method, s.path, s.body)
		if code != s.code {
			t.Fatalf("%s: %d %s, want %d", s.name, code, body, s.code)
		}
		if got := srv.inits(); got != s.sessions {
			t.Errorf("%s: %d sessions opened so far, want %d", s.name, got, s.sessions)
		}
	}
	// Sessions dropped so far: tool off, tool on, toggle off, save, test → 5
	// DELETEs (toggle on had none open). Delete drops one more.
	waitFor(t, "C7: the dropped sessions' DELETEs", func() bool { return deletes() == 5 })
	if code, body := f.do("POST", "/api/mcp/delete", `{"name":"a"}`); code != 200 {
		t.Fatalf("delete: %d %s", code, body)
	}
	waitFor(t, "C7: delete closes the session", func() bool { return deletes() == 6 })
}

func TestC8_StoreSortedAndReadFromFile(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{})
	names := []string{"delta", "alpha", "echo", "Zulu", "charlie", "bravo"}
	for _, n := range names {
		body := fmt.Sprintf(`{"name":%q,"url":%q,"enabled":false}`, n, srv.URL)
		if code, raw := f.do("POST", "/api/mcp/save", body); code != 200 {
			t.Fatalf("save %s: %d %s", n, code, raw)
		}
	}
	sorted := slices.Sorted(slices.Values(names))
	var want []string
	for _, n := range sorted {
		want = append(want, fmt.Sprintf(`%q:{"url":%q,"enabled":false}`, n, srv.URL))
	}
	if diff := cmp.Diff("{"+strings.Join(want, ",")+"}", f.stored()); diff != "" {
		t.Errorf("C8 bucket state, key mcp (-want +got)\n%s", diff)
	}
	if _, err := os.Stat(filepath.Join(f.stateDir(), "state.db")); err != nil {
		t.Errorf("C8: no bbolt file state.db in the state folder: %v", err)
	}
	// Iteration order is sorted, on every read (map order is random).
	for range 5 {
		_, raw := f.do("GET", "/api/mcp", "")
		body := decodeAs(t, raw, serversBody{}).(serversBody)
		var got []string
		for _, s := range body.Servers {
			got = append(got, s.Name)
		}
		if diff := cmp.Diff(sorted, got); diff != "" {
			t.Fatalf("C8 status order (-want +got)\n%s", diff)
		}
	}
	// A second pool over the same file sees the same state (a real store).
	other, err := NewStore(f.stateDir())
	if err != nil {
		t.Fatal(err)
	}
	cfg := other.Load()
	if diff := cmp.Diff(sorted, sortedNames(cfg)); diff != "" {
		t.Errorf("C8 reload (-want +got)\n%s", diff)
	}
}

// TestC8_2_FieldsInOrderEmptyOmitted: a change writes the whole server
// back, its fields in the rule's order, the empty ones left out except
// enabled.
func TestC8_2_FieldsInOrderEmptyOmitted(t *testing.T) {
	f := newFixture(t)
	f.seedRaw(`{"z":{"disabledTools":["t"],"headers":{"H":"v"},"enabled":false,"url":"http://x","env":{"K":"V"},"args":["a"],"command":"c"},` +
		`"e":{"command":"c","args":[],"env":{},"headers":{},"disabledTools":["t"]}}`)
	if err := f.Pool().SetTool("e", "t", true); err != nil {
		t.Fatal(err)
	}
	want := `{"e":{"command":"c","enabled":true},` +
		`"z":{"command":"c","args":["a"],"env":{"K":"V"},"url":"http://x","headers":{"H":"v"},"enabled":false,"disabledTools":["t"]}}`
	if diff := cmp.Diff(want, f.stored()); diff != "" {
		t.Errorf("C8.2 stored (-want +got)\n%s", diff)
	}
}

// TestC8_4_WhatDecodes: a store that cannot be read reads as no servers;
// an object whose entries do not all decode reads as those decoded before
// the first that failed, in the stored order.
func TestC8_4_WhatDecodes(t *testing.T) {
	tests := []struct {
		name, raw string
		want      map[string]MCPServerConfig
	}{
		{"no value", "", map[string]MCPServerConfig{}},
		{"not JSON", `{"a":`, map[string]MCPServerConfig{}},
		{"trailing bytes", `{"a":{"url":"u"}} x`, map[string]MCPServerConfig{}},
		{"a second value", `{"a":{"url":"u"}}{}`, map[string]MCPServerConfig{}},
		{"a string", `"a"`, map[string]MCPServerConfig{}},
		{"an array", `[{"url":"u"}]`, map[string]MCPServerConfig{}},
		{"null", `null`, map[string]MCPServerConfig{}},
		{"an empty object", `{}`, map[string]MCPServerConfig{}},
		{"an entry that is not an object", `{"a":{"url":"u"},"b":5,"c":{"url":"w"}}`, map[string]MCPServerConfig{"a": {URL: "u", Enabled: true}}},
		{"a field of the wrong type", `{"a":{"url":"u"},"b":{"url":5},"c":{"url":"w"}}`, map[string]MCPServerConfig{"a": {URL: "u", Enabled: true}}},
		{"the stored order, not the sorted one", `{"z":{"url":"u"},"b":[],"a":{"url":"w"}}`, map[string]MCPServerConfig{"z": {URL: "u", Enabled: true}}},
		{"the first entry bad", `{"a":true,"b":{"url":"u"}}`, map[string]MCPServerConfig{}},
		{"a null server is {}", `{"a":null,"b":{"enabled":false}}`, map[string]MCPServerConfig{"a": {Enabled: true}, "b": {}}},
	}
	for _, tt := range tests {
		t.Run("C8.4 "+tt.name, func(t *testing.T) {
			f := newFixture(t)
			f.seedRaw(tt.raw)
			// A nil map is no servers too.
			if diff := cmp.Diff(tt.want, f.Pool().Store().Load(), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Load (-want +got)\n%s", diff)
			}
		})
	}
	t.Run("C8.4 a file that is not a bbolt store", func(t *testing.T) {
		f := newFixture(t)
		if err := os.MkdirAll(f.stateDir(), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(f.stateDir(), StoreFile), []byte("not a database"), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := f.Pool().Store().Load(); len(got) != 0 {
			t.Errorf("Load = %v, want no servers", got)
		}
		if code, raw := f.do("GET", "/api/mcp", ""); code != 200 || raw != `{"ok":true,"servers":null}`+"\n" {
			t.Errorf("C8.5 status: %d %s", code, raw)
		}
	})
}

// TestC8_5_PartialStore: what was not read does not exist for any route,
// and the next save writes what was read plus the saved server.
func TestC8_5_PartialStore(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(false, testServerOptions{})
	f.seedRaw(fmt.Sprintf(`{"a":{"url":%q},"b":{"url":5},"c":{"url":%q}}`, srv.URL, srv.URL))
	code, raw := f.do("GET", "/api/mcp", "")
	body := decodeAs(t, raw, serversBody{}).(serversBody)
	if code != 200 || len(body.Servers) != 1 || body.Servers[0].Name != "a" || !body.Servers[0].Connected {
		t.Fatalf("C8.5 status: %d %s, want a alone, connected", code, raw)
	}
	if code, raw := f.do("POST", FacadeToolsPath, `{}`); code != 200 || strings.Contains(raw, "mcp__c__") || !strings.Contains(raw, "mcp__a__echo") {
		t.Errorf("C8.5 tools: %d %s, want a's tools alone", code, raw)
	}
	if got := f.Pool().Call(ctx(t), "mcp__c__echo", map[string]any{"text": "x"}, 0).Output; got != textUnknown+"mcp__c__echo" {
		t.Errorf("C8.5 call of an unread server: %q", got)
	}
	for _, path := range []string{"/api/mcp/toggle", "/api/mcp/tool", "/api/mcp/delete"} {
		if code, raw := f.do("POST", path, `{"name":"c","tool":"echo"}`); code != 400 || !strings.Contains(raw, "serveur MCP inconnu: c") {
			t.Errorf("C8.5 %s of an unread server: %d %s", path, code, raw)
		}
	}
	if code, raw := f.do("POST", "/api/mcp/save", `{"name":"d","command":"mcpparity-missing-binary","enabled":false}`); code != 200 {
		t.Fatalf("save: %d %s", code, raw)
	}
	want := fmt.Sprintf(`{"a":{"url":%q,"enabled":true},"d":{"command":"mcpparity-missing-binary","enabled":false}}`, srv.URL)
	if diff := cmp.Diff(want, f.stored()); diff != "" {
		t.Errorf("C8.5 the save replaced the store (-want +got)\n%s", diff)
	}
	if n := srv.inits(); n != 1 {
		t.Errorf("%d sessions, want 1 (a's, kept: the save changed d alone)", n)
	}
}
