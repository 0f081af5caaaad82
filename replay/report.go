package replay

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/mcpparity/mcpparity/internal/childproc"
)

// Report is what a replay observed. Problems are Unmatched,
// HeaderMismatches, MissingAnswers and Refused; Unused is informative.
type Report struct {
	Fixture string `json:"fixture"`
	// Sessions is the number of initialize requests handled.
	Sessions int `json:"sessions"`
	// Calls is the number of tools/call requests answered from the recording.
	Calls int `json:"calls"`
	// Requests is the number of JSON-RPC requests answered from the recording.
	Requests int `json:"requests"`
	// Repeated counts requests answered by repeating the last recorded
	// answer of their match key (the client asked more often than recorded).
	Repeated int `json:"repeated"`
	// Answers counts server requests (pings, roots/list) the client answered,
	// among those the fixture holds an answer to (a request recorded
	// without answer, sent as the session ends, is checked, not counted).
	Answers          int              `json:"answers"`
	Unmatched        []Unmatched      `json:"unmatched,omitempty"`
	Unused           []Unused         `json:"unused,omitempty"`
	HeaderMismatches []HeaderMismatch `json:"headerMismatches,omitempty"`
	MissingAnswers   []MissingAnswer  `json:"missingAnswers,omitempty"`
	// Refused lists the requests answered as the server answered the
	// recorded probe of their fault (fixtures.Probe), each named as
	// probekind.All name it, e.g. "POST without text/event-stream
	// in Accept".
	Refused []string `json:"refused,omitempty"`
	// EnvMismatches lists required environment variables (stdio) that the
	// server process did not get: "NAME missing" or "NAME different value".
	EnvMismatches []string `json:"envMismatches,omitempty"`
	// Faults lists the faults that fired, in order.
	Faults []string `json:"faults,omitempty"`
	// Cancelled counts the client's notifications/cancelled that the
	// recording does not hold (not a problem: see engine).
	Cancelled int `json:"cancelled,omitempty"`
	// Evicted counts the HTTP sessions dropped to stay within
	// Options.MaxSessions (not a problem: see Options).
	Evicted int `json:"evicted,omitempty"`
	// Ended counts the HTTP sessions the client ended itself (DELETE).
	Ended int `json:"ended,omitempty"`
}

// Unmatched is a client message the recording has no answer for.
type Unmatched struct {
	Method  string `json:"method,omitempty"`
	Message string `json:"message"`
}

// Unused is a recorded interaction never replayed.
type Unused struct {
	// Seq is the exchange's seq (HTTP) or the line number from 1 (stdio).
	Seq   int    `json:"seq"`
	Label string `json:"label"`
}

// HeaderMismatch is a required header missing or with another value. Values
// are not reported: they may be secrets.
type HeaderMismatch struct {
	Request string `json:"request"` // e.g. "POST tools/call", "GET"
	Header  string `json:"header"`
	Problem string `json:"problem"` // "missing" or "different value"
}

// MissingAnswer is a server request the client did not answer with a result.
type MissingAnswer struct {
	Method  string `json:"method"`
	Seq     int    `json:"seq"` // where it was recorded
	Problem string `json:"problem"`
}

// Clean reports whether the replay saw no problem (unused interactions
// are not problems).
func (r Report) Clean() bool {
	return len(r.Unmatched) == 0 && len(r.HeaderMismatches) == 0 && len(r.MissingAnswers) == 0 && len(r.Refused) == 0
}

// String renders the report for humans.
func (r Report) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "replay of %s: %d session(s), %d request(s) (%d tools/call, %d repeated), %d server request(s) answered\n",
		r.Fixture, r.Sessions, r.Requests, r.Calls, r.Repeated, r.Answers)
	for _, u := range r.Unmatched {
		fmt.Fprintf(&b, "  unmatched: %s\n", u.Message)
	}
	for _, h := range r.HeaderMismatches {
		fmt.Fprintf(&b, "  header %s %s on %s\n", h.Header, h.Problem, h.Request)
	}
	for _, m := range r.MissingAnswers {
		fmt.Fprintf(&b, "  server request %s (recorded at %d): %s\n", m.Method, m.Seq, m.Problem)
	}
	for _, req := range r.Refused {
		fmt.Fprintf(&b, "  refused: %s\n", req)
	}
	for _, f := range r.Faults {
		fmt.Fprintf(&b, "  fault fired: %s\n", f)
	}
	if r.Evicted > 0 {
		fmt.Fprintf(&b, "  sessions evicted (least recently used, over the live bound): %d\n", r.Evicted)
	}
	for _, u := range r.Unused {
		fmt.Fprintf(&b, "  unused: #%d %s\n", u.Seq, u.Label)
	}
	if r.Clean() {
		b.WriteString("  result: clean\n")
	} else {
		b.WriteString("  result: PROBLEMS\n")
	}
	return b.String()
}

// ledger accumulates a report under a lock.
type ledger struct {
	mu sync.Mutex
	r  Report
}

func (l *ledger) update(f func(r *Report)) {
	l.mu.Lock()
	f(&l.r)
	l.mu.Unlock()
}

func (l *ledger) snapshot() Report {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.r
	r.Unmatched = append([]Unmatched(nil), r.Unmatched...)
	r.HeaderMismatches = append([]HeaderMismatch(nil), r.HeaderMismatches...)
	r.MissingAnswers = append([]MissingAnswer(nil), r.MissingAnswers...)
	r.Refused = append([]string(nil), r.Refused...)
	r.Faults = append([]string(nil), r.Faults...)
	return r
}

// WriteReportFile writes rep as JSON to path atomically: to a temporary
// file beside it, then renamed, so that a reader never sees half of it.
func WriteReportFile(path string, rep Report) error {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	return childproc.WriteAtomic(path, append(b, '\n'))
}
