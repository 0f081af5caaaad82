package impl

import (
	"context"
	"errors"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Texts of failed calls (user-visible behaviour).
const (
	UnknownToolPrefix = "[erreur] outil MCP inconnu ou serveur non connecté: " // P9
	CallErrorPrefix   = "[erreur MCP] "                                        // P10
)

// CallResult is a call's outcome as the façade returns it.
type CallResult struct {
	Output string `json:"output"`
	Label  string `json:"label"`
}

// Call runs the tool behind an exposed name and returns what the model
// reads. contextWindow sets the output cap (P12).
func (p *Pool) Call(ctx context.Context, exposed string, args map[string]any, contextWindow int) CallResult {
	label := CallLabel(args)
	out := func(s string) CallResult { return CallResult{Output: s, Label: label} }

	cfg, err := p.config()
	if err != nil {
		return out(CallErrorPrefix + err.Error())
	}
	server, tool, ok := p.resolve(ctx, cfg, exposed)
	if !ok {
		return out(UnknownToolPrefix + exposed) // P9
	}

	ctx, cancel := context.WithTimeout(ctx, p.callTimeout()) // P10: bounded
	defer cancel()

	res, err := p.callOnce(ctx, server, cfg[server], tool, args)
	if err != nil {
		// P10: invalidate, reconnect once if still configured and enabled,
		// retry once.
		p.Invalidate(server)
		if now, cerr := p.config(); cerr == nil {
			if c, ok := now[server]; ok && c.Enabled {
				res, err = p.callOnce(ctx, server, c, tool, args)
			}
		}
	}
	if err != nil {
		return out(CallErrorPrefix + err.Error())
	}
	return out(CallOutput(res, contextWindow))
}

// resolve finds the configured server and tool behind an exposed name,
// among enabled servers with a live (or now opened) session and their
// announced tools.
func (p *Pool) resolve(ctx context.Context, cfg map[string]MCPServerConfig, exposed string) (server, tool string, ok bool) {
	var candidates []string
	for _, name := range sortedNames(cfg) {
		if wantsSession(cfg[name]) {
			candidates = append(candidates, name)
		}
	}
	server, ok = OriginServer(exposed, candidates)
	if !ok {
		return "", "", false
	}
	e, err := p.session(ctx, server, cfg[server])
	if err != nil {
		return "", "", false
	}
	c := cfg[server]
	for _, t := range e.tools {
		if !c.toolHidden(t.Name) && ExposedName(server, t.Name) == exposed {
			return server, t.Name, true
		}
	}
	return "", "", false
}

func (p *Pool) callOnce(ctx context.Context, server string, cfg MCPServerConfig, tool string, args map[string]any) (*mcp.CallToolResult, error) {
	e, err := p.session(ctx, server, cfg)
	if err != nil {
		return nil, err
	}
	if args == nil {
		args = map[string]any{}
	}
	res, err := e.session.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err == nil && res == nil {
		err = errors.New("réponse vide")
	}
	return res, err
}
