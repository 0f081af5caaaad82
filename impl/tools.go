package impl

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// AnnouncedTool is a tool as the model sees it.
type AnnouncedTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// emptySchema replaces an empty input schema (P8).
const emptySchema = `{"type":"object","properties":{}}`

// Tools implements P8 and P14: the tools to announce, from enabled servers
// with a transport and a live session, and the prompt line.
func (p *Pool) Tools(ctx context.Context) ([]AnnouncedTool, string) {
	cfg := p.store.Load()
	results := p.ensureAll(ctx, cfg)
	tools := []AnnouncedTool{}
	for _, name := range sortedNames(cfg) {
		r, ok := results[name]
		if !ok || r.err != nil || r.e.session == nil {
			continue // P8: live sessions only
		}
		c := cfg[name]
		for _, t := range r.e.tools {
			if c.toolHidden(t.Name) {
				continue // P8: hidden tools skipped
			}
			tools = append(tools, AnnouncedTool{
				Name:        ExposedName(name, t.Name),
				Description: toolDescription(name, t.Description, t.Title),
				Parameters:  toolParameters(t.InputSchema),
			})
		}
	}
	return tools, p.promptLine()
}

// toolDescription implements P8: description, else title, prefixed with the
// server.
func toolDescription(server, description, title string) string {
	d := description
	if d == "" {
		d = title
	}
	return "[MCP: " + server + "] " + d
}

// toolParameters implements P8: the input schema as sent; an absent or null
// one, or one that is not a JSON object, becomes
// {"type":"object","properties":{}}. An empty object is kept.
func toolParameters(schema any) json.RawMessage {
	raw, err := json.Marshal(schema)
	if err != nil || !isObject(raw) {
		return json.RawMessage(emptySchema)
	}
	return raw
}

func isObject(raw []byte) bool {
	var m map[string]any
	return json.Unmarshal(raw, &m) == nil && m != nil
}

// promptLine implements P14 over the pool as it is: every live session with
// at least one tool, counting all its tools (hidden ones too). It connects
// nothing.
func (p *Pool) promptLine() string {
	counts := map[string]int{}
	p.mu.Lock()
	for name, e := range p.sessions {
		if isSettled(e) && e.session != nil && len(e.tools) > 0 {
			counts[name] = len(e.tools)
		}
	}
	p.mu.Unlock()
	return PromptLine(counts)
}

// PromptLine implements P14's text: "name (count)" for each server with a
// count above zero, the formatted strings sorted (byte order), joined by
// ", "; "" when there is none.
func PromptLine(counts map[string]int) string {
	var parts []string
	for n, c := range counts {
		if c > 0 {
			parts = append(parts, fmt.Sprintf("%s (%d)", n, c))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	sort.Strings(parts)
	return "\n\nMCP servers connected (their tools are prefixed mcp__<server>__<tool>): " + strings.Join(parts, ", ") + "."
}
