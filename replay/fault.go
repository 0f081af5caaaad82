package replay

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// FaultKind names a fault.
type FaultKind string

// Fault kinds.
const (
	// FaultSessionExpired answers the selected request with 404 "session not
	// found" and forgets its session (its GET stream ends): what a client
	// sees when the server restarted. HTTP only.
	FaultSessionExpired FaultKind = "session-expired"
	// FaultStatus answers the selected request with an HTTP status and
	// its text as a plain body (status:CODE:SELECTOR, CODE from 400 to
	// 599), as a proxy or a failing server does. HTTP only.
	FaultStatus FaultKind = "status"
	// FaultCutStream ends the selected request's answer without the result:
	// an SSE answer is cut after its headers, a JSON answer before them
	// (the connection is aborted). Over stdio it behaves like FaultDie.
	FaultCutStream FaultKind = "cut-stream"
	// FaultDie kills the server at the selected request, which gets no
	// answer. stdio: ServeStdio stops and returns ErrDied (the replay
	// command exits). HTTP: that request and every later one get their
	// connection aborted, and open streams end.
	FaultDie FaultKind = "die"
	// FaultDelay waits Delay before answering the selected requests.
	FaultDelay FaultKind = "delay"
	// FaultLinger, stdio only: once its input ends, the server stays alive
	// for Delay, deaf to SIGTERM, as a launcher's grandchild may: only the
	// end of its process group stops it (linger:DURATION).
	FaultLinger FaultKind = "linger"
	// FaultSlowExit, stdio only: once its input ends, the server takes
	// Delay to write its report and exit (slow-exit:DURATION): a client
	// that ends it before its grace has passed (P2.2) leaves no report.
	FaultSlowExit FaultKind = "slow-exit"
)

// FaultHold holds the selected requests (hold:SELECTOR:DIR; SELECTOR as
// for delay) until the file DIR/release exists: a harness answers them
// when it has done what it wanted to do meanwhile, whatever the time that
// took.
const FaultHold FaultKind = "hold"

// ReleaseFile, in a hold's folder, releases its held requests.
const ReleaseFile = "release"

// maxLinger bounds a linger fault, so that no replay outlives a run for long.
const maxLinger = 30 * time.Second

// Handshake, as a selector's method, selects the requests that open a
// connection in either era: initialize and server/discover (a client of
// the 2026-07-28 revision sends server/discover first).
const Handshake = "handshake"

// Selects reports whether a selector's method (Fault.Method: "" is any,
// Handshake the opening requests) selects a request of method got.
func Selects(method, got string) bool {
	switch method {
	case "", got:
		return true
	case Handshake:
		return got == "initialize" || got == "server/discover"
	}
	return false
}

// Fault is one fault to inject. It selects JSON-RPC requests (messages with
// an id) by Method ("" = any method, Handshake the opening ones) and N, the rank of the request among
// those of Method (from 1). session-expired, cut-stream and die fire once,
// at the N-th request (N 0 counts as 1); delay applies to every selected
// request when N is 0, to the N-th only otherwise.
type Fault struct {
	Kind   FaultKind
	Method string
	N      int
	Delay  time.Duration
	// Dir is the shared folder of a barrier.
	Dir string
	// Answer is a discover fault's answer (DiscoverAnswers).
	Answer string
	// Status is a status fault's HTTP status.
	Status int
}

// ParseFault parses the flag syntax:
//
//	session-expired:N            the N-th tools/call
//	session-expired:METHOD       the first request of METHOD
//	session-expired:METHOD#N     the N-th request of METHOD
//	cut-stream:SELECTOR, die:SELECTOR   same selectors
//	delay:DURATION               every request (DURATION as in time.ParseDuration)
//	delay:DURATION:SELECTOR      only the selected request(s); METHOD alone = all of METHOD
//	METHOD handshake             initialize or server/discover, ranked together
//	discover:ANSWER[#N]          the N-th server/discover answered otherwise (FaultDiscover)
//	status:CODE:SELECTOR         an HTTP status (FaultStatus)
func ParseFault(s string) (Fault, error) {
	kind, rest, _ := strings.Cut(s, ":")
	f := Fault{Kind: FaultKind(kind)}
	switch f.Kind {
	case FaultSessionExpired, FaultCutStream, FaultDie:
		if rest == "" {
			return Fault{}, fmt.Errorf("fault %q: want %s:N, %s:METHOD or %s:METHOD#N", s, kind, kind, kind)
		}
		if err := f.parseSelector(rest, true); err != nil {
			return Fault{}, fmt.Errorf("fault %q: %v", s, err)
		}
	case FaultDelay:
		d, sel, _ := strings.Cut(rest, ":")
		dur, err := time.ParseDuration(d)
		if err != nil || dur < 0 {
			return Fault{}, fmt.Errorf("fault %q: want delay:DURATION[:SELECTOR], e.g. delay:200ms", s)
		}
		f.Delay = dur
		if sel != "" {
			if err := f.parseSelector(sel, false); err != nil {
				return Fault{}, fmt.Errorf("fault %q: %v", s, err)
			}
		}
	case FaultBarrier:
		return parseBarrier(s, rest)
	case FaultDiscover:
		return parseDiscover(s, rest)
	case FaultStatus:
		code, sel, _ := strings.Cut(rest, ":")
		n, err := strconv.Atoi(code)
		if err != nil || n < 400 || n > 599 || sel == "" {
			return Fault{}, fmt.Errorf("fault %q: want status:CODE:SELECTOR, CODE from 400 to 599", s)
		}
		f.Status = n
		if err := f.parseSelector(sel, true); err != nil {
			return Fault{}, fmt.Errorf("fault %q: %v", s, err)
		}
	case FaultHold:
		sel, dir, ok := strings.Cut(rest, ":")
		if !ok || sel == "" || dir == "" {
			return Fault{}, fmt.Errorf("fault %q: want hold:SELECTOR:DIR", s)
		}
		if err := f.parseSelector(sel, false); err != nil {
			return Fault{}, fmt.Errorf("fault %q: %v", s, err)
		}
		f.Dir = dir
	case FaultLinger, FaultSlowExit:
		d, err := time.ParseDuration(rest)
		if err != nil || d <= 0 || d > maxLinger {
			return Fault{}, fmt.Errorf("fault %q: want %s:DURATION, at most %v", s, kind, maxLinger)
		}
		f.Delay = d
	default:
		return Fault{}, fmt.Errorf("fault %q: unknown kind %q (want session-expired, cut-stream, die, delay, hold, barrier, linger, slow-exit, discover or status)", s, kind)
	}
	return f, nil
}

