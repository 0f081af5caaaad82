// Package fuzz is differential fuzzing of a target against the reference:
// it generates sequences of steps of the contract (generate.go and the
// files it draws from), runs each as a scenario on both sides (runner.go),
// shrinks a sequence that diverges to a small one that still does
// (shrink.go) and writes it as a scenario with the reference's
// observations as its golden file (writer.go).
package fuzz

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mcpparity/mcpparity/impl"
)

// Options of a fuzz run.
type Options struct {
	// Seed is the first sequence's seed; sequence i+1's is Next(sequence
	// i's), so that a sequence's seed alone reproduces it.
	Seed uint64
	// Steps is the number of units (one step, or a few that belong
	// together) of each sequence.
	Steps int
	// Duration bounds the search (not the shrinking).
	Duration time.Duration
	// Sequences, when positive, stops the search after that many.
	Sequences int
	// Parallel is the number of sequences run at once.
	Parallel int
	// ShrinkRuns bounds the runs of the shrinker.
	ShrinkRuns int
	// Log gets a line per finding and a summary.
	Log io.Writer
	// Era is the era of every sequence; "" draws each sequence's from its
	// seed (impl.Eras).
	Era string
}

// eraOf is the era of the sequence of seed: opt's, else drawn from the
// seed's top bit, so that the seed alone reproduces it.
func (opt Options) eraOf(seed uint64) string {
	if opt.Era != "" {
		return opt.Era
	}
	return impl.Eras[seed>>63]
}

// Defaults of Options. A sequence mostly waits (scaled deadlines that
// must pass, processes that must exit): on 2 cores one uses about 90 ms of
// CPU in 300 ms, so eight at once, as check runs its scenarios, keep the
// cores busy (fuzz --target ref --duration 20s --seed 11, one after the
// other: 135 sequences at 2, 247 at 4, 463 at 8, 461 at 12).
const (
	DefaultSteps      = 24
	DefaultParallel   = 8
	DefaultShrinkRuns = 200
)

// next is the seed of the sequence after the one of seed (a bijection of
// uint64: runs from different seeds do not repeat each other's sequences).
func next(seed uint64) uint64 { return seed*6364136223846793005 + 1442695040888963407 }

// Finding is a sequence on which the target diverged, shrunk.
type Finding struct {
	Seed     uint64 // the sequence's own seed
	Sequence int    // its rank in the run, from 0
	Original *Program
	Shrunk   *Program
	Outcome  Outcome // of the shrunk program
	// ShrinkRuns is the number of runs the shrinker made.
	ShrinkRuns int
	// FoundAfter is the time the search took to find it.
	FoundAfter time.Duration
}

// Report is what a run did.
type Report struct {
	Seed      uint64
	Sequences int // sequences run to their end (a diverging one included)
	Steps     int // their steps
	Elapsed   time.Duration
	Finding   *Finding
}

// Run searches for a divergence until opt.Duration (or opt.Sequences)
// ends, and shrinks the first one found. An error is a run that could not
// go on (a side that does not start, a harness error), or the reference
// observing a shrunk sequence two ways (a bug of the fuzzer).
func Run(ctx context.Context, r *Runner, opt Options) (*Report, error) {
	opt = withDefaults(opt)
	start := time.Now()
	sctx, cancel := context.WithTimeout(ctx, opt.Duration)
	defer cancel()
	rep, found, err := search(sctx, r, opt)
	rep.Elapsed = time.Since(start).Round(time.Millisecond)
	if err != nil || found == nil {
		return rep, err
	}
	found.FoundAfter = rep.Elapsed
	logf(opt.Log, "sequence %d (seed %d) differs, found after %v: %s", found.Sequence, found.Seed, found.FoundAfter, firstDiff(found.Outcome))
	shrunk, out, runs, err := shrink(ctx, r, found.Original, found.Outcome, opt.ShrinkRuns)
	if err != nil {
		return rep, fmt.Errorf("shrinking: %w", err)
	}
	found.Shrunk, found.Outcome, found.ShrinkRuns = shrunk, out, runs
	if err := confirm(ctx, r, found); err != nil {
		return rep, err
	}
	rep.Finding = found
	rep.Elapsed = time.Since(start).Round(time.Millisecond)
	return rep, nil
}

func withDefaults(opt Options) Options {
	if opt.Steps <= 0 {
		opt.Steps = DefaultSteps
	}
	if opt.Parallel <= 0 {
		opt.Parallel = DefaultParallel
	}
	if opt.ShrinkRuns <= 0 {
		opt.ShrinkRuns = DefaultShrinkRuns
	}
	if opt.Duration <= 0 {
		opt.Duration = time.Minute
	}
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	return opt
}

