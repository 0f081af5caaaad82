package suite

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// Observation is what one step saw.
type Observation struct {
	Step      string                       `json:"step"`
	Status    int                          `json:"status,omitempty"`
	Body      any                          `json:"body,omitempty"`
	Store     any                          `json:"store,omitempty"`
	Replays   map[string]ReplayObservation `json:"replays,omitempty"`
	Processes map[string]ProcessCount      `json:"processes,omitempty"`
}

// Config is what a run needs besides the scenarios.
type Config struct {
	Target Target
	// Store is the target's store contract; nil means BoltStore.
	Store Store
	// Vars are given to the target's environment.
	Vars map[string]string
	// Harness is the command line that runs this harness (its replay
	// subcommand serves stdio fixtures), e.g. [/usr/bin/mcpparity].
	Harness []string
	// Mutations are the config mutations (step "mutations").
	Mutations []*Mutation
	// RequestTimeout bounds one request to the target; 0 means 60 s.
	RequestTimeout time.Duration
}

// RunScenario runs one scenario on a fresh target and returns its
// normalized observations. An error means the harness or the target could
// not run (not a divergence).
func RunScenario(ctx context.Context, cfg Config, s *Scenario) (obs []Observation, expects []*Observation, logs string, err error) {
	tmp, err := os.MkdirTemp("", "mcpparity-"+s.Name+"-")
	if err != nil {
		return nil, nil, "", err
	}
	defer os.RemoveAll(tmp)
	reports := filepath.Join(tmp, "reports")
	env := Env{State: filepath.Join(tmp, "state"), Workspace: filepath.Join(tmp, "workspace"), Vars: map[string]string{}, Shared: []string{reports}}
	for _, d := range []string{env.State, env.Workspace, reports} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, nil, "", err
		}
	}
	srv, err := startServers(s, cfg.Harness, env.Workspace, reports)
	if err != nil {
		return nil, nil, "", err
	}
	defer srv.close()

	for _, l := range s.Launchers {
		if err := makeLauncher(env.Workspace, l, cfg.Harness[0]); err != nil {
			return nil, nil, "", err
		}
	}
	for k, v := range cfg.Vars {
		env.Vars[k] = v
	}
	for k, v := range s.Env {
		env.Vars[k] = env.expand(srv.expand(v))
	}
	store := cfg.Store
	if store == nil {
		store = BoltStore{}
	}
	if len(s.Seed) > 0 {
		seed, err := srv.expandJSON(env, s.Seed)
		if err != nil {
			return nil, nil, "", fmt.Errorf("seed: %w", err)
		}
		if err := store.Seed(ctx, env, seed); err != nil {
			return nil, nil, "", fmt.Errorf("seed: %w", err)
		}
	}
	if env.Addr, err = FreeAddr(); err != nil {
		return nil, nil, "", err
	}
	inst, err := cfg.Target.Start(ctx, env)
	if err != nil {
		return nil, nil, "", err
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			sctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			_ = inst.Stop(sctx)
		}
	}
	defer stop()

	r := &stepRunner{cfg: cfg, env: env, srv: srv, inst: inst, store: store, client: &http.Client{}}
	for _, st := range s.Steps {
		if st.Mutations {
			for _, m := range cfg.Mutations {
				ms := m.Step()
				o, err := r.step(ctx, ms)
				if err != nil {
					return nil, nil, inst.Logs(), err
				}
				obs = append(obs, o)
				expects = append(expects, ms.Expect)
			}
			continue
		}
		if st.Replays {
			stop() // stdio replays write their reports when their process ends
		}
		o, err := r.step(ctx, st)
		if err != nil {
			return nil, nil, inst.Logs(), err
		}
		obs = append(obs, o)
		expects = append(expects, st.Expect)
	}
	logs = inst.Logs()
	stop()
	norm := newNormalizer(env, inst.URL(), srv, cfg.Harness)
	for i := range obs {
		if expects[i] != nil {
			if err := norm.apply(expects[i]); err != nil {
				return nil, nil, logs, err
			}
		}
		if err := norm.apply(&obs[i]); err != nil {
			return nil, nil, logs, err
		}
	}
	return obs, expects, logs, nil
}

type stepRunner struct {
	cfg    Config
	env    Env
	srv    *running
	inst   Instance
	store  Store
	client *http.Client
}

func (r *stepRunner) step(ctx context.Context, st Step) (Observation, error) {
	o := Observation{Step: st.Name}
	if len(st.WaitStarted) > 0 {
		if err := r.srv.waitStarted(ctx, st.WaitStarted); err != nil {
			return o, fmt.Errorf("step %s: %w", st.Name, err)
		}
	}
	if st.Method != "" {
		body, err := r.srv.expandJSON(r.env, st.Body)
		if err != nil {
			return o, fmt.Errorf("step %s: body: %w", st.Name, err)
		}
		status, got, err := r.request(ctx, st.Method, st.Path, body)
		if err != nil {
			return o, fmt.Errorf("step %s: %w", st.Name, err)
		}
		o.Status, o.Body = status, got
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
	if len(st.Processes) > 0 {
		procs, err := r.srv.settle(ctx, st.Processes)
		if err != nil {
			return o, fmt.Errorf("step %s: %w", st.Name, err)
		}
		o.Processes = procs
	}
	if st.Replays {
		reps, err := r.srv.observeReplays()
		if err != nil {
			return o, fmt.Errorf("step %s: %w", st.Name, err)
		}
		o.Replays = reps
	}
	return o, nil
}

// request sends one request to the target. A body that is not JSON is
// observed as a string (a divergence, not a harness error).
func (r *stepRunner) request(ctx context.Context, method, path string, body []byte) (int, any, error) {
	timeout := r.cfg.RequestTimeout
	if timeout <= 0 {
		timeout = 60 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, r.inst.URL()+path, rd)
	if err != nil {
		return 0, nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := r.client.Do(req)
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return 0, nil, fmt.Errorf("%s %s: reading the answer: %w", method, path, err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return resp.StatusCode, "non-JSON answer: " + string(raw), nil
	}
	return resp.StatusCode, v, nil
}
