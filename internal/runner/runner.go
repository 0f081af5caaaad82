// Package runner runs the conformance scenarios against a target: it starts
// the servers a scenario needs (replays of the fixtures, the live SDK
// server), seeds the target's store, starts the target, drives it over the
// HTTP contract, normalizes what it observes and compares it with the golden
// observations.
package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
)

// Config is what a run needs besides the scenarios.
type Config struct {
	Target target.Target
	// Store is the target's store contract; nil means BoltStore.
	Store target.Store
	// Vars are given to the target's environment.
	Vars map[string]string
	// Era is the protocol era the target speaks (impl.Eras; "" is the
	// handshake era): given to it as impl.EraVar, and the era of the
	// golden files it is compared with.
	Era string
	// Harness is the command line that runs this harness (its replay
	// subcommand serves stdio fixtures), e.g. [/usr/bin/mcpparity].
	Harness []string
	// Changes are the config changes (a step of kind "changes").
	Changes []*scenario.Change
	// RequestTimeout bounds one request to the target; 0 means 60 s.
	RequestTimeout time.Duration
	// Parallel is the number of scenarios run at once by Check; 0 means
	// DefaultParallel.
	Parallel int
	// FailFast stops Check at the first scenario that fails.
	FailFast bool
	// NoRerun keeps the first verdict of a timed scenario that fails
	// (rerun.go).
	NoRerun bool
	// Waits bound the waits on the target (zero: the defaults).
	Waits target.Waits
}

// RunScenario runs one scenario on a fresh target and returns its
// normalized observations. An error means the harness or the target could
// not run (not a divergence): a target that misbehaves once started gives
// observations that differ, never an error.
func RunScenario(ctx context.Context, cfg Config, s *scenario.Scenario) (obs []scenario.Observation, expects []*scenario.Observation, logs string, err error) {
	tmp, err := os.MkdirTemp(scratchRoot(), "mcpparity-"+s.Name+"-")
	if err != nil {
		return nil, nil, "", err
	}
	defer os.RemoveAll(tmp)
	env, reports, err := scenarioDirs(tmp, cfg.Waits)
	if err != nil {
		return nil, nil, "", err
	}
	srv, err := startServers(s, cfg.Harness, env.Workspace, reports, cfg.Waits)
	if err != nil {
		return nil, nil, "", err
	}
	defer srv.close()
	if err := scenarioEnv(&env, cfg, s, srv); err != nil {
		return nil, nil, "", err
	}
	store := cfg.Store
	if store == nil {
		store = target.BoltStore{}
	}
	if err := seedStore(ctx, store, env, s, srv); err != nil {
		return nil, nil, "", fmt.Errorf("seed: %w", err)
	}
	addr, release, err := target.FreeAddr()
	if err != nil {
		return nil, nil, "", err
	}
	defer release()
	env.Addr = addr
	inst, err := cfg.Target.Start(ctx, env)
	if err != nil {
		return nil, nil, "", err
	}
	stop := sync.OnceFunc(func() {
		sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		_ = inst.Stop(sctx)
	})
	defer stop()
	r := &stepRunner{cfg: cfg, env: env, srv: srv, inst: inst, store: store, stop: stop}
	obs, expects, err = r.steps(ctx, s.Steps)
	logs = inst.Logs()
	if err != nil {
		return nil, nil, logs, err
	}
	stop()
	if err := ctx.Err(); err != nil {
		return nil, nil, logs, err
	}
	if err := newNormalizer(env, inst.URL(), srv, cfg.Harness).all(obs, expects); err != nil {
		return nil, nil, logs, err
	}
	return obs, expects, logs, nil
}

