// Package impl is the reference MCP client pool: configuration and its bbolt
// store, the embedded catalog, the pool of go-sdk sessions, the pure
// functions that shape what the model sees, and the HTTP contract server.
//
// Each rule of the reference (C1…C8, P1…P17, docs/rules.md) is implemented in
// one place, marked by a comment naming the rule.
package impl

import (
	"encoding/json"
	"errors"
	"strings"
)

// MCPServerConfig is the stored configuration of one MCP server.
type MCPServerConfig struct {
	Command       string            `json:"command,omitempty"`
	Args          []string          `json:"args,omitempty"`
	Env           map[string]string `json:"env,omitempty"`
	URL           string            `json:"url,omitempty"`
	Headers       map[string]string `json:"headers,omitempty"`
	Enabled       bool              `json:"enabled"`
	DisabledTools []string          `json:"disabledTools,omitempty"`
}

// UnmarshalJSON implements C1: enabled is true when the stored JSON has no
// "enabled" key (matched exactly; a null value is a key: false). The other
// fields decode as encoding/json decodes them.
func (c *MCPServerConfig) UnmarshalJSON(data []byte) error {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(data, &keys); err != nil {
		return err
	}
	type plain MCPServerConfig
	var p plain
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	if _, ok := keys["enabled"]; !ok {
		p.Enabled = true // C1
	}
	*c = MCPServerConfig(p)
	return nil
}

// Transport kinds.
const (
	TransportStdio = "stdio"
	TransportHTTP  = "http"
)

// Transport implements C2: a trimmed command means stdio, else a trimmed url
// means http, else no transport.
func (c MCPServerConfig) Transport() string {
	switch {
	case strings.TrimSpace(c.Command) != "":
		return TransportStdio
	case strings.TrimSpace(c.URL) != "":
		return TransportHTTP
	}
	return ""
}

// Validation errors (C3). The texts are user-visible behaviour.
var (
	ErrBothTransports = errors.New("un serveur MCP ne peut avoir à la fois 'command' (stdio) et 'url' (http)")
	ErrNoTransport    = errors.New("un serveur MCP doit avoir soit 'command' (stdio) soit 'url' (http)")
)

// Validate implements C3.
func (c MCPServerConfig) Validate() error {
	hasCmd := strings.TrimSpace(c.Command) != ""
	hasURL := strings.TrimSpace(c.URL) != ""
	switch {
	case hasCmd && hasURL:
		return ErrBothTransports
	case !hasCmd && !hasURL:
		return ErrNoTransport
	}
	return nil
}

// toolHidden reports whether a tool is listed in disabledTools.
func (c MCPServerConfig) toolHidden(tool string) bool {
	for _, t := range c.DisabledTools {
		if t == tool {
			return true
		}
	}
	return false
}
