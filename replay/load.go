package replay

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/mcpparity/mcpparity/fixtures"
)

// LoadFixture reads a fixture from a file, or else the embedded fixture
// of that name (a path below fixtures/recordings, e.g. "sdk/sse.json").
// Errors name the file and, for bad JSON, the line and column.
func LoadFixture(name string) (*fixtures.Fixture, error) {
	data, err := os.ReadFile(name)
	if err == nil {
		return fixtures.Decode(name, data)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if _, serr := fs.Stat(fixtures.Recordings, path.Join("recordings", name)); serr != nil {
		known := fixtures.List()
		if len(known) == 0 {
			return nil, fmt.Errorf("fixture %s: no such file, and no embedded fixtures", name)
		}
		return nil, fmt.Errorf("fixture %s: no such file, and not an embedded fixture (%s)", name, strings.Join(known, ", "))
	}
	return fixtures.Embedded(name)
}