// scenarioDirs makes a scenario's folders under tmp: the target's state
// and workspace, the replays' reports, and the catalog the target reads.
func scenarioDirs(tmp string, w target.Waits) (env target.Env, reports string, err error) {
	reports, catalog := filepath.Join(tmp, "reports"), filepath.Join(tmp, "catalog")
	env = target.Env{State: filepath.Join(tmp, "state"), Workspace: filepath.Join(tmp, "workspace"), Catalog: filepath.Join(catalog, "catalog.json"),
		Vars: map[string]string{}, Shared: []string{reports, catalog}, Ready: w.WithDefaults().Ready}
	for _, d := range []string{env.State, env.Workspace, reports, catalog} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return env, "", err
		}
	}
	return env, reports, os.WriteFile(env.Catalog, impl.CatalogJSON(), 0o644)
}

// scenarioEnv makes the scenario's launchers and sets the target's
// environment: the run's variables, then the scenario's, expanded.
func scenarioEnv(env *target.Env, cfg Config, s *scenario.Scenario, srv *running) error {
	for _, l := range s.Launchers {
		if err := makeLauncher(env.Workspace, l, cfg.Harness[0]); err != nil {
			return err
		}
	}
	env.Hide = s.HideCommands
	for k, v := range cfg.Vars {
		env.Vars[k] = v
	}
	for k, v := range s.Env {
		env.Vars[k] = env.Expand(srv.expand(target.ExpandPath(v)))
	}
	env.Vars[impl.EraVar] = cfg.era()
	return nil
}

// era is the run's era, the handshake era when unset.
func (c Config) era() string {
	if c.Era == "" {
		return impl.EraHandshake
	}
	return c.Era
}

// seedStore writes the scenario's seed, when it has one, through the
// target's store contract: its exact text (seedText) or its JSON, expanded.
func seedStore(ctx context.Context, store target.Store, env target.Env, s *scenario.Scenario, srv *running) error {
	if len(s.Seed) == 0 && s.SeedText == "" {
		return nil
	}
	seed := []byte(srv.expandText(env, s.SeedText))
	if s.SeedText == "" {
		var err error
		if seed, err = srv.expandJSON(env, s.Seed); err != nil {
			return err
		}
	}
	return store.Seed(ctx, env, seed)
}

// steps runs a scenario's steps in order, a "changes" step as one step per
// config change; a "replays" step stops the target first (stdio replays
// write their reports when their process ends).
func (r *stepRunner) steps(ctx context.Context, steps []scenario.Step) (obs []scenario.Observation, expects []*scenario.Observation, err error) {
	for _, st := range steps {
		run := []scenario.Step{st}
		switch st.Kind {
		case scenario.KindChanges:
			run = run[:0]
			for _, m := range r.cfg.Changes {
				run = append(run, m.Step())
			}
		case scenario.KindReplays:
			r.stop()
		}
		for _, st := range run {
			o, err := r.step(ctx, st)
			if err != nil {
				return nil, nil, err
			}
			obs = append(obs, o)
			expects = append(expects, copyOf(st.Expect)) // normalized apart from its scenario
		}
	}
	return obs, expects, nil
}

// stepRunner runs the steps of one scenario against one target instance.
type stepRunner struct {
	cfg   Config
	env   target.Env
	srv   *running
	inst  target.Instance
	store target.Store
	stop  func() // stops the target, once
}

