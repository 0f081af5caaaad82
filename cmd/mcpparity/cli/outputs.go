package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
)

// outputFiles are the report files of a command, named by their flag,
// opened (their folders made) before the command runs: a bad path costs
// nothing.
type outputFiles struct {
	files map[string]*os.File
}

// openFiles opens the files of paths (flag → path; empty paths skipped).
func openFiles(paths map[string]string) (*outputFiles, error) {
	o := &outputFiles{files: map[string]*os.File{}}
	for _, name := range slices.Sorted(maps.Keys(paths)) {
		path := paths[name]
		if path == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			o.abort()
			return nil, fmt.Errorf("--%s: %w", name, err)
		}
		f, err := os.Create(path)
		if err != nil {
			o.abort()
			return nil, fmt.Errorf("--%s: %w", name, err)
		}
		o.files[name] = f
	}
	return o, nil
}

// write writes each open file with its writer and closes it.
func (o *outputFiles) write(writers map[string]func(io.Writer) error) error {
	var errs []error
	for _, name := range slices.Sorted(maps.Keys(o.files)) {
		f := o.files[name]
		err := writers[name](f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		delete(o.files, name)
		if err != nil {
			errs = append(errs, fmt.Errorf("--%s: %w", name, err))
		}
	}
	return errors.Join(errs...)
}

// abort closes what is still open (a run that did not finish).
func (o *outputFiles) abort() {
	for _, f := range o.files {
		f.Close()
	}
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
