package suite

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Mutation is one config mutation of mutations/config: a request through
// the contract, and the response and stored state it must give.
type Mutation struct {
	Name        string          `json:"-"`
	Description string          `json:"description"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	Body        json.RawMessage `json:"body"`
	// Expect: status, body and store (the store read after the request).
	Expect Observation `json:"expect"`
}

// Step is the scenario step of the mutation: the request, then the store.
func (m *Mutation) Step() Step {
	exp := m.Expect
	exp.Step = "mutation " + m.Name
	return Step{Name: exp.Step, Method: m.Method, Path: m.Path, Body: m.Body, Store: true, Expect: &exp}
}

// LoadMutations reads every *.json of dir in fsys, sorted by name.
func LoadMutations(fsys fs.FS, dir string) ([]*Mutation, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []*Mutation
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := path.Join(dir, e.Name())
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		m, err := decodeStrict[Mutation](p, data)
		if err != nil {
			return nil, err
		}
		m.Name = strings.TrimSuffix(e.Name(), ".json")
		if m.Method == "" || m.Path == "" || m.Expect.Status == 0 {
			return nil, fmt.Errorf("%s: method, path and expect.status are required", p)
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}
