package impl

import (
	"context"
	"sync"
)

// ServerStatus is one server's line of GET /api/mcp.
type ServerStatus struct {
	Name      string            `json:"name"`
	Transport string            `json:"transport"`
	Enabled   bool              `json:"enabled"`
	Connected bool              `json:"connected"`
	Error     string            `json:"error,omitempty"`
	Tools     []string          `json:"tools"`
	Disabled  []string          `json:"disabled"`
	Command   string            `json:"command,omitempty"`
	Args      []string          `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	URL       string            `json:"url,omitempty"`
	Headers   map[string]string `json:"headers,omitempty"`
}

// wantsSession tells whether a connection is attempted for a server: enabled
// and with a transport (P16). A config that fails validation is not tried.
func wantsSession(cfg MCPServerConfig) bool {
	return cfg.Enabled && cfg.Transport() != "" && cfg.Validate() == nil
}

// ensureAll connects every server that wants a session, all in parallel,
// and returns each attempt's outcome (P16: total ≈ the slowest).
func (p *Pool) ensureAll(ctx context.Context, cfg map[string]MCPServerConfig) map[string]result {
	var mu sync.Mutex
	out := map[string]result{}
	var wg sync.WaitGroup
	for name, c := range cfg {
		if !wantsSession(c) {
			continue
		}
		wg.Go(func() {
			e, err := p.session(ctx, name, c)
			mu.Lock()
			out[name] = result{e, err}
			mu.Unlock()
		})
	}
	wg.Wait()
	return out
}

type result struct {
	e   *entry
	err error
}

// Status implements P16: every configured server, sorted, after trying to
// connect the enabled ones in parallel.
func (p *Pool) Status(ctx context.Context) ([]ServerStatus, error) {
	cfg, err := p.config()
	if err != nil {
		return nil, err
	}
	results := p.ensureAll(ctx, cfg)
	out := make([]ServerStatus, 0, len(cfg))
	for _, name := range sortedNames(cfg) {
		c := cfg[name]
		st := ServerStatus{
			Name: name, Transport: c.Transport(), Enabled: c.Enabled,
			Tools: []string{}, Disabled: append([]string{}, c.DisabledTools...),
			Command: c.Command, Args: c.Args, Env: c.Env, URL: c.URL, Headers: c.Headers,
		}
		if err := c.Validate(); err != nil {
			st.Error = err.Error()
		}
		if r, ok := results[name]; ok {
			if r.err != nil {
				st.Error = r.err.Error()
			} else {
				st.Connected = true
				for _, t := range r.e.tools {
					st.Tools = append(st.Tools, t.Name)
				}
			}
		}
		out = append(out, st)
	}
	return out, nil
}
