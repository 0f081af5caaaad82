package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mcpparity/mcpparity/golden"
	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
)

// GoldenChange is what MakeGolden did for one scenario.
type GoldenChange struct {
	Scenario string
	// Era is the era whose observations were written ("" for the
	// handshake era, whose file every era shares).
	Era string
	// File is the golden file ("" for a scenario the same as another: it
	// has none of its own).
	File string
	// Diff is the unified diff of the change ("" when unchanged).
	Diff string
	// New is set when the file did not exist: Diff adds it whole (an era's
	// own file: its difference from the shared one).
	New bool
	// Shared is set when an era's observations are the shared file's: it
	// has no file of its own (File is the shared one); Removed when the
	// file it had was removed for that (Diff removes it whole).
	Shared, Removed bool
	// Err is a divergence of the reference from what the scenario
	// declares (an expectation, its sameAs): nothing was written.
	Err error
}

// MakeGolden writes the golden files of scs in every era (impl.Eras):
// the shared file of the handshake era first, then each other era's own
// file where its observations differ.
func MakeGolden(ctx context.Context, cfg Config, scs []*scenario.Scenario, done func(GoldenChange)) error {
	for _, era := range impl.Eras {
		cfg.Era = era
		if era == impl.EraHandshake {
			cfg.Era = ""
		}
		if err := makeGoldenEra(ctx, cfg, scs, done); err != nil {
			return err
		}
	}
	return nil
}

// makeGoldenEra runs each suite scenario of scs against the reference in
// cfg's era, in order, and writes its golden file of that era into its
// suite's golden/ folder when it changed; each is told to done as it
// ends. A scenario the same as
// another is checked against that one's golden file once every file is
// written. An error means the reference could not run a scenario.
func makeGoldenEra(ctx context.Context, cfg Config, scs []*scenario.Scenario, done func(GoldenChange)) error {
	cfg.Target = target.RefTarget{}
	var later []func() GoldenChange
	for _, s := range scs {
		if s.Dir == "" {
			return fmt.Errorf("scenario %s is embedded: its golden file is the binary's", s.ID())
		}
		if !s.RunsIn(cfg.Era) {
			continue
		}
		fileEra := s.GoldenEra(cfg.Era)
		obs, ch, err := referenceRun(ctx, cfg, s)
		if err == nil && s.Timed() && ch.Err == nil && s.SameAs == "" && !sameAsFile(s, obs, fileEra) {
			// As check does (rerun.go): a timed scenario whose observations
			// changed runs once more, alone; that run is written.
			obs, ch, err = referenceRun(ctx, cfg, s)
		}
		if err != nil {
			return err
		}
		if s.SameAs != "" {
			later = append(later, func() GoldenChange { return sameAsChange(s, obs, ch, cfg.Era) })
			continue
		}
		if ch.Err == nil {
			if ch, err = writeGolden(s, obs, fileEra); err != nil {
				return err
			}
		}
		done(ch)
	}
	for _, f := range later {
		done(f())
	}
	return nil
}

// referenceRun runs s against cfg's target; a declared expectation it
// does not meet is the change's Err.
func referenceRun(ctx context.Context, cfg Config, s *scenario.Scenario) ([]scenario.Observation, GoldenChange, error) {
	ch := GoldenChange{Scenario: s.ID(), Era: cfg.Era}
	obs, expects, logs, err := RunScenario(ctx, cfg, s)
	if err != nil {
		return nil, ch, fmt.Errorf("%s: the reference could not run it: %w\n%s", s.ID(), err, logs)
	}
	for i, exp := range expects {
		if exp == nil {
			continue
		}
		if diffs := compareExpect(*exp, obs[i]); len(diffs) > 0 {
			d := diffs[0]
			ch.Err = fmt.Errorf("step %q: the reference does not meet its expectation at %s: want %s, got %s", obs[i].Step, d.Path, d.Want, d.Got)
			break
		}
	}
	return obs, ch, nil
}

// sameAsFile reports whether obs encode to s's golden file of era as it
// is.
func sameAsFile(s *scenario.Scenario, obs []scenario.Observation, era string) bool {
	data, err := EncodeObservations(obs)
	if err != nil {
		return false
	}
	old, err := golden.Read(s.Dir, s.Name, era)
	return err == nil && bytes.Equal(old, data)
}

// writeGolden writes s's golden file of era when its bytes change,
// atomically. Another era than the handshake one has a file of its own
// only where its observations differ from the shared file: one that no
// longer differs is removed.
func writeGolden(s *scenario.Scenario, obs []scenario.Observation, era string) (GoldenChange, error) {
	ch := GoldenChange{Scenario: s.ID(), Era: era, File: golden.Path(s.Dir, s.Name, era)}
	data, err := EncodeObservations(obs)
	if err != nil {
		return ch, err
	}
	shared := golden.Path(s.Dir, s.Name, "")
	if ch.File != shared {
		if same, err := os.ReadFile(shared); err == nil && bytes.Equal(same, data) {
			return removeGolden(ch, shared)
		}
	}
	oldName := ch.File
	old, err := os.ReadFile(ch.File)
	switch {
	case errors.Is(err, fs.ErrNotExist) && ch.File != shared:
		// A new era file: its diff is from the shared file.
		oldName, ch.New = shared, true
		old, _ = os.ReadFile(shared)
	case errors.Is(err, fs.ErrNotExist):
		oldName, ch.New = "/dev/null", true
	case err != nil:
		return ch, err
	}
	if ch.Diff = compare.LineDiff(oldName, ch.File, old, data); ch.Diff == "" && !ch.New {
		return ch, nil
	}
	if err := os.MkdirAll(filepath.Dir(ch.File), 0o755); err != nil {
		return ch, err
	}
	tmp := ch.File + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return ch, err
	}
	return ch, os.Rename(tmp, ch.File)
}

// removeGolden removes an era's file that no longer differs from the
// shared one; its diff is the whole file's removal. Without such a file,
// the change is the shared file's, unchanged.
func removeGolden(ch GoldenChange, shared string) (GoldenChange, error) {
	old, err := os.ReadFile(ch.File)
	if errors.Is(err, fs.ErrNotExist) {
		ch.File, ch.Shared = shared, true
		return ch, nil
	}
	if err != nil {
		return ch, err
	}
	ch.Removed, ch.Diff = true, compare.LineDiff(ch.File, "/dev/null", old, nil)
	return ch, os.Remove(ch.File)
}

// sameAsChange compares the observations of a scenario the same as
// another with that one's golden file of era, its replays left out.
func sameAsChange(s *scenario.Scenario, obs []scenario.Observation, ch GoldenChange, era string) GoldenChange {
	if ch.Err != nil {
		return ch
	}
	data, err := golden.Read(s.Dir, s.SameAs, era)
	if err != nil {
		ch.Err = fmt.Errorf("its sameAs %s has no golden file: %w", s.SameAs, err)
		return ch
	}
	var want []scenario.Observation
	if err := json.Unmarshal(data, &want); err != nil {
		ch.Err = fmt.Errorf("golden file of %s: %w", s.SameAs, err)
		return ch
	}
	if diffs := compare.Compare(withoutReplays(want), obs); len(diffs) > 0 {
		d := diffs[0]
		ch.Err = fmt.Errorf("the reference differs from its sameAs %s at %s: want %s, got %s (%d difference(s))", s.SameAs, d.Path, d.Want, d.Got, len(diffs))
	}
	return ch
}
