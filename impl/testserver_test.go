package impl

// The go-sdk MCP servers the tests talk to: served in process over
// Streamable HTTP, or re-executed from the test binary as a stdio server
// (testServerMain). They use nothing of impl.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Environment of a re-executed stdio server.
const (
	// envServerKind selects the helper: "mcp" (the MCP server) or "sleep" (a
	// process that only waits, the grandchild of group-kill tests).
	envServerKind = "MCPPARITY_TEST_SERVER"
	// envServerStarts names a file the server appends its pid to when it starts.
	envServerStarts = "MCPPARITY_TEST_STARTS"
	// envServerChildren names a file the server appends its grandchild's pid to;
	// when set, the server spawns a "sleep" helper in its own process group.
	envServerChildren = "MCPPARITY_TEST_CHILDREN"
	// envServerBlockInit, when "1", makes initialize wait until its request ends.
	envServerBlockInit = "MCPPARITY_TEST_BLOCK_INIT"
	// envServerRelease names a file: initialize waits until it exists.
	envServerRelease = "MCPPARITY_TEST_RELEASE"
	// envServerMarker names a file used by die_once (first call dies) and by
	// die_on_release (created when the call has arrived).
	envServerMarker = "MCPPARITY_TEST_MARKER"
	// envServerPageSize sets mcp.ServerOptions.PageSize.
	envServerPageSize = "MCPPARITY_TEST_PAGE_SIZE"
	// envServerLinger, when "1", keeps the server alive once its stdin has ended:
	// only the end of its process group stops it.
	envServerLinger = "MCPPARITY_TEST_LINGER"
)

// testServerOptions shape a server.
type testServerOptions struct {
	// PageSize is mcp.ServerOptions.PageSize (0: the SDK's default).
	PageSize int
	// Stdio adds the tools that only make sense in a process of their own
	// (die, die_once, env).
	Stdio bool
	// Marker is the file of die_once and die_on_release.
	Marker string
	// BeforeInitialize, if set, runs before initialize is handled; an
	// error fails the initialize request.
	BeforeInitialize func(ctx context.Context) error
	// BeforeListTools, if set, runs before tools/list is handled; an error
	// fails the tools/list request.
	BeforeListTools func(ctx context.Context) error
	// Schemas replace, in tools/list answers, the input schema of the
	// tools they name (a value the SDK would refuse to register: {}, a
	// list, nil).
	Schemas map[string]any
	// Stop, when closed, ends the calls of block (an in-process server's
	// handler is not cancelled when its client gives up, and a session
	// does not close while a handler runs).
	Stop <-chan struct{}
	// Extra tools are added as given (name → result).
	Extra map[string]*mcp.CallToolResult
}