// step runs one step. An error is the harness's own (a scenario that
// cannot run); what the target failed to do is in Observation.Failures.
func (r *stepRunner) step(ctx context.Context, st scenario.Step) (scenario.Observation, error) {
	o := scenario.Observation{Step: st.Name}
	if st.Kind == scenario.KindParallel {
		return r.parallel(ctx, st)
	}
	if len(st.WaitStarted) > 0 {
		if err := r.srv.waitStarted(ctx, st.WaitStarted); err != nil {
			o.Failures = append(o.Failures, "waitStarted: "+err.Error())
		}
	}
	if len(st.WaitReceived) > 0 {
		if err := r.srv.waitReceived(ctx, st.WaitReceived); err != nil {
			o.Failures = append(o.Failures, "waitReceived: "+err.Error())
		}
	}
	for _, name := range st.Release {
		if err := r.srv.release(name); err != nil {
			return o, fmt.Errorf("step %s: release %s: %w", st.Name, name, err)
		}
	}
	if st.Kind == scenario.KindRequest {
		body, err := r.body(st)
		if err != nil {
			return o, fmt.Errorf("step %s: body: %w", st.Name, err)
		}
		var ans answer
		if st.ShortBody {
			ans = r.shortRequest(ctx, st.Method, st.Path, body)
		} else {
			ans = r.request(ctx, st.Method, st.Path, body, st.Headers)
		}
		o.Status, o.Headers, o.Body = ans.status, ans.headers, ans.body
		if ans.failure != "" {
			o.Failures = append(o.Failures, ans.failure)
		}
		loosen(&o, st.Compare)
	}
	if st.Store {
		raw, err := r.store.Dump(ctx, r.env)
		if err != nil {
			return o, fmt.Errorf("step %s: store: %w", st.Name, err)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			return o, fmt.Errorf("step %s: store is not JSON: %w", st.Name, err)
		}
		o.Store = v
	}
	if len(st.Processes)+len(st.Alive) > 0 {
		if err := r.observeProcesses(ctx, st, &o); err != nil {
			return o, fmt.Errorf("step %s: %w", st.Name, err)
		}
	}
	if st.Kind == scenario.KindReplays {
		reps, failures, err := r.srv.observeReplays(ctx)
		if err != nil {
			return o, fmt.Errorf("step %s: %w", st.Name, err)
		}
		o.Replays = reps
		o.Failures = append(o.Failures, failures...)
	}
	if err := mask(&o, st.Masks); err != nil {
		return o, fmt.Errorf("step %s: %w", st.Name, err)
	}
	return o, ctx.Err()
}

// copyOf is a shallow copy of o (nil for nil).
func copyOf(o *scenario.Observation) *scenario.Observation {
	if o == nil {
		return nil
	}
	c := *o
	return &c
}

// observeProcesses waits, at most the step's settle, until the processes
// of its stdio replays have ended, and observes their counts: started and
// alive for Processes, alive only for Alive.
func (r *stepRunner) observeProcesses(ctx context.Context, st scenario.Step, o *scenario.Observation) error {
	bound := r.srv.waits.ProcessSettle
	if st.Settle != "" {
		bound, _ = time.ParseDuration(st.Settle) // checked at load
	}
	procs, err := r.srv.settle(ctx, st.Processes, bound)
	if err != nil {
		return err
	}
	alive, err := r.srv.settle(ctx, st.Alive, bound)
	if err != nil {
		return err
	}
	if len(procs) > 0 {
		o.Processes = procs
	}
	if len(alive) > 0 {
		o.Alive = make(map[string]int, len(alive))
		for name, c := range alive {
			o.Alive[name] = c.Alive
		}
	}
	return nil
}

// parallel runs the steps of st at the same time.
func (r *stepRunner) parallel(ctx context.Context, st scenario.Step) (scenario.Observation, error) {
	o := scenario.Observation{Step: st.Name, Parallel: make([]scenario.Observation, len(st.Parallel))}
	errs := make([]error, len(st.Parallel))
	done := map[string]chan struct{}{}
	for _, sub := range st.Parallel {
		done[sub.Name] = make(chan struct{})
	}
	for i, sub := range st.Parallel {
		go func() {
			defer close(done[sub.Name])
			if sub.After != "" {
				<-done[sub.After]
			}
			o.Parallel[i], errs[i] = r.step(ctx, sub)
		}()
	}
	for _, sub := range st.Parallel {
		<-done[sub.Name]
	}
	for _, err := range errs {
		if err != nil {
			return o, fmt.Errorf("step %s: %w", st.Name, err)
		}
	}
	return o, nil
}
