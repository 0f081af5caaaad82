package scripted

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Checked is one recording of a suite made again and compared with the
// stored fixture.
type Checked struct {
	Name    string
	Fixture string // the stored fixture
	Drift   Drift
	// Err is set when the recording could not be made or compared.
	Err error
}

// DriftSuite records each named recording of a suite from its call script
// into a temporary folder and compares it with the stored fixture, the
// calls' volatile fields aside. Every recording is checked, whatever the
// others gave; err is set only when none could be.
func DriftSuite(ctx context.Context, dir string, names []string, secrets Secrets, harness []string) ([]Checked, error) {
	tmp, err := os.MkdirTemp("", "mcpparity-record-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var out []Checked
	for _, name := range names {
		out = append(out, driftOne(ctx, dir, name, secrets, harness, filepath.Join(tmp, name+".json")))
	}
	return out, nil
}

func driftOne(ctx context.Context, dir, name string, secrets Secrets, harness []string, fresh string) Checked {
	c := Checked{Name: name}
	script, err := ReadScript(dir, name)
	if errors.Is(err, fs.ErrNotExist) {
		c.Err = errors.New("no call script " + scriptPath(dir, name) + " (a new fixture needs --upstream URL or --upstream-cmd CMD)")
		return c
	} else if err != nil {
		c.Err = err
		return c
	}
	r := SuiteRecording{Dir: dir, Name: name, Script: *script, Secrets: secrets}
	c.Fixture = filepath.Join(dir, "fixtures", filepath.FromSlash(r.Fixture()))
	stored, err := os.ReadFile(c.Fixture)
	if errors.Is(err, fs.ErrNotExist) {
		c.Err = errors.New("no stored fixture: record it first (mcpparity record-suite --suite " + dir + " --name " + name + ")")
		return c
	} else if err != nil {
		c.Err = err
		return c
	}
	if err := recordSuite(ctx, r, fresh, harness); err != nil {
		c.Err = fmt.Errorf("recording it again: %w", err)
		return c
	}
	data, err := os.ReadFile(fresh)
	if err == nil {
		c.Drift, err = Compare(stored, data, script.Calls)
	}
	c.Err = err
	return c
}
