package recorder

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpparity/mcpparity/fixtures"
)

// WriteFile encodes f and writes it to path atomically: a temporary file in
// the same folder, then a rename. On any error the previous file at path is
// left untouched and the error names path.
func WriteFile(path string, f *fixtures.Fixture) error {
	data, err := fixtures.Encode(f)
	if err != nil {
		return fmt.Errorf("write fixture %s: %w", path, err)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*")
	if err != nil {
		return fmt.Errorf("write fixture %s: %w", path, err)
	}
	ok := false
	defer func() {
		if !ok {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write fixture %s: %w", path, err)
	}
	if err := tmp.Chmod(0o644); err != nil {
		return fmt.Errorf("write fixture %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write fixture %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write fixture %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write fixture %s: %w", path, err)
	}
	ok = true
	return nil
}
