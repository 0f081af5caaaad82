package impl

import (
	"errors"
	"fmt"
	"strings"
)

// Errors of configuration changes (user-visible behaviour).
var (
	ErrEmptyName    = errors.New("nom de serveur vide")                                                  // C4
	ErrReservedName = errors.New("le nom ne peut pas contenir '__' (réservé au namespacing des outils)") // C4
)

// UnknownServerError implements C5's text.
type UnknownServerError struct{ Name string }

func (e UnknownServerError) Error() string { return "serveur MCP inconnu: " + e.Name }

// SaveRequest is the body of POST /api/mcp/save.
type SaveRequest struct {
	Name    string            `json:"name"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
	// Enabled, when absent, is true (C4: a replaced server is replaced
	// whole).
	Enabled *bool `json:"enabled,omitempty"`
}

// Save implements C4: trim and check the name, trim command and url,
// validate, then add or replace the server whole (enabled as sent, true when
// absent; no hidden tools) and invalidate its session.
func (p *Pool) Save(req SaveRequest) error {
	name := strings.TrimSpace(req.Name)
	switch {
	case name == "":
		return ErrEmptyName
	case strings.Contains(name, "__"):
		return ErrReservedName
	}
	c := MCPServerConfig{
		Command: strings.TrimSpace(req.Command), Args: req.Args, Env: req.Env,
		URL: strings.TrimSpace(req.URL), Headers: req.Headers,
		Enabled: req.Enabled == nil || *req.Enabled,
	}
	if err := c.Validate(); err != nil {
		return err
	}
	return p.change(name, func(cfg map[string]MCPServerConfig) error {
		cfg[name] = c
		return nil
	})
}

// Delete removes a server (C5 when unknown).
func (p *Pool) Delete(name string) error {
	return p.change(name, func(cfg map[string]MCPServerConfig) error {
		if _, ok := cfg[name]; !ok {
			return UnknownServerError{name} // C5
		}
		delete(cfg, name)
		return nil
	})
}

// Toggle turns a server on or off (C5 when unknown).
func (p *Pool) Toggle(name string, on bool) error {
	return p.change(name, func(cfg map[string]MCPServerConfig) error {
		c, ok := cfg[name]
		if !ok {
			return UnknownServerError{name} // C5
		}
		c.Enabled = on
		cfg[name] = c
		return nil
	})
}

// SetTool implements C6: remove the tool from disabledTools, and append it
// again when turning it off (no duplicates, order kept).
func (p *Pool) SetTool(name, tool string, on bool) error {
	return p.change(name, func(cfg map[string]MCPServerConfig) error {
		c, ok := cfg[name]
		if !ok {
			return UnknownServerError{name} // C5
		}
		kept := []string{}
		for _, t := range c.DisabledTools {
			if t != tool {
				kept = append(kept, t)
			}
		}
		if !on {
			kept = append(kept, tool)
		}
		c.DisabledTools = kept
		cfg[name] = c
		return nil
	})
}

// change applies fn to the stored configuration (C8: an unreadable one
// reads as no servers, and is then replaced), writes it back and
// invalidates the server's session (C7). The pool's lock serialises
// read-modify-write cycles.
func (p *Pool) change(name string, fn func(map[string]MCPServerConfig) error) error {
	p.storeMu.Lock()
	defer p.storeMu.Unlock()
	cfg := p.store.Load()
	if err := fn(cfg); err != nil {
		return err
	}
	if err := p.store.Save(cfg); err != nil {
		return fmt.Errorf("écriture de la configuration: %w", err)
	}
	p.Invalidate(name) // C7
	return nil
}
