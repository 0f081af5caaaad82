package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// modernClient is the clientInfo of the client of the 2026-07-28
// revision a recording also holds.
var modernClient = &mcp.Implementation{Name: "mcpparity-modern-client", Version: "1.0.0"}

// driveModern runs a client of the 2026-07-28 revision through t: the
// go-sdk's own, with its default negotiation (server/discover first, the
// handshake when the server refuses it). It lists the tools and makes
// each call of the script, whose outcomes it checks as the pool's are.
func driveModern(ctx context.Context, src source, t mcp.Transport, calls []Call) error {
	ctx, cancel := context.WithTimeout(ctx, src.timeout)
	defer cancel()
	cs, err := mcp.NewClient(modernClient, nil).Connect(ctx, t, nil)
	if err != nil {
		return fmt.Errorf("the client of the %s revision could not connect: %w", fixtures.ModernVersion, err)
	}
	err = modernCalls(ctx, cs, calls)
	if cerr := cs.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("the client of the %s revision: closing: %w", fixtures.ModernVersion, cerr)
	}
	return err
}

func modernCalls(ctx context.Context, cs *mcp.ClientSession, calls []Call) error {
	if _, err := cs.ListTools(ctx, nil); err != nil {
		return fmt.Errorf("the client of the %s revision: tools/list: %w", fixtures.ModernVersion, err)
	}
	for _, c := range calls {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: orEmpty(c.Args)})
		got := expectResult
		var rpcErr *jsonrpc.Error
		switch {
		case errors.As(err, &rpcErr):
			got = expectRPCError
		case err != nil:
			return fmt.Errorf("the client of the %s revision: call %s: %w", fixtures.ModernVersion, c.Tool, err)
		case res.IsError:
			got = expectToolError
		}
		if !c.accepts(got) {
			return fmt.Errorf("the client of the %s revision: call %s: expected %s, got %s", fixtures.ModernVersion, c.Tool, c.expected(), got)
		}
	}
	return nil
}

// refusedHandshake reports whether the server refused the handshake and
// served a client of the 2026-07-28 revision: an initialize answered with
// an HTTP status of 400 or more or a JSON-RPC error, and a version agreed
// through server/discover.
func refusedHandshake(fx *fixtures.Fixture) bool {
	if fx.Manifest.DiscoverVersion == "" {
		return false
	}
	for _, ex := range fx.HTTP {
		if method(ex.Request.Body) == "initialize" && (ex.Response.Status >= http.StatusBadRequest || ex.Response.Refused()) {
			return true
		}
	}
	pending := map[string]bool{}
	for _, l := range fx.Stdio {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(l.Message, &m) != nil {
			continue
		}
		switch {
		case l.Dir == fixtures.DirSend && m.Method == "initialize":
			pending[string(m.ID)] = true
		case l.Dir == fixtures.DirRecv && m.Method == "" && pending[string(m.ID)] && len(m.Error) > 0:
			return true
		}
	}
	return false
}

// method is the JSON-RPC method of a body ("" for none).
func method(body json.RawMessage) string {
	var m struct {
		Method string `json:"method"`
	}
	_ = json.Unmarshal(body, &m)
	return m.Method
}
