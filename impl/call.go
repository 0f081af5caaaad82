package impl

import (
	"context"
	"errors"
	"fmt"

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
	out := func(s string) CallResult { return CallResult{Output: s, Label: CallLabel(args)} }
	ref, ok := p.lookup(exposed) // P7: connected servers only; a call connects nothing
	if !ok {
		return out(UnknownToolPrefix + exposed) // P9
	}
	res, err := p.callOnce(ctx, ref, args)
	if err != nil {
		res, err = p.retry(ctx, ref, args, err)
	}
	if err != nil {
		return out(CallErrorPrefix + err.Error())
	}
	return out(CallOutput(res, contextWindow))
}

// retry implements P10 after a failed call: only when the server is still
// configured and enabled, its session is invalidated, a new one opened and
// the call made once more; otherwise the first failure stands.
func (p *Pool) retry(ctx context.Context, ref toolRef, args map[string]any, failure error) (*mcp.CallToolResult, error) {
	c, ok := p.store.Load()[ref.server]
	if !ok || !c.Enabled {
		return nil, failure
	}
	p.Invalidate(ref.server)
	if _, err := p.session(ctx, ref.server, c); err != nil {
		return nil, err
	}
	return p.callOnce(ctx, ref, args)
}

// callOnce makes one call on the server's session as it is now, bounded by
// the call timeout (P10: each attempt has its own bound).
func (p *Pool) callOnce(ctx context.Context, ref toolRef, args map[string]any) (*mcp.CallToolResult, error) {
	e := p.connected(ref.server)
	if e == nil {
		return nil, fmt.Errorf("serveur %s non connecté", ref.server) // P10
	}
	ctx, cancel := context.WithTimeout(ctx, p.callTimeout())
	defer cancel()
	res, err := e.session.CallTool(ctx, &mcp.CallToolParams{Name: ref.tool, Arguments: args})
	if err == nil && res == nil {
		err = errors.New("réponse vide")
	}
	return res, p.notFound(err)
}