// Schemas of the tools, as the client sees them.
var (
	schemaText  = json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]}`)
	schemaEmpty = json.RawMessage(`{"type":"object"}`)
)

// releaseSuffix, added to the marker file's name, is the file die_on_release
// waits for.
const releaseSuffix = ".release"

// Names and descriptions of the common tools.
const (
	echoDescription = "Echo the text back."
	titledTitle     = "Only a title"
)

func toolText(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func toolArgs(req *mcp.CallToolRequest) map[string]any {
	m := map[string]any{}
	if req.Params != nil && len(req.Params.Arguments) > 0 {
		_ = json.Unmarshal(req.Params.Arguments, &m)
	}
	return m
}

// newTestServer returns a server with the common tools:
//   - echo: returns its "text" argument;
//   - titled: a tool with a title and no description, returns "titled";
//   - ping: pings the client, then returns "pong";
//   - fail: a tool error (isError) with the text "boom";
//   - rpcfail: always a JSON-RPC error;
//   - block: waits until the call is cancelled or Stop closes;
//   - block_once: blocks as block does the first time, then answers "second";
//   - roots: the client's answer to roots/list, as JSON;
//
// and, with Stdio: env (returns the env var named by "name"), die (exits
// during the call), die_once (exits during its first call, then answers
// "survived"), die_on_release (creates Marker, waits until Marker+releaseSuffix
// exists, then exits during the call).
func newTestServer(o testServerOptions) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "mcpparity-testserver", Version: "1.0.0"},
		&mcp.ServerOptions{PageSize: o.PageSize})
	s.AddReceivingMiddleware(o.middleware)
	s.AddTool(&mcp.Tool{Name: "echo", Description: echoDescription, InputSchema: schemaText},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			t, _ := toolArgs(req)["text"].(string)
			return toolText(t), nil
		})
	s.AddTool(&mcp.Tool{Name: "titled", Title: titledTitle, InputSchema: schemaEmpty},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return toolText("titled"), nil
		})
	s.AddTool(&mcp.Tool{Name: "ping", Description: "Pings the client first.", InputSchema: schemaEmpty},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := req.Session.Ping(ctx, nil); err != nil {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "ping: " + err.Error()}}}, nil
			}
			return toolText("pong"), nil
		})
	s.AddTool(&mcp.Tool{Name: "fail", Description: "A tool error.", InputSchema: schemaEmpty},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "boom"}}}, nil
		})
	s.AddTool(&mcp.Tool{Name: "rpcfail", Description: "A JSON-RPC error.", InputSchema: schemaEmpty},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("rpcfail always fails")
		})
	s.AddTool(&mcp.Tool{Name: "block", Description: "Waits until cancelled.", InputSchema: schemaEmpty},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-o.Stop:
				return nil, errors.New("server stopping")
			}
		})
	addSessionTools(s, o)
	for name, res := range o.Extra {
		s.AddTool(&mcp.Tool{Name: name, Description: "Extra tool " + name, InputSchema: schemaEmpty},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) { return res, nil })
	}
	if o.Stdio {
		addStdioTools(s, o)
	}
	return s
}

// addSessionTools adds the tools that talk to the client or count their
// calls: block_once and roots.
func addSessionTools(s *mcp.Server, o testServerOptions) {
	var blocked atomic.Bool
	s.AddTool(&mcp.Tool{Name: "block_once", Description: "Waits until cancelled the first time, then answers.", InputSchema: schemaEmpty},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if blocked.Swap(true) {
				return toolText("second"), nil
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-o.Stop:
				return nil, errors.New("server stopping")
			}
		})
	s.AddTool(&mcp.Tool{Name: "roots", Description: "Lists the client's roots.", InputSchema: schemaEmpty},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			res, err := req.Session.ListRoots(ctx, nil)
			if err != nil {
				return nil, err
			}
			raw, err := json.Marshal(res)
			if err != nil {
				return nil, err
			}
			return toolText(string(raw)), nil
		})
}

// middleware runs the hooks of o before initialize and tools/list, and
// rewrites the schemas of tools/list answers.
func (o testServerOptions) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		hook := map[string]func(context.Context) error{"initialize": o.BeforeInitialize, "tools/list": o.BeforeListTools}[method]
		if hook != nil {
			if err := o.runHook(ctx, hook); err != nil {
				return nil, err
			}
		}
		res, err := next(ctx, method, req)
		if lt, ok := res.(*mcp.ListToolsResult); ok && err == nil && len(o.Schemas) > 0 {
			out := *lt
			out.Tools = nil
			for _, t := range lt.Tools {
				c := *t
				if schema, ok := o.Schemas[c.Name]; ok {
					c.InputSchema = schema
				}
				out.Tools = append(out.Tools, &c)
			}
			return &out, nil
		}
		return res, err
	}
}

// runHook runs hook with a context that also ends when Stop closes: an
// in-process server's handler is not cancelled when its client gives up,
// and its session does not close while the handler runs.
func (o testServerOptions) runHook(ctx context.Context, hook func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if o.Stop != nil {
		go func() {
			select {
			case <-o.Stop:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	return hook(ctx)
}

// addStdioTools adds the tools of a server in a process of its own.
func addStdioTools(s *mcp.Server, o testServerOptions) {
	s.AddTool(&mcp.Tool{Name: "env", Description: "Returns an env var.", InputSchema: schemaEmpty},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			n, _ := toolArgs(req)["name"].(string)
			return toolText(os.Getenv(n)), nil
		})
	s.AddTool(&mcp.Tool{Name: "die", Description: "Exits during the call.", InputSchema: schemaEmpty},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(&mcp.Tool{Name: "die_once", Description: "Exits during its first call.", InputSchema: schemaEmpty},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			f, err := os.OpenFile(o.Marker, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
			if err == nil {
				_ = f.Close()
				os.Exit(3) // first call: the marker did not exist
			}
			return toolText("survived"), nil
		})
	s.AddTool(&mcp.Tool{Name: "die_on_release", Description: "Marks its arrival, waits, then exits.", InputSchema: schemaEmpty},
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if err := os.WriteFile(o.Marker, []byte("in call"), 0o600); err != nil {
				return nil, err
			}
			if err := waitFile(ctx, o.Marker+releaseSuffix); err != nil {
				return nil, err
			}
			os.Exit(3)
			return nil, nil
		})
}

// waitFile waits until path exists or ctx ends.
func waitFile(ctx context.Context, path string) error {
	t := time.NewTicker(2 * time.Millisecond)
	defer t.Stop()
	for {
		if _, err := os.Stat(path); err == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// appendPid appends pid and a newline to path (O_APPEND: one write per line).
func appendPid(path string, pid int) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprintf(f, "%d\n", pid); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}
