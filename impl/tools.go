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
func (p *Pool) Tools(ctx context.Context) ([]AnnouncedTool, string, error) {
	cfg, err := p.config()
	if err != nil {
		return nil, "", err
	}
	results := p.ensureAll(ctx, cfg)
	tools := []AnnouncedTool{}
	counts := map[string]int{}
	for _, name := range sortedNames(cfg) {
		r, ok := results[name]
		if !ok || r.err != nil {
			continue // P8: live sessions only
		}
		c := cfg[name]
		n := 0
		for _, t := range r.e.tools {
			if c.toolHidden(t.Name) {
				continue // P8: hidden tools skipped
			}
			tools = append(tools, AnnouncedTool{
				Name:        ExposedName(name, t.Name),
				Description: toolDescription(name, t.Description, t.Title),
				Parameters:  toolParameters(t.InputSchema),
			})
			n++
		}
		counts[name] = n
	}
	return tools, PromptLine(counts), nil
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

// toolParameters implements P8: the input schema; an empty one becomes
// {"type":"object","properties":{}}.
func toolParameters(schema any) json.RawMessage {
	raw, err := json.Marshal(schema)
	if err != nil || isEmptySchema(raw) {
		return json.RawMessage(emptySchema)
	}
	return raw
}

func isEmptySchema(raw []byte) bool {
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return true // null or not an object
	}
	return len(m) == 0
}

// PromptLine implements P14: connected servers with at least one tool,
// "name (count)", sorted by name; "" when there is none.
func PromptLine(counts map[string]int) string {
	names := make([]string, 0, len(counts))
	for n, c := range counts {
		if c > 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s (%d)", n, counts[n]))
	}
	if len(parts) == 0 {
		return ""
	}
	return "\n\nMCP servers connected (their tools are prefixed mcp__<server>__<tool>): " + strings.Join(parts, ", ") + "."
}
