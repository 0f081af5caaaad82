package sdkserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestGenStructuredAsWritten: structured content goes on the wire as its
// arguments wrote it: key order and number forms kept.
func TestGenStructuredAsWritten(t *testing.T) {
	req := &mcp.CallToolRequest{Params: &mcp.CallToolParamsRaw{Arguments: json.RawMessage(`{"structured":"{\"z\":1e21,\"a\":-0,\"m\":1.50}"}`)}}
	res, err := genHandler(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), `"structuredContent":{"z":1e21,"a":-0,"m":1.50}`) {
		t.Errorf("result %s", raw)
	}
}
