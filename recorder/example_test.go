package recorder_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/mcpparity/mcpparity/recorder"
	"github.com/mcpparity/mcpparity/replay"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type greeting struct {
	Name string `json:"name"`
}

// A recording proxy stands between a client and a live server; Build
// makes a fixture of what passed, and a replay serves it back.
func ExampleNewProxy() {
	server := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "1.0.0"}, nil)
	mcp.AddTool(server, &mcp.Tool{Name: "greet", Description: "Says hello"},
		func(_ context.Context, _ *mcp.CallToolRequest, in greeting) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "Bonjour " + in.Name}}}, nil, nil
		})
	live := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server },
		&mcp.StreamableHTTPOptions{JSONResponse: true}))
	defer live.Close()

	proxy, err := recorder.NewProxy(live.URL, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	front := httptest.NewServer(proxy)
	greet(front.URL + "/mcp")
	front.Close()
	_ = proxy.Close()

	fx, err := recorder.Build(proxy.Recording(), recorder.Config{Name: "greeter"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("recorded:", fx.Manifest.Transport, fx.Manifest.ResponseMode, "answers")

	rp, err := replay.New(fx, replay.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fake := httptest.NewServer(rp)
	greet(fake.URL + fx.Endpoint())
	_ = rp.Close()
	fake.Close()
	fmt.Println("replay clean:", rp.Report().Clean())
	// Output:
	// Bonjour Ada
	// recorded: http json answers
	// Bonjour Ada
	// replay clean: true
}

// greet calls the greet tool of the server at endpoint and prints its text.
func greet(endpoint string) {
	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "my-client", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer session.Close()
	res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "greet", Arguments: greeting{Name: "Ada"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Content[0].(*mcp.TextContent).Text)
}
