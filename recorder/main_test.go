package recorder_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/recorder"
	"github.com/mcpparity/mcpparity/recorder/sdkserver"
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

func runWriteFixture() int {
	err := recorder.WriteFile(os.Getenv(envWritePath), sampleFixture())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}
