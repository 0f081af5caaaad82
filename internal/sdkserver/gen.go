package sdkserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// genName is the serverInfo name of the gen server.
const genName = "mcpparity-gen-server"

// genMaxRunes bounds the text one call of the gen server makes.
const genMaxRunes = 200000

// GenTools are the gen server's tools, in the order tools/list gives them
// (sorted): one handler under names that sanitize apart (P7.1: a run of
// unsafe characters, "_" at the ends, a letter outside ASCII, a name of a
// character beyond the BMP).
var GenTools = []string{"Gen Two!", "_under_", "gen", "éclair", "🙂"}

// genArgs are the arguments of a gen tool: they describe its result.
type genArgs struct {
	Blocks  []genBlock `json:"blocks,omitempty"`
	IsError bool       `json:"isError,omitempty"`
	// Structured is the structured content as JSON text, sent as written
	// (key order, number forms): it must be a JSON object.
	Structured string `json:"structured,omitempty"`
	// RPCError, when set, is the message of a JSON-RPC error answered
	// instead of a result.
	RPCError string `json:"rpcError,omitempty"`
	// Roots, when set, asks the client for its roots (roots/list) first and
	// gives their JSON as the first text block.
	Roots bool `json:"roots,omitempty"`
	// RawResult, JSON as text, is the whole result as written, in place of
	// the others: a careless server's (P11.4–P11.6).
	RawResult string `json:"rawResult,omitempty"`
	// RawResultBefore, JSON as text, is written with RawResult as an
	// earlier result member of the same answer: the answer gives its
	// result twice (P11.6).
	RawResultBefore string `json:"rawResultBefore,omitempty"`
}

// genBlock is one content block. Type is text, image, audio,
// resource_link or resource; a text block's text is Text followed by
// Repeat times Unit.
type genBlock struct {
	Type        string           `json:"type"`
	Text        string           `json:"text,omitempty"`
	Unit        string           `json:"unit,omitempty"`
	Repeat      int              `json:"repeat,omitempty"`
	MIMEType    string           `json:"mimeType,omitempty"`
	URI         string           `json:"uri,omitempty"`
	Name        string           `json:"name,omitempty"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description,omitempty"`
	Size        *int64           `json:"size,omitempty"`
	Meta        map[string]any   `json:"meta,omitempty"`
	Annotations *mcp.Annotations `json:"annotations,omitempty"`
	// RawAnnotations, a JSON object as text, is written as the block's
	// annotations as it is (key order, keys the go-sdk does not know), in
	// place of Annotations.
	RawAnnotations string `json:"rawAnnotations,omitempty"`
	// RawMembers, a JSON object as text, has its members written into the
	// block as they are (fields its type does not have), in place of
	// annotations.
	RawMembers string `json:"rawMembers,omitempty"`
	Blob       string `json:"blob,omitempty"`
}

var genSchema = json.RawMessage(`{"type":"object","properties":{"blocks":{"type":"array"},"isError":{"type":"boolean"},"structured":{"type":"string"},"rpcError":{"type":"string"},"roots":{"type":"boolean"}}}`)

// genHandler answers what its arguments describe.
func genHandler(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var args genArgs
	if err := decodeArgs(req, &args); err != nil {
		return toolError(err.Error()), nil
	}
	if args.RPCError != "" {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: args.RPCError}
	}
	if args.RawResult != "" {
		res, err := rawResult(args.RawResult, args.RawResultBefore)
		if err != nil {
			return toolError(err.Error()), nil
		}
		return res, nil
	}
	res := &mcp.CallToolResult{Content: []mcp.Content{}, IsError: args.IsError}
	if args.Roots {
		roots, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return toolError("roots/list: " + err.Error()), nil
		}
		raw, _ := json.Marshal(roots.Roots)
		res.Content = append(res.Content, &mcp.TextContent{Text: "roots: " + string(raw)})
	}
	runes := 0
	for i, b := range args.Blocks {
		c, err := b.content(&runes)
		if err != nil {
			return toolError(fmt.Sprintf("blocks[%d]: %v", i, err)), nil
		}
		res.Content = append(res.Content, c)
	}
	if args.Structured != "" {
		raw := json.RawMessage(args.Structured)
		if !json.Valid(raw) || !strings.HasPrefix(strings.TrimSpace(args.Structured), "{") {
			return toolError("structured: not a JSON object"), nil
		}
		res.StructuredContent = raw
	}
	return res, nil
}

