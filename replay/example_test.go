package replay_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/mcpparity/mcpparity/replay"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A replay is an http.Handler: a go-sdk client lists the tools of an
// embedded fixture, and the report says what it asked.
func ExampleNew() {
	fx, err := replay.LoadFixture("sdk/json.json")
	if err != nil {
		fmt.Println(err)
		return
	}
	rp, err := replay.New(fx, replay.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv := httptest.NewServer(rp)
	defer srv.Close()
	defer rp.Close()

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "my-client", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + fx.Endpoint()}, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	tools, err := session.ListTools(ctx, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(tools.Tools), "tools, the first:", tools.Tools[0].Name)
	_ = session.Close()

	_ = rp.Close()
	rep := rp.Report()
	fmt.Println(strings.SplitN(rep.String(), "\n", 2)[0])
	fmt.Println("clean:", rep.Clean(), "ended:", rep.Ended)
	// Output:
	// 11 tools, the first: audio
	// replay of sdk-json: 1 session(s), 3 request(s) (0 tools/call, 0 repeated), 0 server request(s) answered
	// clean: true ended: 1
}
