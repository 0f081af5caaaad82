package impl

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Texts of a call's output (user-visible behaviour).
const (
	TruncatedSuffix = "\n…[tronqué]"
	ToolErrorPrefix = "[l'outil a renvoyé une erreur]\n"
	EmptyOutput     = "[ok] (aucune sortie)"
	// MinOutputCap is the least number of runes a call's output is cut at.
	MinOutputCap = 12000
)

// Flatten implements P11: the content of a call result as one string.
func Flatten(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, "[image "+c.MIMEType+"]")
		case *mcp.AudioContent:
			parts = append(parts, "[audio "+c.MIMEType+"]")
		default:
			raw, err := json.Marshal(c)
			if err != nil {
				continue
			}
			parts = append(parts, string(raw))
		}
	}
	out := strings.TrimSpace(strings.Join(parts, "\n"))
	if out == "" && res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err == nil {
			var buf bytes.Buffer
			if json.Indent(&buf, raw, "", "  ") == nil {
				out = buf.String()
			}
		}
	}
	return out
}

// OutputCap implements P12's cap: the caller's context window, never under
// MinOutputCap runes.
func OutputCap(contextWindow int) int {
	return max(contextWindow, MinOutputCap)
}

// Truncate implements P12: past limit runes, cut and append TruncatedSuffix.
func Truncate(s string, limit int) string {
	n := 0
	for i := range s {
		if n == limit {
			return s[:i] + TruncatedSuffix
		}
		n++
	}
	return s
}

// CallOutput implements P13 on top of P11 and P12: what the model reads for
// a call result.
func CallOutput(res *mcp.CallToolResult, contextWindow int) string {
	out := Truncate(Flatten(res), OutputCap(contextWindow))
	if res.IsError {
		return ToolErrorPrefix + out
	}
	if out == "" {
		return EmptyOutput
	}
	return out
}
