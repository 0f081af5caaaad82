package replay

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FaultBarrier holds every opening request (Handshake: initialize, or
// server/discover) until N replays sharing a folder have received theirs
// (barrier:N:DIR). Replays of one scenario
// that share a barrier connect only if the client connects them in
// parallel: a client that connects one server after the other leaves the
// first one waiting until its handshake deadline. It works across
// processes (stdio replays) through files in DIR.
const FaultBarrier FaultKind = "barrier"

// barrierPoll is how often a held request looks at the barrier's folder.
const barrierPoll = 5 * time.Millisecond

func parseBarrier(s, rest string) (Fault, error) {
	n, dir, ok := strings.Cut(rest, ":")
	count, err := strconv.Atoi(n)
	if !ok || err != nil || count < 1 || dir == "" {
		return Fault{}, fmt.Errorf("fault %q: want barrier:N:DIR (N at least 1)", s)
	}
	return Fault{Kind: FaultBarrier, Method: Handshake, N: count, Dir: dir}, nil
}

// barriers are the barrier faults of one replay; a replay arrives at each
// once (its first opening request), and every held request waits for all.
type barriers struct {
	list []Fault
	once sync.Once
	err  error
}

func newBarriers(faults []Fault) *barriers {
	b := &barriers{}
	for _, f := range faults {
		if f.Kind == FaultBarrier {
			b.list = append(b.list, f)
		}
	}
	return b
}

// wait holds a request of method until every barrier is full; false when
// ctx ended first.
func (b *barriers) wait(ctx context.Context, method string) bool {
	if len(b.list) == 0 || !Selects(Handshake, method) {
		return true
	}
	b.once.Do(func() {
		var tag [6]byte
		_, _ = rand.Read(tag[:])
		name := strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(tag[:])
		for _, f := range b.list {
			if err := os.MkdirAll(f.Dir, 0o755); err != nil {
				b.err = err
				return
			}
			if err := os.WriteFile(filepath.Join(f.Dir, name), nil, 0o644); err != nil {
				b.err = err
				return
			}
		}
	})
	if b.err != nil {
		return true // a broken barrier does not hold: the report shows nothing wrong, the scenario's golden will
	}
	for _, f := range b.list {
		for {
			entries, err := os.ReadDir(f.Dir)
			if err == nil && len(entries) >= f.N {
				break
			}
			if !sleep(ctx, barrierPoll) {
				return false
			}
		}
	}
	return true
}

// hold makes a request wait for what h says, then for the barriers; false
// when ctx ended first.
func (e *engine) hold(ctx context.Context, method string, h held) bool {
	if h.delay > 0 && !sleep(ctx, h.delay) {
		return false
	}
	for _, release := range h.releases {
		for {
			if _, err := os.Stat(release); err == nil {
				break
			}
			if !sleep(ctx, barrierPoll) {
				return false
			}
		}
	}
	return e.holds.wait(ctx, method)
}