func (f *Fault) parseSelector(sel string, once bool) error {
	if n, err := strconv.Atoi(sel); err == nil {
		if n < 1 {
			return fmt.Errorf("N must be at least 1")
		}
		f.Method, f.N = "tools/call", n
		return nil
	}
	method, nth, hasN := strings.Cut(sel, "#")
	if method == "" {
		return fmt.Errorf("empty method in selector %q", sel)
	}
	f.Method = method
	if hasN {
		n, err := strconv.Atoi(nth)
		if err != nil || n < 1 {
			return fmt.Errorf("selector %q: N must be a number of at least 1", sel)
		}
		f.N = n
	} else if once {
		f.N = 1
	}
	return nil
}

// String renders the fault in the flag syntax.
func (f Fault) String() string {
	sel := f.Method
	if f.N > 0 {
		if f.Method == "tools/call" && f.Kind != FaultDelay {
			sel = strconv.Itoa(f.N)
		} else {
			sel += "#" + strconv.Itoa(f.N)
		}
	}
	switch f.Kind {
	case FaultBarrier:
		return "barrier:" + strconv.Itoa(f.N) + ":" + f.Dir
	case FaultHold:
		return "hold:" + sel + ":" + f.Dir
	case FaultLinger, FaultSlowExit:
		return string(f.Kind) + ":" + f.Delay.String()
	case FaultStatus:
		return "status:" + strconv.Itoa(f.Status) + ":" + sel
	case FaultDiscover:
		if f.N > 1 {
			return "discover:" + f.Answer + "#" + strconv.Itoa(f.N)
		}
		return "discover:" + f.Answer
	}
	if f.Kind == FaultDelay {
		if sel == "" {
			return "delay:" + f.Delay.String()
		}
		return "delay:" + f.Delay.String() + ":" + sel
	}
	return string(f.Kind) + ":" + sel
}

func (f Fault) validate() error {
	switch f.Kind {
	case FaultSessionExpired, FaultCutStream, FaultDie, FaultDelay, FaultBarrier, FaultLinger, FaultSlowExit, FaultHold, FaultDiscover, FaultStatus:
	default:
		return fmt.Errorf("fault %q: unknown kind", f.Kind)
	}
	if f.N < 0 || f.Delay < 0 {
		return fmt.Errorf("fault %s: negative N or delay", f)
	}
	return nil
}

// faults counts requests per fault and says which faults fire.
type faults struct {
	mu    sync.Mutex
	list  []Fault
	seen  []int
	fired []bool
}

func newFaults(list []Fault) (*faults, error) {
	for _, f := range list {
		if err := f.validate(); err != nil {
			return nil, err
		}
	}
	return &faults{list: list, seen: make([]int, len(list)), fired: make([]bool, len(list))}, nil
}

// held is what a request waits for before its answer (or its fault):
// a delay, then the release of each hold.
type held struct {
	delay    time.Duration
	releases []string // files whose existence releases the request
}

// onRequest counts a request of method and returns the one-shot fault that
// fires on it (Kind "" if none) and what it waits for first.
func (fs *faults) onRequest(method string) (Fault, held) {
	var h held
	if len(fs.list) == 0 {
		return Fault{}, h
	}
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var hit Fault
	for i, f := range fs.list {
		if f.Kind == FaultBarrier || f.Kind == FaultLinger || f.Kind == FaultSlowExit || !Selects(f.Method, method) {
			continue
		}
		fs.seen[i]++
		if f.Kind == FaultDelay || f.Kind == FaultHold {
			if f.N == 0 || f.N == fs.seen[i] {
				h.delay += f.Delay
				if f.Kind == FaultHold {
					h.releases = append(h.releases, filepath.Join(f.Dir, ReleaseFile))
				}
			}
			continue
		}
		n := max(f.N, 1)
		if !fs.fired[i] && fs.seen[i] == n && hit.Kind == "" {
			fs.fired[i] = true
			hit = f
		}
	}
	return hit, h
}
