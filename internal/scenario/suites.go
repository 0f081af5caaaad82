package scenario

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/golden"
)

// A Suite is a folder of scenarios laid out as this repository:
// scenarios/*.json (with their call scripts), golden/<scenario>.golden
// and fixtures/…/*.json. Its scenarios are named "NAME:SCENARIO" in
// reports and in --run.
type Suite struct {
	// Name is the suite's name in reports: by default the folder's base
	// name.
	Name string
	// Dir is the folder, absolute.
	Dir string
}

var suiteName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// ParseSuite reads a --suite argument, "[NAME=]DIR". Without NAME, the
// suite is named after the folder's base name.
func ParseSuite(arg string) (Suite, error) {
	name, dir, ok := strings.Cut(arg, "=")
	if !ok || !suiteName.MatchString(name) {
		name, dir = "", arg
	}
	if dir == "" {
		return Suite{}, fmt.Errorf("suite %q: no folder", arg)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return Suite{}, err
	}
	if name == "" {
		if name = filepath.Base(abs); !suiteName.MatchString(name) {
			return Suite{}, fmt.Errorf("suite %s: its folder's name %q is not a suite name (letters, digits, '.', '_', '-'): name it, NAME=%s", dir, name, dir)
		}
	}
	return Suite{Name: name, Dir: abs}, nil
}

// ScenariosDir, GoldenDir and FixturesDir are the folders of a suite.
func (su Suite) ScenariosDir() string { return filepath.Join(su.Dir, "scenarios") }
func (su Suite) GoldenDir() string    { return filepath.Join(su.Dir, "golden") }
func (su Suite) FixturesDir() string  { return filepath.Join(su.Dir, "fixtures") }

// loadSuite reads the scenarios of a suite folder (its scenarios/*.json
// whose names start with a digit, as LoadScenarios), sorted by name, each
// marked with its suite. Every fixture a scenario replays must be found,
// in the suite's fixtures/ first, then among the embedded fixtures, and
// be of the transport the scenario serves it over.
func loadSuite(su Suite) ([]*Scenario, error) {
	if info, err := os.Stat(su.ScenariosDir()); err != nil || !info.IsDir() {
		return nil, fmt.Errorf("suite %s: no scenarios folder %s (a suite holds scenarios/*.json, golden/*.golden, fixtures/…/*.json)", su.Name, su.ScenariosDir())
	}
	scs, err := LoadScenarios(os.DirFS(su.Dir), "scenarios")
	if err != nil {
		return nil, fmt.Errorf("suite %s (%s): %w", su.Name, su.Dir, err)
	}
	for _, s := range scs {
		s.Suite, s.Dir, s.Fixtures = su.Name, su.Dir, su.FixturesDir()
		if err := s.validateFixtures(); err != nil {
			return nil, fmt.Errorf("%s: %w", s.File(), err)
		}
	}
	return scs, nil
}

// Load returns the embedded scenarios (with builtin) followed by those of
// each suite in order. Two scenarios of one name (ID) are an error.
func Load(builtin bool, suites []Suite) ([]*Scenario, error) {
	var all []*Scenario
	if builtin {
		scs, err := EmbeddedScenarios()
		if err != nil {
			return nil, err
		}
		all = scs
	}
	for _, su := range suites {
		scs, err := loadSuite(su)
		if err != nil {
			return nil, err
		}
		all = append(all, scs...)
	}
	seen := map[string]*Scenario{}
	for _, s := range all {
		if o := seen[s.ID()]; o != nil {
			return nil, fmt.Errorf("two scenarios are named %q: %s and %s (give the suites names of their own: --suite NAME=DIR)", s.ID(), o.File(), s.File())
		}
		seen[s.ID()] = s
	}
	return all, nil
}

// LoadSource reads the embedded scenarios from the source tree at root
// (root/scenarios, their golden files in root/golden), replaying the
// recordings of the folder recordings: what the binary would embed once
// rebuilt, with the config changes of root/scenarios/changes. Their IDs are
// the embedded ones'. MakeGolden writes their golden files after a
// recording (record) and for go test -update.
func LoadSource(root, recordings string) ([]*Scenario, []*Change, error) {
	if info, err := os.Stat(filepath.Join(root, "scenarios")); err != nil || !info.IsDir() {
		return nil, nil, fmt.Errorf("%s holds no scenarios folder: the golden files of the embedded scenarios are written in a source tree", root)
	}
	scs, err := LoadScenarios(os.DirFS(root), "scenarios")
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", root, err)
	}
	for _, s := range scs {
		s.Dir, s.Fixtures = root, recordings
		if err := s.validateFixtures(); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s.File(), err)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "scenarios", "changes")); errors.Is(err, fs.ErrNotExist) {
		return scs, nil, nil
	}
	changes, err := loadChanges(os.DirFS(root), "scenarios/changes")
	return scs, changes, err
}

