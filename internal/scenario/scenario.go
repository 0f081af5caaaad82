// Package scenario is the scenario format: a scenario's servers, store
// and steps (each of one kind, validated by its kind's own code), the
// config changes, what a step observes, and the loaders of the embedded
// scenarios, of suite folders and of the source tree, with the golden
// files and the rule coverage that go with them.
package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/strictjson"
)

// Scenario is one scenario file of scenarios/: the servers it needs, the
// store it starts from, and the steps it drives through the contract.
type Scenario struct {
	// Name is the file name without ".json", e.g. "03-status".
	Name string `json:"-"`
	// Suite and Dir are the name and folder of the suite the scenario
	// comes from ("" for an embedded one): see ID, and loadSuite.
	Suite string `json:"-"`
	Dir   string `json:"-"`
	// Fixtures is the folder searched first for the recordings it replays
	// (its suite's fixtures/; the source tree's recordings, LoadSource),
	// before the embedded ones.
	Fixtures string `json:"-"`
	// InferredKinds counts the steps of the file that named no kind (the
	// format before step kinds, legacy.go): their kinds were inferred.
	InferredKinds int                   `json:"-"`
	Description   string                `json:"description"`
	Servers       map[string]ServerSpec `json:"servers,omitempty"`
	// Env is given to the target (placeholders expanded).
	Env map[string]string `json:"env,omitempty"`
	// Launchers are made in {workspace}/bin as links to the harness, e.g.
	// "npx", so that a runtime launcher is present whatever the machine
	// has (with PATH={workspace}/bin in Env).
	Launchers []string `json:"launchers,omitempty"`
	// HideCommands are removed from {path} (see pathPlaceholder), e.g.
	// "npx", "uvx", "uv": runtimeOk then does not depend on the machine.
	HideCommands []string `json:"hideCommands,omitempty"`
	// Seed is the initial store content (placeholders expanded).
	Seed json.RawMessage `json:"seed,omitempty"`
	// SeedText, in place of Seed, is the initial store content as exact
	// text: JSON a decoder would not keep as written (a key twice), given
	// to the store as it is, {workspace} replaced.
	SeedText string `json:"seedText,omitempty"`
	Steps    []Step `json:"steps"`
	// SameAs names another scenario whose golden observations this one
	// must reproduce (its "replays" steps left out): the fidelity check.
	SameAs string `json:"sameAs,omitempty"`
	// Eras are the only eras the scenario runs in (none: every era); in
	// another, check skips it.
	Eras []string `json:"eras,omitempty"`
}

// ServerSpec is a server a scenario's configuration points at. Exactly one
// of Replay and Live is set.
type ServerSpec struct {
	// Replay names a fixture ("sdk/sse.json") served back by the replay:
	// over HTTP ({url:NAME}) or, with Stdio, as a command ({cmd:NAME} and
	// the args "{args:NAME}"). A suite's scenario finds it in the suite's
	// fixtures/ first, then among the embedded fixtures.
	Replay string `json:"replay,omitempty"`
	Stdio  bool   `json:"stdio,omitempty"`
	// Live runs a real go-sdk server instead of a replay (liveKinds): the
	// eleven-tool server in process ("sse", "json"), or the gen server,
	// whose tools answer what their arguments describe, in process
	// ("gen-sse", "gen-json") or as a stdio command of the harness
	// ("gen-stdio": {cmd:NAME} and "{args:NAME}"), or a server without
	// tools ("empty-json").
	Live string `json:"live,omitempty"`
	// Faults of the replay (replay.ParseFault syntax).
	Faults []string `json:"faults,omitempty"`
	// FaultsOnce, for a stdio replay, applies the faults in its first
	// process only (the reconnected process behaves).
	FaultsOnce bool `json:"faultsOnce,omitempty"`
	// LaterFaults, with FaultsOnce, are the faults of every later process.
	LaterFaults []string `json:"laterFaults,omitempty"`
	// Cancellations makes the replays step observe how many
	// notifications/cancelled the replay got (P10.2), for a server where
	// each is certain: a call held past its bound, then retried.
	Cancellations bool `json:"cancellations,omitempty"`
	// RequireHeaders: the replay reports any request without them.
	RequireHeaders map[string]string `json:"requireHeaders,omitempty"`
	// RequireEnv: a stdio replay reports a missing or different variable.
	RequireEnv map[string]string `json:"requireEnv,omitempty"`
	// Launcher, for a stdio replay, names the command it is started
	// through (a link named e.g. "npx" in the workspace), for P3/P4.
	Launcher string `json:"launcher,omitempty"`
	// Grandchild, for a stdio replay, starts it through a wrapper process
	// (as npx starts node): the replay is the configured command's child.
	Grandchild bool `json:"grandchild,omitempty"`
	// LeaderExits, with Grandchild, makes the wrapper exit as soon as its
	// input ends, leaving the replay running in its process group.
	LeaderExits bool `json:"leaderExits,omitempty"`
	// Holds select requests (replay fault selectors, e.g. "tools/call#1")
	// the replay holds until a step releases them (Step.Release).
	Holds []string `json:"holds,omitempty"`
	// Barrier names a group of replays whose initialize requests are held
	// until every replay of the group has received its own (replay fault
	// barrier): they connect only if the target connects them in parallel.
	Barrier string `json:"barrier,omitempty"`
}

