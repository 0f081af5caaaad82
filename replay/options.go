package replay

import "time"

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
