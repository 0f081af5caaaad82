package replaytest_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/replay/replaytest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A test holds a replay of an embedded fixture and calls a tool with the
// go-sdk client; a request the fixture lacks fails the test when it
// ends. (Here a stand-in for the test's *testing.T shows the failure.)
func Example() {
	t := &fakeT{} // in a test: its *testing.T
	t.run(func(t testing.TB) {
		srv := replaytest.NewServer(t, "sdk/json.json")

		ctx := context.Background()
		client := mcp.NewClient(&mcp.Implementation{Name: "my-client", Version: "1.0.0"}, nil)
		session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL}, nil)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		defer session.Close()
		res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "Bonjour 🙂 — parité"}})
		if err != nil {
			t.Fatalf("echo: %v", err)
		}
		fmt.Println(res.Content[0].(*mcp.TextContent).Text)
		_, err = session.CallTool(ctx, &mcp.CallToolParams{Name: "weather", Arguments: map[string]any{}})
		fmt.Println("weather answered with an error:", err != nil)
	})
	for _, failure := range t.errs {
		for _, line := range strings.Split(failure, "\n") {
			if strings.Contains(line, "unmatched") {
				fmt.Println("the test fails:", strings.TrimSpace(line))
			}
		}
	}
	// Output:
	// Bonjour 🙂 — parité
	// weather answered with an error: true
	// the test fails: unmatched: replay: unmatched tools/call "weather": closest recorded interaction is #7 tools/call "image", differing at params.name; answered as the live server answered a tools/call of a tool the server does not list
}
