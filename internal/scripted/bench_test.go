package scripted_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/mcpparity/mcpparity/replay"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkClientCall runs the same go-sdk client loop of tools/call
// ("echo", as recorded) against the live SDK server and against the replay
// of its recording, side by side, in SSE and JSON modes.
func BenchmarkClientCall(b *testing.B) {
	for _, mode := range []string{"sse", "json"} {
		b.Run("live-"+mode, func(b *testing.B) {
			srv := httptest.NewServer(sdkserver.Handler(mode == "json"))
			defer srv.Close()
			benchCalls(b, srv.URL+"/mcp")
		})
		b.Run("replay-"+mode, func(b *testing.B) {
			fx, err := fixtures.Embedded("sdk/" + mode + ".json")
			if err != nil {
				b.Fatal(err)
			}
			rp, err := replay.New(fx, replay.Options{})
			if err != nil {
				b.Fatal(err)
			}
			srv := httptest.NewServer(rp)
			defer func() { rp.Close(); srv.Close() }()
			benchCalls(b, srv.URL+"/mcp")
		})
	}
}

func benchCalls(b *testing.B, url string) {
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcpparity-ref", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{}},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	params := &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "Bonjour 🙂 — parité"}}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		res, err := cs.CallTool(ctx, params)
		if err != nil || res.IsError {
			b.Fatal(err)
		}
	}
}
