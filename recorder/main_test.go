package recorder_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/mcpparity/mcpparity/recorder"
	"go.uber.org/goleak"
)

// The test binary doubles as the stdio server and as the fixture writer run
// under another user: these variables select the role.
const (
	envRole      = "MCPPARITY_RECORDER_TEST_ROLE"
	envDieOnCall = "MCPPARITY_RECORDER_TEST_DIE_ON_CALL"
	envWritePath = "MCPPARITY_RECORDER_TEST_WRITE_PATH"
)

func TestMain(m *testing.M) {
	switch os.Getenv(envRole) {
	case "stdio-server":
		os.Exit(runStdioServer())
	case "write-fixture":
		os.Exit(runWriteFixture())
	case "foreign-server":
		os.Exit(runForeignServer())
	}
	goleak.VerifyTestMain(m)
}

func runStdioServer() int {
	var in io.Reader = os.Stdin
	if os.Getenv(envDieOnCall) != "" {
		in = dieOnCall(os.Stdin)
	}
	if err := sdkserver.ServeStdio(context.Background(), in, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "stdio server:", err)
		return 1
	}
	return 0
}

// dieOnCall passes stdin through until a tools/call arrives, then ends the
// process with status 3, as a crashing server would.
func dieOnCall(r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		br := bufio.NewReader(r)
		for {
			line, err := br.ReadString('\n')
			if strings.Contains(line, `"tools/call"`) {
				fmt.Fprintln(os.Stderr, "dying on purpose")
				os.Exit(3)
			}
			if _, werr := pw.Write([]byte(line)); werr != nil || err != nil {
				pw.CloseWithError(err)
				return
			}
		}
	}()
	return pr
}

// runForeignServer answers like a server that is not the go-sdk one: a
// fixed serverInfo and one tool, one answer per request line, until stdin
// ends.
func runForeignServer() int {
	br := bufio.NewReader(os.Stdin)
	for {
		line, err := br.ReadString('\n')
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal([]byte(line), &msg) == nil && msg.ID != nil {
			result := `{}`
			switch msg.Method {
			case "initialize":
				result = `{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"mcp-servers/everything","version":"2.0.0"}}`
			case "tools/list":
				result = `{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}`
			}
			fmt.Printf("{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}\n", msg.ID, result)
		}
		if err != nil {
			return 0
		}
	}
}

func runWriteFixture() int {
	err := recorder.WriteFile(os.Getenv(envWritePath), sampleFixture())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