// search runs sequences opt.Parallel at a time until one diverges, the
// time is up or opt.Sequences were run. Once sequence k diverges, no later
// one starts and those after k in flight are cut, but those before k run
// to their end: the divergence kept is the one of the lowest rank, whatever
// the order in which they ended.
func search(ctx context.Context, r Judge, opt Options) (*Report, *Finding, error) {
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	s := &searcher{opt: opt, seed: opt.Seed, rep: &Report{Seed: opt.Seed}, cancels: map[int]context.CancelFunc{}}
	var wg sync.WaitGroup
	for w := 0; w < opt.Parallel; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, seed, sctx, ok := s.take(ctx)
				if !ok {
					return
				}
				f, steps, err := runSequence(sctx, r, opt, i, seed)
				if s.done(i, seed, f, steps, err) {
					stop()
				}
			}
		}()
	}
	wg.Wait()
	return s.rep, s.found, s.failure
}

// searcher is the shared state of a search's workers.
type searcher struct {
	opt     Options
	mu      sync.Mutex
	next    int
	seed    uint64
	rep     *Report
	found   *Finding
	failure error
	cancels map[int]context.CancelFunc // the sequences in flight
}

// take hands out the next sequence and its context, unless the search is
// over: its time is up, its count reached, or a sequence diverged.
func (s *searcher) take(ctx context.Context) (int, uint64, context.Context, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ctx.Err() != nil || s.found != nil || s.failure != nil || s.opt.Sequences > 0 && s.next >= s.opt.Sequences {
		return 0, 0, nil, false
	}
	i, seed := s.next, s.seed
	s.next, s.seed = s.next+1, next(s.seed)
	sctx, cancel := context.WithCancel(ctx)
	s.cancels[i] = cancel
	return i, seed, sctx, true
}

// done records sequence i's outcome, and cuts the sequences in flight a
// divergence makes useless. It reports whether the whole search must stop
// (a side that could not run).
func (s *searcher) done(i int, seed uint64, f *Finding, steps int, err error) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.cancels[i]()
	delete(s.cancels, i)
	switch {
	case errors.Is(err, errStopped):
	case err != nil:
		if s.failure == nil {
			s.failure = fmt.Errorf("sequence %d (seed %d): %w", i, seed, err)
		}
		return true
	default:
		s.rep.Sequences++
		s.rep.Steps += steps
		if f != nil && (s.found == nil || f.Sequence < s.found.Sequence) {
			s.found = f
			for j, cancel := range s.cancels {
				if j > i {
					cancel()
				}
			}
		}
	}
	return false
}

// runSequence generates and runs sequence i from its seed.
func runSequence(ctx context.Context, r Judge, opt Options, i int, seed uint64) (*Finding, int, error) {
	p, err := fromSeed(seed, opt.Steps, ScenarioName(seed))
	if err != nil {
		return nil, 0, err
	}
	p.Era = opt.eraOf(seed)
	out, err := r.Run(ctx, p.Scenario, p.Era)
	if err != nil {
		return nil, 0, err
	}
	if !out.Diverged() {
		return nil, len(p.Scenario.Steps), nil
	}
	return &Finding{Seed: seed, Sequence: i, Original: p, Outcome: out}, len(p.Scenario.Steps), nil
}

// ScenarioName is the name a sequence's scenario is written under
// (numbered, as check reads scenarios).
func ScenarioName(seed uint64) string { return fmt.Sprintf("99-fuzz-%016x", seed) }

// confirm runs the shrunk scenario against the reference twice more: a
// reference that observes it two ways makes it no finding (the fuzzer
// generated a step whose outcome depends on timing).
func confirm(ctx context.Context, r *Runner, f *Finding) error {
	for range 2 {
		golden, err := r.Reference(ctx, f.Shrunk.Scenario, f.Shrunk.Era)
		if err != nil {
			return err
		}
		if string(golden) != string(f.Outcome.Golden) {
			return fmt.Errorf("sequence %d (seed %d): the reference observes its shrunk scenario two ways: a step depends on timing (a bug of the fuzzer)", f.Sequence, f.Seed)
		}
	}
	return nil
}

// Describe is the description of a finding's scenario: where it comes
// from and what differs first.
func Describe(f *Finding, target string) string {
	ds := f.Outcome.Differences()
	first := ""
	if len(ds) > 0 {
		first = ", first at " + ds[0].Named()
	}
	return fmt.Sprintf("A sequence generated by mcpparity fuzz (seed %d, era %s) and shrunk from %d steps to %d, on which %s differs from the reference%s.",
		f.Seed, f.Shrunk.Era, len(f.Original.Scenario.Steps), len(f.Shrunk.Scenario.Steps), target, first)
}

// firstDiff describes an outcome's first difference.
func firstDiff(out Outcome) string {
	ds := out.Differences()
	if len(ds) == 0 {
		return "no difference"
	}
	d := ds[0]
	return fmt.Sprintf("%s: want %s, got %s (%d difference(s))", d.Named(), d.Want, d.Got, len(ds))
}

func logf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, format+"\n", args...)
}
