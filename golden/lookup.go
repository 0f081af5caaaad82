package golden

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpparity/mcpparity/impl"
)

// Path is the golden file of a scenario in an era in a suite folder:
// DIR/golden/<scenario>.golden for the handshake era ("" too), the file
// every era shares; DIR/golden/<scenario>.<era>.golden for another era,
// written only where its observations differ from the shared file's.
func Path(dir, scenario, era string) string {
	return filepath.Join(dir, "golden", fileName(scenario, era))
}

func fileName(scenario, era string) string {
	if era == "" || era == impl.EraHandshake {
		return scenario + ".golden"
	}
	return scenario + "." + era + ".golden"
}

// Read returns the golden observations of a scenario in an era: the
// era's own file when there is one, else the shared file; the suite
// folder's when dir is set, else the embedded ones.
func Read(dir, scenario, era string) ([]byte, error) {
	read := func(name string) ([]byte, error) {
		if dir == "" {
			return fs.ReadFile(files, name)
		}
		return os.ReadFile(filepath.Join(dir, "golden", name))
	}
	if own := fileName(scenario, era); own != fileName(scenario, "") {
		data, err := read(own)
		if !errors.Is(err, fs.ErrNotExist) {
			return data, err
		}
	}
	return read(fileName(scenario, ""))
}
