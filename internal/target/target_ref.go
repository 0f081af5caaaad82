package target

import (
	"context"

	"github.com/mcpparity/mcpparity/impl"
)

// RefTarget is the embedded reference pool, served in process.
type RefTarget struct{}

func (RefTarget) Name() string { return "ref" }

func (RefTarget) Start(ctx context.Context, env Env) (Instance, error) {
	opts, err := impl.EnvOptions(func(k string) string { return env.Vars[k] })
	if err != nil {
		return nil, err
	}
	opts.Workspace, opts.BaseEnv = env.Workspace, baseEnv(env.Vars)
	if path, ok := env.Vars["PATH"]; ok {
		opts.LookPath = func(name string) (string, error) { return lookPathIn(path, name, env.Hide, env.launchers()) }
	}
	srv, err := impl.Start(env.Addr, env.State, opts)
	if err != nil {
		return nil, err
	}
	return refInstance{srv}, nil
}

type refInstance struct{ srv *impl.Server }

func (r refInstance) URL() string { return r.srv.URL() }

// Stop closes at once: the harness stops a target once its requests are
// answered (a graceful shutdown would wait for connections to go idle).
func (r refInstance) Stop(context.Context) error { return r.srv.Close() }
func (r refInstance) Logs() string               { return "" }
