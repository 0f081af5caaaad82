package record_test

import (
	"context"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpparity/mcpparity/recorder"
	"github.com/mcpparity/mcpparity/recorder/sdkserver"
	"github.com/mcpparity/mcpparity/replay"
)

// TestMain makes the test binary the harness command: started as
// "<test binary> record|sdk-server|replay …" it runs that subcommand.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		ctx := context.Background()
		switch os.Args[1] {
		case "record":
			os.Exit(recorder.ProxyMain(ctx, os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
		case "sdk-server":
			os.Exit(sdkserver.Main(ctx, os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
		case "replay":
			os.Exit(replay.Main(ctx, os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
		}
	}
	goleak.VerifyTestMain(m)
}
