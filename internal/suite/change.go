package suite

import (
	"encoding/json"
	"errors"
	"io/fs"
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
	all := func(string) bool { return true }
	return loadDir(fsys, dir, all, func(m *Mutation, name string) error {
		m.Name = name
		if m.Method == "" || m.Path == "" || m.Expect.Status == 0 {
			return errors.New("method, path and expect.status are required")
		}
		return nil
	})
}
