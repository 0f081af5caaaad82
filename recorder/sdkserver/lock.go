package sdkserver

import (
	"context"
	"os"
	"syscall"
	"time"
)

// lockPoll is how often WhileLocked looks at its lock.
const lockPoll = 100 * time.Millisecond

// WhileLocked returns a context that ends with ctx or as soon as no other
// process holds a lock on the file path (the harness that started this
// server is gone), so that a stdio server a client left behind ends with
// the run that started it.
func WhileLocked(ctx context.Context, path string) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	go func() {
		t := time.NewTicker(lockPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			if !heldByOther(path) {
				cancel()
				return
			}
		}
	}()
	return ctx, cancel
}

// heldByOther reports whether another process holds a lock on path (a
// file that cannot be opened holds none).
func heldByOther(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close() // also releases a lock just taken
	return syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB) != nil
}
