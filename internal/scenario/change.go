package scenario

import (
	"encoding/json"
	"errors"
	"io/fs"
)

// Change is one of the config changes of scenarios/changes: a request
// through the contract that changes the stored configuration (or is
// refused), and the response and stored state it must give.
type Change struct {
	Name        string          `json:"-"`
	Description string          `json:"description"`
	Method      string          `json:"method"`
	Path        string          `json:"path"`
	Body        json.RawMessage `json:"body"`
	// Expect: status, body and store (the store read after the request).
	Expect Observation `json:"expect"`
}

// Step is the scenario step of the change: the request, then the store.
func (m *Change) Step() Step {
	exp := m.Expect
	exp.Step = "change " + m.Name
	return Step{Name: exp.Step, Kind: KindRequest, Request: Request{Method: m.Method, Path: m.Path, Body: m.Body, Expect: &exp},
		Observe: Observe{Store: true}}
}

// loadChanges reads every *.json of dir in fsys, sorted by name.
func loadChanges(fsys fs.FS, dir string) ([]*Change, error) {
	all := func(string) bool { return true }
	return loadDir(fsys, dir, all, nil, func(m *Change, name string, _ int) error {
		m.Name = name
		if m.Method == "" || m.Path == "" || m.Expect.Status == 0 {
			return errors.New("method, path and expect.status are required")
		}
		return nil
	})
}
