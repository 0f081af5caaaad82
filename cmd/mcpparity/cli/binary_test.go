package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

var (
	// builtDir holds the mcpparity binary built by builtBinary (removed by
	// TestMain).
	builtDir   string
	buildOnce  sync.Once
	builtPath  string
	builtError error
)

// builtBinary builds cmd/mcpparity once per test binary (static, as make
// builds it) and returns its path.
func builtBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		if builtDir, builtError = os.MkdirTemp("", "mcpparity-cli-bin-"); builtError != nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		builtPath = filepath.Join(builtDir, "mcpparity")
		cmd := exec.CommandContext(ctx, "go", "build", "-o", builtPath, "github.com/mcpparity/mcpparity/cmd/mcpparity")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			builtError = &buildError{err: err, out: string(out)}
		}
	})
	if builtError != nil {
		t.Fatal(builtError)
	}
	return builtPath
}

type buildError struct {
	err error
	out string
}

func (e *buildError) Error() string { return "go build: " + e.err.Error() + "\n" + e.out }