// liveKinds are the values of ServerSpec.Live.
var liveKinds = []string{"sse", "json", "gen-sse", "gen-json", "gen-stdio", "empty-json"}

// LoadScenarios reads every numbered *.json of dir in fsys ("03-status.json";
// other files, such as the call scripts, are not scenarios), sorted by name.
func LoadScenarios(fsys fs.FS, dir string) ([]*Scenario, error) {
	numbered := func(name string) bool { return name[0] >= '0' && name[0] <= '9' }
	return loadDir(fsys, dir, numbered, inferKinds, func(s *Scenario, name string, inferred int) error {
		s.Name, s.InferredKinds = name, inferred
		return s.validate()
	})
}

func (s *Scenario) validate() error {
	if s.SeedText != "" && len(s.Seed) > 0 {
		return errors.New("seedText: not beside seed")
	}
	for _, e := range s.Eras {
		if _, err := impl.ParseEra(e); err != nil || e == "" {
			return fmt.Errorf("eras: %q is not an era (want %s or %s)", e, impl.EraHandshake, impl.EraModern)
		}
	}
	for name, sv := range s.Servers {
		if (sv.Replay == "") == (sv.Live == "") {
			return fmt.Errorf("server %q: set exactly one of replay and live", name)
		}
		if sv.Live != "" && !slices.Contains(liveKinds, sv.Live) {
			return fmt.Errorf("server %q: live is %q, want one of %s", name, sv.Live, strings.Join(liveKinds, ", "))
		}
		if sv.Live != "" && (sv.Stdio || len(sv.Faults) > 0 || len(sv.Holds) > 0 || sv.Barrier != "" || sv.Launcher != "" ||
			sv.FaultsOnce || len(sv.RequireHeaders) > 0 || len(sv.RequireEnv) > 0) {
			return fmt.Errorf("server %q: stdio, faults, holds, barrier, launcher, grandchild and requirements are for replays, not live servers", name)
		}
		if sv.Grandchild && !sv.Stdio {
			return fmt.Errorf("server %q: grandchild is for stdio replays", name)
		}
		if sv.LeaderExits && !sv.Grandchild {
			return fmt.Errorf("server %q: leaderExits is for a grandchild", name)
		}
		if len(sv.LaterFaults) > 0 && !(sv.FaultsOnce && sv.Stdio) {
			return fmt.Errorf("server %q: laterFaults is for a stdio replay with faultsOnce", name)
		}
	}
	for i, st := range s.Steps {
		if err := s.validateStep(st, false); err != nil {
			return err
		}
		if st.Kind == KindReplays && i != len(s.Steps)-1 {
			return fmt.Errorf("step %q: the replays step stops the target, so it comes last", st.Name)
		}
	}
	return nil
}

// loadDir decodes every *.json of dir that keep accepts, strictly (after
// migrate, when set, rewrote an older format; it counts what it changed),
// names each value after its file (without ".json"), validates it, and
// returns them sorted by name. Errors name the file.
func loadDir[T any](fsys fs.FS, dir string, keep func(string) bool, migrate func([]byte) ([]byte, int, error), check func(*T, string, int) error) ([]*T, error) {
	entries, err := fs.ReadDir(fsys, dir) // sorted by file name
	if err != nil {
		return nil, err
	}
	var out []*T
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || !keep(e.Name()) {
			continue
		}
		p := path.Join(dir, e.Name())
		data, err := fs.ReadFile(fsys, p)
		if err != nil {
			return nil, err
		}
		migrated := 0
		if migrate != nil {
			if data, migrated, err = migrate(data); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
		}
		v := new(T)
		if err := strictjson.Decode(p, "document", data, v); err != nil {
			return nil, err
		}
		if err := check(v, strings.TrimSuffix(e.Name(), ".json"), migrated); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// RunsIn tells whether s runs in era ("" is the handshake era).
func (s *Scenario) RunsIn(era string) bool {
	if era == "" {
		era = impl.EraHandshake
	}
	return len(s.Eras) == 0 || slices.Contains(s.Eras, era)
}

// GoldenEra is the era whose golden file s's observations in era are
// written to: era itself, but the shared file's ("") for a scenario that
// does not run in the handshake era.
func (s *Scenario) GoldenEra(era string) string {
	if !s.RunsIn(impl.EraHandshake) {
		return ""
	}
	return era
}

// Timed tells whether s sets a time scale.
func (s *Scenario) Timed() bool {
	_, ok := s.Env[impl.TimeScaleVar]
	return ok
}