// content builds the block; runes counts the text made so far, bounded by
// GenMaxRunes.
func (b genBlock) content(runes *int) (mcp.Content, error) {
	var err error
	switch {
	case b.RawAnnotations != "" && b.RawMembers != "":
		err = errors.New("rawAnnotations and rawMembers both given")
	case b.RawAnnotations != "":
		b.Annotations, err = rawMarker(b.RawAnnotations, false)
	case b.RawMembers != "":
		b.Annotations, err = rawMarker(b.RawMembers, true)
	}
	if err != nil {
		return nil, err
	}
	switch b.Type {
	case "text":
		if b.Repeat < 0 {
			return nil, errors.New("negative repeat")
		}
		*runes += utf8.RuneCountInString(b.Text) + b.Repeat*utf8.RuneCountInString(b.Unit)
		if *runes > genMaxRunes {
			return nil, fmt.Errorf("more than %d runes", genMaxRunes)
		}
		return &mcp.TextContent{Text: b.Text + strings.Repeat(b.Unit, b.Repeat), Annotations: b.Annotations}, nil
	case "image":
		return &mcp.ImageContent{Data: tinyPNG, MIMEType: b.MIMEType, Annotations: b.Annotations}, nil
	case "audio":
		return &mcp.AudioContent{Data: tinyWAV(), MIMEType: b.MIMEType, Annotations: b.Annotations}, nil
	case "resource_link":
		return &mcp.ResourceLink{URI: b.URI, Name: b.Name, Title: b.Title, Description: b.Description,
			MIMEType: b.MIMEType, Size: b.Size, Meta: b.Meta, Annotations: b.Annotations}, nil
	case "resource":
		rc := &mcp.ResourceContents{URI: b.URI, MIMEType: b.MIMEType, Text: b.Text, Meta: b.Meta}
		if b.Blob != "" {
			rc.Blob = []byte(b.Blob)
		}
		return &mcp.EmbeddedResource{Resource: rc, Meta: b.Meta, Annotations: b.Annotations}, nil
	}
	return nil, fmt.Errorf("unknown block type %q", b.Type)
}

// genSchemas are the input schemas the gen server announces, by tool: its
// own, an empty one, a null one, one that is not an object (P8.4); a
// go-sdk server refuses to register the last three, so they are written
// on the wire.
var genSchemas = map[string]any{"Gen Two!": map[string]any{}, "_under_": nil, "éclair": []any{"not", "an", "object"}}

// NewGen returns the gen server: every tool answers what its arguments
// describe (GenArgs), so that a caller explores flattening, caps, tool
// errors and JSON forms with outputs of its own making.
func NewGen() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: genName, Version: version}, nil)
	descs := map[string]*mcp.Tool{
		"gen":      {Description: "Answers the result its arguments describe."},
		"Gen Two!": {Title: "Gen, titled only"},
		"_under_":  {},
		"éclair":   {Description: "Décrit <vite> & bien."},
		"🙂":        {Description: "A name beyond the BMP."},
	}
	for _, name := range GenTools {
		t := *descs[name]
		t.Name, t.InputSchema = name, genSchema
		s.AddTool(&t, genHandler)
	}
	s.AddReceivingMiddleware(rewriteSchemas(genSchemas))
	return s
}

// rewriteSchemas answers tools/list with the input schemas of schemas
// (by tool name) instead of the registered ones.
func rewriteSchemas(schemas map[string]any) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			lt, ok := res.(*mcp.ListToolsResult)
			if !ok || err != nil {
				return res, err
			}
			out := *lt
			out.Tools = nil
			for _, t := range lt.Tools {
				c := *t
				if s, ok := schemas[c.Name]; ok {
					c.InputSchema = s
				}
				out.Tools = append(out.Tools, &c)
			}
			return &out, nil
		}
	}
}

// GenHandler serves the gen server over Streamable HTTP: SSE answers, or
// single JSON bodies when jsonResponse is set.
func GenHandler(jsonResponse bool) http.Handler {
	s := NewGen()
	return expandingHandler(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{JSONResponse: jsonResponse}))
}

// emptyName is the serverInfo name of the empty server.
const emptyName = "mcpparity-empty-server"

// EmptyHandler serves a go-sdk server without tools over Streamable HTTP
// with JSON answers: its tools/list is an empty list (P14.1: a connected
// server with no tools).
func EmptyHandler() http.Handler {
	s := mcp.NewServer(&mcp.Implementation{Name: emptyName, Version: version}, nil)
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{JSONResponse: true})
}

// ServeGenStdio serves one session of the gen server over newline-delimited
// JSON on in and out, until in ends or ctx is cancelled.
func ServeGenStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	return NewGen().Run(ctx, &mcp.IOTransport{Reader: io.NopCloser(in), Writer: nopWriteCloser{rawFieldsWriter{out}}})
}
