package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"time"

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
	Fixtures    string                `json:"-"`
	Description string                `json:"description"`
	Servers     map[string]ServerSpec `json:"servers,omitempty"`
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
}

// ServerSpec is a server a scenario's configuration points at. Exactly one
// of Replay and Live is set.
type ServerSpec struct {
	// Replay names a fixture ("sdk/sse.json") served back by the replay:
	// over HTTP ({url:NAME}) or, with Stdio, as a command ({cmd:NAME} and
	// the args "{args:NAME}"). A suite's scenario finds it in the suite's
	// fixtures/ first, then among the embedded recordings.
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

// Step is one thing the harness does and observes.
type Step struct {
	Name string `json:"name"`
	// Rules are the clauses of docs/rules.md and docs/contract.md the step
	// tests (e.g. "C4.2", "H1.1"): docs/rules-coverage.md is made of them.
	Rules []string `json:"rules,omitempty"`
	// An HTTP request to the target.
	Method string          `json:"method,omitempty"`
	Path   string          `json:"path,omitempty"`
	Body   json.RawMessage `json:"body,omitempty"`
	// RawBody is sent as is instead of Body (a malformed body).
	RawBody *string `json:"rawBody,omitempty"`
	// PadTo pads Body (an object) with a string field "pad" to exactly
	// this many bytes (a body over the contract's limit).
	PadTo int `json:"padTo,omitempty"`
	// ShortBody sends the body with a Content-Length that promises more,
	// then closes the client's side: a body that cannot be read to its
	// end (H1.6).
	ShortBody bool `json:"shortBody,omitempty"`
	// Headers names answer headers to observe (e.g. "Allow").
	Headers []string `json:"headers,omitempty"`
	// Store observes the target's store after the step's request (or alone).
	Store bool `json:"store,omitempty"`
	// Replays observes the reports of the scenario's replays.
	Replays bool `json:"replays,omitempty"`
	// WaitStarted, before the request, waits until the target has started
	// this many processes of each named stdio replay.
	WaitStarted map[string]int `json:"waitStarted,omitempty"`
	// WaitReceived, before the request, waits until each named replay has
	// received this many messages of each method (server → method → count).
	WaitReceived map[string]map[string]int `json:"waitReceived,omitempty"`
	// Release, before the request, releases the requests the named replays
	// hold (ServerSpec.Holds).
	Release []string `json:"release,omitempty"`
	// After, for a parallel step, waits until the named sibling is done.
	After string `json:"after,omitempty"`
	// Processes observes, after the request, the processes of the named
	// stdio replays: started, and still alive once the target had Settle
	// (default ProcessSettle) to end those it dropped.
	Processes []string `json:"processes,omitempty"`
	// Alive observes only how many processes of the named stdio replays
	// are still alive once Settle passed: for a server the target ends at
	// a deadline, which may kill it before it could announce itself, so
	// that how many started depends on the machine's speed.
	Alive  []string `json:"alive,omitempty"`
	Settle string   `json:"settle,omitempty"`
	// Changes expands into one request-and-store step per config change of
	// scenarios/changes, checked against their declared expectations.
	Changes bool `json:"changes,omitempty"`
	// Parallel runs these steps at the same time; the observation lists
	// theirs in this order.
	Parallel []Step `json:"parallel,omitempty"`
	// Masks, path → prefix: an observed string at that path (e.g.
	// "body.output") that starts with the prefix is cut after it, followed
	// by "…": the rest is a transport text of the target's stack.
	Masks map[string]string `json:"masks,omitempty"`
	// Expect, when set, must equal the observation (as well as the golden).
	Expect *Observation `json:"expect,omitempty"`
	// Compare says how much of the answer is compared: CompareExact (the
	// default), CompareRefusal, CompareAnswered or CompareStatus.
	Compare string `json:"compare,omitempty"`
}

// liveKinds are the values of ServerSpec.Live.
var liveKinds = []string{"sse", "json", "gen-sse", "gen-json", "gen-stdio", "empty-json"}

// LoadScenarios reads every numbered *.json of dir in fsys ("03-status.json";
// other files, such as the call scripts, are not scenarios), sorted by name.
func LoadScenarios(fsys fs.FS, dir string) ([]*Scenario, error) {
	numbered := func(name string) bool { return name[0] >= '0' && name[0] <= '9' }
	return loadDir(fsys, dir, numbered, func(s *Scenario, name string) error {
		s.Name = name
		return s.check()
	})
}

func (s *Scenario) check() error {
	if s.SeedText != "" && len(s.Seed) > 0 {
		return errors.New("seedText: not beside seed")
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
		if err := s.checkStep(st, false); err != nil {
			return err
		}
		if st.Replays && i != len(s.Steps)-1 {
			return fmt.Errorf("step %q: the replays step stops the target, so it comes last", st.Name)
		}
	}
	return nil
}

func (s *Scenario) checkStep(st Step, nested bool) error {
	if st.Name == "" {
		return errors.New("every step needs a name")
	}
	for _, r := range st.Rules {
		if !validClause(r) {
			return fmt.Errorf("step %q: unknown clause %q (want a clause of docs/rules.md or docs/contract.md, e.g. C4.2)", st.Name, r)
		}
	}
	if (st.Method == "") != (st.Path == "") {
		return fmt.Errorf("step %q: method and path go together", st.Name)
	}
	if err := checkCompare(st); err != nil {
		return err
	}
	if st.Method == "" && !st.Store && !st.Replays && !st.Changes && len(st.Processes)+len(st.Alive) == 0 && len(st.Parallel) == 0 && len(st.Release) == 0 {
		return fmt.Errorf("step %q does nothing", st.Name)
	}
	if (st.RawBody != nil || st.PadTo > 0 || st.ShortBody) && st.Method == "" {
		return fmt.Errorf("step %q: rawBody, padTo and shortBody need a request", st.Name)
	}
	if st.RawBody != nil && (len(st.Body) > 0 || st.PadTo > 0) {
		return fmt.Errorf("step %q: rawBody goes alone (no body, no padTo)", st.Name)
	}
	if len(st.Parallel) > 0 {
		if nested || st.Method != "" || st.Store || st.Replays || st.Changes || len(st.Processes)+len(st.Alive) > 0 {
			return fmt.Errorf("step %q: a parallel step holds only its steps (not nested)", st.Name)
		}
		names := map[string]bool{}
		for _, sub := range st.Parallel {
			if err := s.checkStep(sub, true); err != nil {
				return fmt.Errorf("step %q: %w", st.Name, err)
			}
			names[sub.Name] = true
		}
		after := map[string]string{}
		for _, sub := range st.Parallel {
			if sub.After != "" && !names[sub.After] {
				return fmt.Errorf("step %q: %q comes after %q, which is not one of its steps", st.Name, sub.Name, sub.After)
			}
			after[sub.Name] = sub.After
		}
		for _, sub := range st.Parallel {
			// A chain of "after" longer than the steps is a cycle.
			n, name := 0, sub.Name
			for ; name != "" && n <= len(st.Parallel); n++ {
				name = after[name]
			}
			if name != "" {
				return fmt.Errorf("step %q: its steps wait for each other in a cycle", st.Name)
			}
		}
	}
	if st.After != "" && !nested {
		return fmt.Errorf("step %q: after is for the steps of a parallel step", st.Name)
	}
	for _, name := range st.Release {
		if sv, ok := s.Servers[name]; !ok || len(sv.Holds) == 0 {
			return fmt.Errorf("step %q: release: %q is not a replay of this scenario that holds requests", st.Name, name)
		}
	}
	if nested && (st.Replays || st.Changes) {
		return fmt.Errorf("step %q: replays and changes are not for parallel steps", st.Name)
	}
	for _, name := range st.Alive {
		if slices.Contains(st.Processes, name) {
			return fmt.Errorf("step %q: %q is in processes and alive: name it in one", st.Name, name)
		}
	}
	if st.Settle != "" {
		if d, err := time.ParseDuration(st.Settle); err != nil || d <= 0 || len(st.Processes)+len(st.Alive) == 0 {
			return fmt.Errorf("step %q: settle %q: want a positive duration, with processes or alive", st.Name, st.Settle)
		}
	}
	for path := range st.Masks {
		if _, err := SplitPath(path); err != nil {
			return fmt.Errorf("step %q: mask %q: %w", st.Name, path, err)
		}
	}
	for name := range st.WaitStarted {
		if sv, ok := s.Servers[name]; !ok || !sv.Stdio {
			return fmt.Errorf("step %q: waitStarted: %q is not a stdio replay of this scenario", st.Name, name)
		}
	}
	for name := range st.WaitReceived {
		if sv, ok := s.Servers[name]; !ok || sv.Replay == "" {
			return fmt.Errorf("step %q: waitReceived: %q is not a replay of this scenario", st.Name, name)
		}
	}
	return nil
}

// loadDir decodes every *.json of dir that keep accepts, strictly, names
// each value after its file (without ".json"), checks it, and returns them
// sorted by name. Errors name the file.
func loadDir[T any](fsys fs.FS, dir string, keep func(string) bool, check func(*T, string) error) ([]*T, error) {
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
		v := new(T)
		if err := strictjson.Decode(p, "document", data, v); err != nil {
			return nil, err
		}
		if err := check(v, strings.TrimSuffix(e.Name(), ".json")); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// Timed tells whether s sets a time scale.
func (s *Scenario) Timed() bool {
	_, ok := s.Env[impl.TimeScaleVar]
	return ok
}
