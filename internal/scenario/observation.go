package scenario

// ProcessCount is what a scenario observes of a stdio replay's processes:
// how many the target started, and how many are still running (P2: a
// client ends what it started, also when a connection attempt is dropped).
type ProcessCount struct {
	Started int `json:"started"`
	Alive   int `json:"alive"`
}

// ReplayObservation is what a scenario observes of a replay: how many
// sessions it opened and what went wrong.
type ReplayObservation struct {
	Sessions int `json:"sessions"`
	// Ended, for an HTTP replay, counts the sessions the target ended
	// (DELETE), when it closed them and when it stopped (P2.5, S1.1).
	Ended            *int     `json:"ended,omitempty"`
	Calls            int      `json:"calls"`
	Answers          int      `json:"answers"`
	Unmatched        []string `json:"unmatched,omitempty"`
	HeaderMismatches []string `json:"headerMismatches,omitempty"`
	MissingAnswers   []string `json:"missingAnswers,omitempty"`
	EnvMismatches    []string `json:"envMismatches,omitempty"`
	Faults           []string `json:"faults,omitempty"`
	// Cancelled counts the notifications/cancelled the replay got, for a
	// server whose scenario asks for it (ServerSpec.Cancellations).
	Cancelled *int `json:"cancelled,omitempty"`
}

// Observation is what one step saw.
type Observation struct {
	Step    string            `json:"step"`
	Status  int               `json:"status,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    any               `json:"body,omitempty"`
	Store   any               `json:"store,omitempty"`
	// Failures are what the harness could not observe because the target
	// did not do it: no answer, a process never started, a request never
	// sent. A reference never has any: each one is a divergence.
	Failures  []string                     `json:"failures,omitempty"`
	Replays   map[string]ReplayObservation `json:"replays,omitempty"`
	Processes map[string]ProcessCount      `json:"processes,omitempty"`
	Alive     map[string]int               `json:"alive,omitempty"`
	Parallel  []Observation                `json:"parallel,omitempty"`
}
