package suite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// ProcessCount is what a scenario observes of a stdio replay's processes:
// how many the target started, and how many are still running (P2: a
// client ends what it started, also when a connection attempt is dropped).
type ProcessCount struct {
	Started int `json:"started"`
	Alive   int `json:"alive"`
}

// ProcessSettle bounds the wait for a target to end processes it dropped.
var ProcessSettle = 3 * time.Second

// WaitStartedTimeout bounds the wait for a target to start processes.
var WaitStartedTimeout = 10 * time.Second

// count reads the pid files of a stdio replay: each process locks its own
// while it lives, which works across PID namespaces.
func (r *running) count(name string) (ProcessCount, error) {
	dir, ok := r.stdio[name]
	if !ok {
		return ProcessCount{}, fmt.Errorf("%q is not a stdio replay of this scenario", name)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ProcessCount{}, err
	}
	var c ProcessCount
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".pid") {
			continue
		}
		c.Started++
		alive, err := locked(filepath.Join(dir, e.Name()))
		if err != nil {
			return c, err
		}
		if alive {
			c.Alive++
		}
	}
	return c, nil
}

// locked reports whether another process holds the lock of path.
func locked(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return false, syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}

// waitStarted waits until the target has started at least n processes of
// each named stdio replay.
func (r *running) waitStarted(ctx context.Context, want map[string]int) error {
	ctx, cancel := context.WithTimeout(ctx, WaitStartedTimeout)
	defer cancel()
	for _, name := range sortedKeys(want) {
		for {
			c, err := r.count(name)
			if err != nil {
				return err
			}
			if c.Started >= want[name] {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("the target started %d process(es) of %s within %v, want %d", c.Started, name, WaitStartedTimeout, want[name])
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
	return nil
}

// settle observes the processes of each named replay once none is alive,
// or after ProcessSettle.
func (r *running) settle(ctx context.Context, names []string) (map[string]ProcessCount, error) {
	deadline := time.Now().Add(ProcessSettle)
	out := map[string]ProcessCount{}
	for _, name := range names {
		for {
			c, err := r.count(name)
			if err != nil {
				return nil, err
			}
			if c.Alive == 0 || time.Now().After(deadline) || ctx.Err() != nil {
				out[name] = c
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	return out, nil
}
