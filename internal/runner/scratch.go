package runner

import (
	"os"
	"sync"
)

// memoryScratch is a folder in memory most Linux machines have.
const memoryScratch = "/dev/shm"

// scratchRoot is where each scenario run makes its folders (the target's
// state and workspace, the replays' reports): TMPDIR when it is set (the
// user's choice, and each check of mutate has its own), else /dev/shm when
// this process may write there, else os.TempDir(). A fuzz run makes and
// removes thousands of folders and store files; on ext4 that cost a fuzz
// sequence 6–10 % of its CPU (BenchmarkSequences with TMPDIR=/tmp).
var scratchRoot = sync.OnceValue(func() string {
	if os.Getenv("TMPDIR") != "" {
		return os.TempDir()
	}
	if probe, err := os.MkdirTemp(memoryScratch, "mcpparity-"); err == nil {
		_ = os.Remove(probe)
		return memoryScratch
	}
	return os.TempDir()
})
