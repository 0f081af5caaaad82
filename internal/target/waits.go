package target

import "time"

// Waits bound the harness's waits on a target; a zero field means its
// default.
type Waits struct {
	// Ready bounds the wait for a target to answer its first request (20 s).
	Ready time.Duration
	// Started bounds the wait for a target to start processes or send
	// requests (waitStarted, waitReceived; 10 s).
	Started time.Duration
	// ProcessSettle bounds the wait for a target to end processes it
	// dropped (a processes step without its own settle; 3 s).
	ProcessSettle time.Duration
	// ReplaySettle bounds the wait, once the target stopped, for its stdio
	// replays to end (they write their reports when they end; 5 s).
	ReplaySettle time.Duration
}

// WithDefaults fills each zero bound with its default.
func (w Waits) WithDefaults() Waits {
	for _, f := range []struct {
		d   *time.Duration
		def time.Duration
	}{{&w.Ready, 20 * time.Second}, {&w.Started, 10 * time.Second}, {&w.ProcessSettle, 3 * time.Second}, {&w.ReplaySettle, 5 * time.Second}} {
		if *f.d <= 0 {
			*f.d = f.def
		}
	}
	return w
}
