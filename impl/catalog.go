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
	Homepage    string            `json:"homepage"`
	Runtime     string            `json:"runtime"`
	Command     string            `json:"command"`
	Args        []string          `json:"args"`
	Env         map[string]string `json:"env"`
	Secrets     []string          `json:"secrets"`
	Installed   bool              `json:"installed"`
	RuntimeOK   bool              `json:"runtimeOk"`
}

// runtimeLaunchers maps a runtime to the launcher that must be on PATH (P17).
var runtimeLaunchers = map[string]string{"node": "npx", "python": "uvx"}

// Catalog implements P17: the embedded entries with {workspace} resolved in
// args and env, marked installed when a server of the same name is
// configured, and runtimeOk when their launcher is present. An unreadable
// configuration leaves every entry not installed; it never empties the
// catalog.
func (p *Pool) Catalog() ([]CatalogEntry, error) {
	var entries []CatalogEntry
	if err := json.Unmarshal(catalogJSON, &entries); err != nil {
		return nil, fmt.Errorf("catalogue embarqué: %w", err)
	}
	cfg, err := p.store.Load()
	if err != nil {
		cfg = nil // P17: the catalog stays whole
	}
	lookPath := p.opts.LookPath
	if lookPath == nil {
		lookPath = exec.LookPath
	}
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
		launcher, ok := runtimeLaunchers[e.Runtime]
		if !ok {
			continue
		}
		if _, seen := found[launcher]; !seen {
			_, err := lookPath(launcher)
			found[launcher] = err == nil
		}
		e.RuntimeOK = found[launcher]
	}
	return entries, nil
}
