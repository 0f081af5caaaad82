package suite_test

import (
	"context"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/mcpparity/mcpparity/internal/suite"
	"github.com/mcpparity/mcpparity/replay"
)

// TestMain makes the test binary the harness command of stdio replays:
// started as "<test binary> replay …" it serves a fixture on stdin/stdout.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "replay":
			os.Exit(replay.Main(context.Background(), os.Args[2:], os.Stdin, os.Stdout, os.Stderr))
		case "spawn":
			os.Exit(suite.SpawnMain(os.Args[2:], os.Stderr))
		}
	}
	goleak.VerifyTestMain(m)
}
