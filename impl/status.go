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

// wantsSession tells whether a connection is attempted for a server (P16):
// enabled and with a transport. Status never validates (C3 is for saves).
func wantsSession(cfg MCPServerConfig) bool {
	return cfg.Enabled && cfg.Transport() != ""
}

// ensureAll connects every server that wants a session, all in parallel,
// and returns each one's entry (P16: total ≈ the slowest). A server whose
// wait ended without an entry (the pool closing, ctx done) maps to the
// reason.
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
// connect the enabled ones in parallel. No server gives a nil list (the
// JSON null of the Go pool).
func (p *Pool) Status(ctx context.Context) []ServerStatus {
	cfg := p.store.Load()
	results := p.ensureAll(ctx, cfg)
	var out []ServerStatus
	for _, name := range sortedNames(cfg) {
		c := cfg[name]
		st := ServerStatus{
			Name: name, Transport: c.Transport(), Enabled: c.Enabled,
			Tools: []string{}, Disabled: append([]string{}, c.DisabledTools...),
			Command: c.Command, Args: c.Args, Env: c.Env, URL: c.URL, Headers: c.Headers,
		}
		if r, ok := results[name]; ok {
			r.fill(&st)
		}
		out = append(out, st)
	}
	return out
}

// fill sets what an attempt shows: connected when it has a session (its
// first tools/list may have failed), and its error.
func (r result) fill(st *ServerStatus) {
	if r.err != nil {
		st.Error = r.err.Error()
		return
	}
	if r.e.session != nil {
		st.Connected = true
		for _, t := range r.e.tools {
			st.Tools = append(st.Tools, t.Name)
		}
	}
	if r.e.err != nil {
		st.Error = r.e.err.Error()
	}
}