// ID is the scenario's name in reports and for --run: its file name for
// an embedded scenario ("03-status"), "SUITE:NAME" for a suite's.
func (s *Scenario) ID() string { return qualify(s.Suite, s.Name) }

func qualify(suite, name string) string {
	if suite == "" {
		return name
	}
	return suite + ":" + name
}

// File is the scenario's file, for messages.
func (s *Scenario) File() string {
	if s.Dir == "" {
		return "scenarios/" + s.Name + ".json (embedded)"
	}
	return filepath.Join(s.Dir, "scenarios", s.Name+".json")
}

// GoldenID is the ID whose golden file the scenario is compared with: its
// own, or that of the scenario of its suite it is the same as.
func (s *Scenario) GoldenID() string {
	if s.SameAs != "" {
		return qualify(s.Suite, s.SameAs)
	}
	return s.ID()
}

// Fixture reads a fixture the scenario replays: in its suite's fixtures/
// first, then among the embedded fixtures. file is "" for an embedded
// one.
func (s *Scenario) Fixture(name string) (*fixtures.Fixture, string, error) {
	var dirs []string
	if s.Fixtures != "" {
		dirs = []string{s.Fixtures}
	}
	if fx, ok := embeddedCache.Load(name); ok && !inDirs(name, dirs) {
		return fx.(*fixtures.Fixture), "", nil
	}
	fx, file, err := fixtures.Find(name, dirs...)
	if err == nil && file == "" {
		embeddedCache.Store(name, fx)
	}
	return fx, file, err
}

// embeddedCache holds the embedded fixtures decoded once per process
// (a fuzz run replays them in every sequence); a replay reads its fixture
// and never changes it.
var embeddedCache sync.Map

// inDirs reports whether a suite's folder holds a fixture of that name
// (it comes before the embedded one).
func inDirs(name string, dirs []string) bool {
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(d, filepath.FromSlash(name))); err == nil {
			return true
		}
	}
	return false
}

// validateFixtures reads every fixture the scenario replays.
func (s *Scenario) validateFixtures() error {
	for _, name := range slices.Sorted(maps.Keys(s.Servers)) {
		sv := s.Servers[name]
		if sv.Replay == "" {
			continue
		}
		fx, _, err := s.Fixture(sv.Replay)
		if err != nil {
			return fmt.Errorf("server %q: %w", name, err)
		}
		want := fixtures.TransportHTTP
		if sv.Stdio {
			want = fixtures.TransportStdio
		}
		if fx.Manifest.Transport != want {
			return fmt.Errorf("server %q: fixture %s is a %s fixture, the scenario serves it over %s", name, sv.Replay, fx.Manifest.Transport, want)
		}
	}
	return nil
}

// GoldenOf returns the golden observations of the scenarios by ID: an
// embedded scenario's from the binary, a suite scenario's from its
// suite's golden/ folder. scs are all the scenarios loaded (those a
// scenario is the same as included).
func GoldenOf(scs []*Scenario) Golden {
	dirs := map[string]string{}
	names := map[string]string{}
	for _, s := range scs {
		dirs[s.ID()], names[s.ID()] = s.Dir, s.Name
	}
	return func(id, era string) ([]byte, error) {
		name, ok := names[id]
		if !ok {
			return nil, fmt.Errorf("no scenario %q", id)
		}
		return golden.Read(dirs[id], name, era)
	}
}

// RequireGolden reports every scenario of scs whose golden file g cannot
// read, in one error: the file every era shares, which each has.
func RequireGolden(scs []*Scenario, g Golden) error {
	var errs []error
	for _, s := range scs {
		if _, err := g(s.GoldenID(), ""); err != nil {
			hint := ""
			if s.Dir != "" && errors.Is(err, fs.ErrNotExist) {
				hint = fmt.Sprintf(" (write it with: mcpparity golden --suite %s)", s.Dir)
			}
			errs = append(errs, fmt.Errorf("scenario %s has no golden file: %v%s", s.ID(), err, hint))
		}
	}
	return errors.Join(errs...)
}

// Golden returns the golden observations of a scenario by ID in an era
// (the era's own file, else the shared one; nil, error when there are
// none).
type Golden func(scenario, era string) ([]byte, error)

// Select returns the scenarios whose ID run matches ("03-status",
// "myteam:30-files"; all when run is nil).
func Select(scenarios []*Scenario, run *regexp.Regexp) []*Scenario {
	var out []*Scenario
	for _, s := range scenarios {
		if run == nil || run.MatchString(s.ID()) {
			out = append(out, s)
		}
	}
	return out
}
