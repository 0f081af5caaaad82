package runner

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/mcpparity/mcpparity/internal/childproc"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/replay"
)

// pollEvery is how often the harness looks at replays' files while it waits.
const pollEvery = 5 * time.Millisecond

// count reads the pid files of a stdio replay: each process locks its own
// while it lives, which works across PID namespaces.
func (r *running) count(name string) (scenario.ProcessCount, error) {
	pids, alive, err := r.pids(name)
	return scenario.ProcessCount{Started: len(pids), Alive: len(alive)}, err
}

// pids lists the processes of a stdio replay, and those still running.
func (r *running) pids(name string) (all, alive []int, err error) {
	dir, ok := r.stdio[name]
	if !ok {
		return nil, nil, fmt.Errorf("%q is not a stdio replay of this scenario", name)
	}
	if all, err = dir.PIDs(); err != nil {
		return nil, nil, err
	}
	for _, pid := range all {
		held, err := childproc.Held(dir.PIDFile(pid))
		if err != nil {
			return nil, nil, err
		}
		if held {
			alive = append(alive, pid)
		}
	}
	return all, alive, nil
}

// reap kills the stdio replay processes of name still running (a target
// that left them behind, or a harness stopped early). Their pids are those
// of this PID namespace unless the target ran in a container, where the
// engine removes them with the container anyway.
func (r *running) reap(name string) {
	_, alive, err := r.pids(name)
	if err != nil {
		return
	}
	for _, pid := range alive {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
}

// waitStarted waits until the target has started at least n processes of
// each named stdio replay.
func (r *running) waitStarted(ctx context.Context, want map[string]int) error {
	return waitUntil(ctx, r.waits.Started, want, func(name string) (int, error) {
		c, err := r.count(name)
		return c.Started, err
	}, func(name string, got int) string {
		return fmt.Sprintf("the target started %d process(es) of %s within %v, want %d", got, name, r.waits.Started, want[name])
	})
}

// waitReceived waits until each named replay has received the given
// number of messages of each method.
func (r *running) waitReceived(ctx context.Context, want map[string]map[string]int) error {
	for _, name := range slices.Sorted(maps.Keys(want)) {
		for _, method := range slices.Sorted(maps.Keys(want[name])) {
			n := want[name][method]
			err := waitUntil(ctx, r.waits.Started, map[string]int{name: n}, func(name string) (int, error) {
				return r.receivedCount(name, method)
			}, func(name string, got int) string {
				return fmt.Sprintf("%s received %d %s within %v, want %d", name, got, method, r.waits.Started, n)
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// waitUntil polls get for each name of want until it reaches want[name],
// for at most Waits.Started; the error text is made by describe.
func waitUntil(ctx context.Context, bound time.Duration, want map[string]int, get func(string) (int, error), describe func(string, int) string) error {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	for _, name := range slices.Sorted(maps.Keys(want)) {
		for {
			got, err := get(name)
			if err != nil {
				return err
			}
			if got >= want[name] {
				break
			}
			select {
			case <-ctx.Done():
				return errors.New(describe(name, got))
			case <-time.After(pollEvery):
			}
		}
	}
	return nil
}

// received counts the messages an HTTP replay of the scenario received.
type received struct {
	mu     sync.Mutex
	counts map[string]int
}

func (c *received) add(method string) {
	c.mu.Lock()
	c.counts[method]++
	c.mu.Unlock()
}

// receivedCount is the number of messages a replay received of method,
// a selector's (replay.Selects: "handshake" counts initialize and
// server/discover): counted in process for HTTP replays, read from the
// progress files of stdio replays (one method a line).
func (r *running) receivedCount(name, method string) (int, error) {
	if c, ok := r.received[name]; ok {
		c.mu.Lock()
		defer c.mu.Unlock()
		n := 0
		for got, k := range c.counts {
			if replay.Selects(method, got) {
				n += k
			}
		}
		return n, nil
	}
	dir, ok := r.stdio[name]
	if !ok {
		return 0, fmt.Errorf("%q is not a replay of this scenario", name)
	}
	pids, err := dir.Receivers()
	if err != nil {
		return 0, err
	}
	n := 0
	for _, pid := range pids {
		fh, err := os.Open(dir.RecvFile(pid))
		if err != nil {
			return 0, err
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			if replay.Selects(method, sc.Text()) {
				n++
			}
		}
		fh.Close()
	}
	return n, nil
}

// settle observes the processes of each named replay once none is alive,
// or after bound.
func (r *running) settle(ctx context.Context, names []string, bound time.Duration) (map[string]scenario.ProcessCount, error) {
	out := map[string]scenario.ProcessCount{}
	for _, name := range names {
		c, err := r.settleOne(ctx, name, bound)
		if err != nil {
			return nil, err
		}
		out[name] = c
	}
	return out, nil
}

// settleOne waits, at most bound, until no process of a stdio replay is
// alive, and returns its count then.
func (r *running) settleOne(ctx context.Context, name string, bound time.Duration) (scenario.ProcessCount, error) {
	deadline := time.Now().Add(bound)
	for {
		c, err := r.count(name)
		if err != nil {
			return c, err
		}
		if c.Alive == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return c, nil
		}
		time.Sleep(pollEvery)
	}
}
