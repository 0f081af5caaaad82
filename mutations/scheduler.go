package mutations

import (
	"context"
	"runtime"
	"sort"
	"sync"
	"time"
)

// The defaults of every run of mutants — rule, operator and a target's own
// alike —, in one place.
const (
	// DefaultFloor and DefaultFactor bound each run: DefaultFloor +
	// DefaultFactor × the baseline time of what it runs.
	DefaultFloor  = 30 * time.Second
	DefaultFactor = 3
	// CoveredFloor is the floor with coverage on: a run's baseline is then
	// the time of the very scenarios and tests that reach its mutant, each
	// measured alone, so the bound can be tight.
	CoveredFloor = 5 * time.Second
)

// DefaultWorkers is the default number of runs in flight: a check mostly
// waits (on servers, handshakes, subprocesses), so runs outnumber CPUs
// (measured on 2 CPUs: 6 runs at once 77 s for the catalogue's main runs,
// 8 runs 63–77 s, 10 runs 63 s; kills seen under that load are confirmed
// afterwards).
func DefaultWorkers() int { return 4 * runtime.NumCPU() }

// defaultConfirmWorkers is the default number of mutants confirmed at
// once: a confirmation is mostly one scenario or one test, lighter than a
// whole check, and few runs share the machine.
func defaultConfirmWorkers() int { return 2 * runtime.NumCPU() }

// limits are the pool sizes and the timeout rule of one run of mutants.
type limits struct {
	workers, confirmWorkers int
	floor                   time.Duration
	factor                  float64
}

// newLimits fills the zero values with the defaults.
func newLimits(workers, confirmWorkers int, floor time.Duration, factor float64, coverage bool) limits {
	l := limits{workers, confirmWorkers, floor, factor}
	if l.workers <= 0 {
		l.workers = DefaultWorkers()
	}
	if l.confirmWorkers <= 0 {
		l.confirmWorkers = defaultConfirmWorkers()
	}
	if l.floor <= 0 {
		l.floor = DefaultFloor
		if coverage {
			l.floor = CoveredFloor
		}
	}
	if l.factor <= 0 {
		l.factor = DefaultFactor
	}
	return l
}

// timeout bounds a run whose baseline took d.
func (l limits) timeout(d time.Duration) time.Duration {
	return l.floor + time.Duration(l.factor*float64(d))
}

// A trial is one mutant's work as the scheduler runs it: parts that run
// independently (the suite's check, its package's tests), each of which
// may need confirming once every trial has run.
type trial interface {
	// parts is the number of parts; 0 when the verdict is known already.
	parts() int
	// cost guesses a part's time, so that the longest start first (0:
	// unknown, the order is kept).
	cost(part int) time.Duration
	// run runs a part; false when cancelled (the trial has no verdict).
	run(ctx context.Context, part int) bool
	// unsure reports whether a part's verdict, seen among other runs, must
	// be confirmed with few runs at once.
	unsure(part int) bool
	// confirm runs an unsure part again; false when cancelled.
	confirm(ctx context.Context, part int) bool
	// done is called once every part has its verdict, with the wall time
	// of its runs and of its confirmation (0 when none). Calls of done are
	// never concurrent.
	done(run, confirm time.Duration)
}

// scheduler runs trials in two phases, each a bounded pool: every part of
// every trial, limits.workers at once; then the unsure ones,
// limits.confirmWorkers at once (the suite's deadline scenarios can fail
// under load, mutated or not: a verdict seen among many runs holds when it
// holds among few).
type scheduler struct {
	lim limits
	mu  sync.Mutex // serializes done and the trials' bookkeeping
}

// pending is a trial whose parts run or wait for confirmation.
type pending struct {
	t       trial
	left    int
	start   time.Time
	took    []time.Duration // by part
	runTime time.Duration
	unsure  []int // the parts to confirm
}

// cost is what its confirmation may take: what the unsure parts took (a
// timeout took its whole bound).
func (p *pending) cost() time.Duration {
	var c time.Duration
	for _, part := range p.unsure {
		c += p.took[part]
	}
	return c
}

type job struct {
	p    *pending
	part int
}

// run runs every part of ts; it returns the trials to confirm, the others
// are done. When ctx is cancelled no part starts any more.
func (s *scheduler) run(ctx context.Context, ts []trial) []*pending {
	var jobs []job
	for _, t := range ts {
		p := &pending{t: t, left: t.parts(), took: make([]time.Duration, t.parts())}
		if p.left == 0 {
			s.finish(p, 0)
			continue
		}
		for part := range p.left {
			jobs = append(jobs, job{p, part})
		}
	}
	sort.SliceStable(jobs, func(a, b int) bool {
		return jobs[a].p.t.cost(jobs[a].part) > jobs[b].p.t.cost(jobs[b].part)
	})
	var unsure []*pending
	pool(ctx, s.lim.workers, len(jobs), func(i int) {
		if p := s.runPart(ctx, jobs[i]); p != nil {
			s.mu.Lock()
			unsure = append(unsure, p)
			s.mu.Unlock()
		}
	})
	return unsure
}

// runPart runs one part; once it is the trial's last, the trial is done,
// or returned when a part must be confirmed.
func (s *scheduler) runPart(ctx context.Context, j job) *pending {
	p := j.p
	s.mu.Lock()
	if p.start.IsZero() {
		p.start = time.Now()
	}
	s.mu.Unlock()
	start := time.Now()
	if !p.t.run(ctx, j.part) {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	p.took[j.part] = time.Since(start)
	if p.left--; p.left > 0 {
		return nil
	}
	p.runTime = time.Since(p.start)
	for part := range p.took {
		if p.t.unsure(part) {
			p.unsure = append(p.unsure, part)
		}
	}
	if len(p.unsure) > 0 {
		return p
	}
	p.t.done(p.runTime, 0)
	return nil
}

// confirm confirms the unsure parts of ps, the longest first, the parts
// of one trial side by side.
func (s *scheduler) confirm(ctx context.Context, ps []*pending) {
	sort.SliceStable(ps, func(a, b int) bool { return ps[a].cost() > ps[b].cost() })
	pool(ctx, s.lim.confirmWorkers, len(ps), func(i int) {
		p := ps[i]
		start := time.Now()
		ok := make([]bool, len(p.unsure))
		var wg sync.WaitGroup
		for k, part := range p.unsure {
			wg.Go(func() { ok[k] = p.t.confirm(ctx, part) })
		}
		wg.Wait()
		for _, o := range ok {
			if !o {
				return
			}
		}
		s.finish(p, time.Since(start))
	})
}

func (s *scheduler) finish(p *pending, confirm time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p.t.done(p.runTime, confirm)
}

// pool calls f(i) for every i in [0, n), at most size calls at once. Once
// ctx is cancelled no call starts.
func pool(ctx context.Context, size, n int, f func(i int)) {
	ch := make(chan int)
	var wg sync.WaitGroup
	for range min(max(size, 1), n) {
		wg.Go(func() {
			for i := range ch {
				f(i)
			}
		})
	}
	for i := range n {
		if ctx.Err() != nil {
			break
		}
		select {
		case ch <- i:
		case <-ctx.Done():
		}
	}
	close(ch)
	wg.Wait()
}
