package golden

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Path is the golden file of a scenario in a suite folder:
// DIR/golden/<scenario>.golden.
func Path(dir, scenario string) string {
	return filepath.Join(dir, "golden", scenario+".golden")
}

// Read returns the golden observations of a scenario: the suite folder's
// file when dir is set, else the embedded one.
func Read(dir, scenario string) ([]byte, error) {
	if dir == "" {
		return fs.ReadFile(files, scenario+".golden")
	}
	return os.ReadFile(Path(dir, scenario))
}
