package impl

// The catalog (P17): the catalog file as is, {workspace} resolved, empty
// fields left out, installed and runtimeOk.

import (
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// expectedCatalog is the catalog file's entries as the route must answer
// them (P17.1, P17.2, P17.5): in file order, {workspace} resolved in args
// and env, empty homepage, runtime, args, env and secrets left out, then
// installed and runtimeOk as given by the two functions.
func expectedCatalog(t *testing.T, workspace string, installed, runtimeOK func(id, runtime string) bool) []map[string]any {
	t.Helper()
	var file struct {
		Version int              `json:"version"`
		Servers []map[string]any `json:"servers"`
	}
	if err := json.Unmarshal(CatalogJSON(), &file); err != nil || file.Version != 1 {
		t.Fatalf("P17.1 catalog file: version %d, %v", file.Version, err)
	}
	resolve := func(v any) any {
		s, _ := v.(string)
		return strings.ReplaceAll(s, "{workspace}", workspace)
	}
	for _, e := range file.Servers {
		for _, k := range []string{"homepage", "runtime", "args", "env", "secrets"} {
			switch v := e[k].(type) {
			case string:
				if v == "" {
					delete(e, k)
				}
			case []any:
				if len(v) == 0 {
					delete(e, k)
				}
				for i := range v {
					v[i] = resolve(v[i])
				}
			case map[string]any:
				if len(v) == 0 {
					delete(e, k)
				}
				for key := range v {
					v[key] = resolve(v[key])
				}
			}
		}
		id, _ := e["id"].(string)
		runtime, _ := e["runtime"].(string)
		e["installed"], e["runtimeOk"] = installed(id, runtime), runtimeOK(id, runtime)
	}
	return file.Servers
}

func TestP17_Catalog(t *testing.T) {
	var mu sync.Mutex
	asked := map[string]int{}
	lookPath := func(name string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		asked[name]++
		if name == "npx" {
			return "/usr/bin/npx", nil
		}
		return "", exec.ErrNotFound
	}
	// P17.4: npx is found, uvx is not; a runtime without a launcher is ok.
	runtimeOK := func(_, runtime string) bool { return runtime != "python" }
	read := func(t *testing.T, f *fixture) []map[string]any {
		t.Helper()
		code, raw := f.do("GET", "/api/mcp/catalog", "")
		var body struct {
			OK      bool             `json:"ok"`
			Catalog []map[string]any `json:"catalog"`
		}
		if err := json.Unmarshal([]byte(raw), &body); err != nil || !body.OK || code != 200 {
			t.Fatalf("GET /api/mcp/catalog: %d %.200s: %v", code, raw, err)
		}
		return body.Catalog
	}
	tests := []struct {
		name, seed string
		installed  map[string]bool
	}{
		{"P17.3 installed by id", `{"memory":{"command":"npx","enabled":false},"git":{"command":"uvx"},"Filesystem":{"url":"http://x"},"time ":{"url":"http://x"}}`,
			map[string]bool{"memory": true, "git": true}},
		{"P17 empty store", "", nil},
		{"P17.6 unreadable store", `{"memory": garbage`, nil},
		{"P17.6 partly read store", `{"memory":{"url":"http://x","enabled":false},"git":7,"time":{"url":"http://x","enabled":false}}`,
			map[string]bool{"memory": true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, func(o *Options) { o.Workspace = "/home/me/ws"; o.LookPath = lookPath })
			if tt.seed != "" {
				f.seedRaw(tt.seed)
			}
			want := expectedCatalog(t, "/home/me/ws", func(id, _ string) bool { return tt.installed[id] }, runtimeOK)
			got := read(t, f)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("P17 catalog (-want +got)\n%s", diff)
			}
			if len(got) < 20 {
				t.Errorf("P17: %d catalog entries, want at least 20", len(got))
			}
		})
	}
	t.Run("P17.4 launchers looked up, not uv", func(t *testing.T) {
		mu.Lock()
		defer mu.Unlock()
		if asked["npx"] == 0 || asked["uvx"] == 0 || asked["uv"] != 0 || asked["docker"] != 0 {
			t.Errorf("P17 LookPath asked %v, want npx and uvx alone", asked)
		}
	})
}

// TestP17_2_WorkspaceResolved pins a few entries by hand, so that the
// expectation above is not only the implementation's own reading.
func TestP17_2_WorkspaceResolved(t *testing.T) {
	f := newFixture(t, func(o *Options) {
		o.Workspace = "/home/me/ws"
		o.LookPath = func(string) (string, error) { return "", exec.ErrNotFound }
	})
	entries, err := f.Pool().Catalog()
	if err != nil {
		t.Fatal(err)
	}
	byID := map[string]CatalogEntry{}
	for _, e := range entries {
		byID[e.ID] = e
	}
	if diff := cmp.Diff([]string{"-y", "@modelcontextprotocol/server-filesystem", "/home/me/ws"}, byID["filesystem"].Args); diff != "" {
		t.Errorf("P17.2 filesystem args (-want +got)\n%s", diff)
	}
	if got := byID["memory"].Env["MEMORY_FILE_PATH"]; got != "/home/me/ws/.mcp/memory.jsonl" {
		t.Errorf("P17.2 memory env = %q", got)
	}
	if diff := cmp.Diff([]string{"mcp-server-sqlite", "--db-path", "/home/me/ws/data.db"}, byID["sqlite"].Args); diff != "" {
		t.Errorf("P17.2 sqlite args (-want +got)\n%s", diff)
	}
	for id, want := range map[string]bool{"filesystem": false, "git": false, "github-docker": true, "kubernetes": true} {
		if byID[id].RuntimeOK != want {
			t.Errorf("P17.4 %s (runtime %q) runtimeOk = %v, want %v", id, byID[id].Runtime, byID[id].RuntimeOK, want)
		}
	}
	// The embedded catalog is not changed by a reading.
	again, _ := f.Pool().Catalog()
	if !strings.Contains(string(CatalogJSON()), `"{workspace}"`) || again[0].Args[2] != "/home/me/ws" {
		t.Error("P17.2: the catalog file itself was resolved in place")
	}
}
