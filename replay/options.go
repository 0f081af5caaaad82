package replay

import "time"

// DefaultMaxLineBytes bounds one stdio line from the client when
// Options.MaxLineBytes is zero: 8 MiB, as one HTTP request body.
const DefaultMaxLineBytes = 8 << 20

// DefaultMaxSessions bounds the live HTTP sessions when
// Options.MaxSessions is zero.
const DefaultMaxSessions = 1000

// DefaultAnswerTimeout bounds the wait for the client's answer to a server
// request (a ping) when Options.AnswerTimeout is zero.
const DefaultAnswerTimeout = 5 * time.Second

// Options configure a replay. The zero value is usable.
type Options struct {
	// IgnorePaths are left out when comparing params; nil means
	// DefaultIgnorePaths. Syntax: "params.a.b", "*" matches any field or
	// array element. Pass an empty non-nil slice to compare everything.
	IgnorePaths []string
	// AnswerTimeout bounds the wait for the client's answer to a server
	// request; 0 means DefaultAnswerTimeout.
	AnswerTimeout time.Duration
	// Faults to inject (see ParseFault).
	Faults []Fault
	// RequireHeaders: every HTTP request must carry these headers with
	// these exact values; a missing or different one is reported and the
	// request answered with an error (CodeHeaderMismatch).
	RequireHeaders map[string]string
	// OnReceive, if set, is told the method of every request and
	// notification received, before faults and matching: a harness waits
	// on it to act while a request is held.
	OnReceive func(method string)
	// MaxLineBytes bounds one stdio line from the client, its newline
	// aside; 0 means DefaultMaxLineBytes. A longer line is dropped as it is
	// read (never held in memory), answered with a CodeParseError error
	// (id null) that names the limit, and reported as unmatched; the replay
	// goes on with the next line.
	MaxLineBytes int
	// MaxSessions bounds the live HTTP sessions (initialized, not deleted);
	// 0 means DefaultMaxSessions. A new session past the bound evicts the
	// least recently used one: its GET stream ends and its next request
	// gets 404 "session not found", as from a restarted server (a client
	// initializes again). Report.Evicted counts them.
	MaxSessions int
	// Checkpoint, if set, is given the stdio report so far before the
	// answer to a handshake (initialize, server/discover) goes out: a
	// client that ends the server as soon as it reads that answer (a
	// refused handshake is ended at once) still leaves a report of it.
	Checkpoint func(Report)
}

func (o *Options) maxLineBytes() int {
	if o.MaxLineBytes > 0 {
		return o.MaxLineBytes
	}
	return DefaultMaxLineBytes
}

func (o *Options) maxSessions() int {
	if o.MaxSessions > 0 {
		return o.MaxSessions
	}
	return DefaultMaxSessions
}

func (o *Options) answerTimeout() time.Duration {
	if o.AnswerTimeout > 0 {
		return o.AnswerTimeout
	}
	return DefaultAnswerTimeout
}

func (o *Options) ignorePaths() []string {
	if o.IgnorePaths == nil {
		return DefaultIgnorePaths
	}
	return o.IgnorePaths
}
