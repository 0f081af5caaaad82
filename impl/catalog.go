package impl

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
)

//go:embed catalog.json
var catalogJSON []byte

// CatalogJSON is the embedded catalog file as it is stored: the one
// catalog of every implementation (P17), handed to a target as {catalog}.
func CatalogJSON() []byte { return append([]byte(nil), catalogJSON...) }

// CatalogEntry is one installable server of the embedded catalog.
type CatalogEntry struct {
	ID          string            `json:"id"`
	Name        string            `json:"name"`
	Category    string            `json:"category"`
	Description string            `json:"description"`
	Homepage    string            `json:"homepage,omitempty"`
	Runtime     string            `json:"runtime,omitempty"`
	Command     string            `json:"command"`
	Args        []string          `json:"args,omitempty"`
	Env         map[string]string `json:"env,omitempty"`
	Secrets     []string          `json:"secrets,omitempty"`
	Installed   bool              `json:"installed"`
	RuntimeOK   bool              `json:"runtimeOk"`
}

// catalogFile is the catalog file's shape: {"version":1,"servers":[…]}.
type catalogFile struct {
	Version int            `json:"version"`
	Servers []CatalogEntry `json:"servers"`
}

// runtimeLaunchers maps a runtime to the launcher that must be on PATH (P17).
var runtimeLaunchers = map[string]string{"node": "npx", "python": "uvx"}

// Catalog implements P17: the catalog's entries with {workspace} resolved in
// args and env, marked installed when a server of the same name is
// configured, and runtimeOk when their launcher is present (always, for a
// runtime without one). An unreadable configuration reads as no servers: it
// never empties the catalog.
func (p *Pool) Catalog() ([]CatalogEntry, error) {
	var f catalogFile
	if err := json.Unmarshal(catalogJSON, &f); err != nil {
		return nil, fmt.Errorf("catalogue embarqué: %w", err)
	}
	entries := append([]CatalogEntry{}, f.Servers...)
	cfg := p.store.Load()
	found := map[string]bool{}
	for i := range entries {
		e := &entries[i]
		for j, a := range e.Args {
			e.Args[j] = strings.ReplaceAll(a, "{workspace}", p.opts.Workspace)
		}
		for k, v := range e.Env {
			e.Env[k] = strings.ReplaceAll(v, "{workspace}", p.opts.Workspace)
		}
		_, e.Installed = cfg[e.ID]
		e.RuntimeOK = p.runtimeOK(e.Runtime, found)
	}
	return entries, nil
}

// runtimeOK implements P17's runtimeOk: the runtime's launcher is on PATH;
// a runtime without a launcher is ok. found caches the look-ups of a call.
func (p *Pool) runtimeOK(runtime string, found map[string]bool) bool {
	launcher, ok := runtimeLaunchers[runtime]
	if !ok {
		return true
	}
	if _, seen := found[launcher]; !seen {
		lookPath := p.opts.LookPath
		if lookPath == nil {
			lookPath = exec.LookPath
		}
		_, err := lookPath(launcher)
		found[launcher] = err == nil
	}
	return found[launcher]
}
