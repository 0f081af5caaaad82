package suite

import "fmt"

// How a step's answer is compared (Step.Compare). What the UI and the agent
// send is compared exactly; bad input is a robustness property, compared
// loosely, so that the Go pool's lenient handlers and a stricter
// implementation both pass (docs/contract.md, H1).
const (
	// CompareExact compares the status, the body and the named headers.
	CompareExact = ""
	// CompareRefusal keeps the status and the body's ok, and an error that
	// is a non-empty string becomes "…": a refusal whose text is the
	// implementation's own.
	CompareRefusal = "refusal"
	// CompareAnswered keeps only whether the answer came with a status
	// below 500: any answer of the implementation's own.
	CompareAnswered = "answered"
	// CompareStatus keeps the status alone.
	CompareStatus = "status"
)

// answered is the body of an answer compared as CompareAnswered.
const answered = "answered below 500"

func validCompare(c string) bool {
	switch c {
	case CompareExact, CompareRefusal, CompareAnswered, CompareStatus:
		return true
	}
	return false
}

// loosen reduces an answer's observation to what its step compares. A
// failure (no answer) is kept whatever the mode.
func loosen(o *Observation, mode string) {
	if o.Status == 0 || mode == CompareExact {
		return
	}
	switch mode {
	case CompareRefusal:
		o.Headers = nil
		o.Body = refusalBody(o.Body)
	case CompareAnswered:
		if o.Status < 500 {
			o.Status, o.Headers, o.Body = 0, nil, answered
		}
	case CompareStatus:
		o.Headers, o.Body = nil, nil
	}
}

// refusalBody keeps ok and error of a JSON object, the error masked when
// it is a non-empty string; any other body is kept for the diff to show.
func refusalBody(body any) any {
	m, ok := body.(map[string]any)
	if !ok {
		return body
	}
	out := map[string]any{}
	if v, ok := m["ok"]; ok {
		out["ok"] = v
	}
	if v, ok := m["error"]; ok {
		if s, isText := v.(string); isText && s != "" {
			v = "…"
		}
		out["error"] = v
	}
	return out
}

func checkCompare(st Step) error {
	if !validCompare(st.Compare) {
		return fmt.Errorf("step %q: compare %q: want %q, %q or %q", st.Name, st.Compare, CompareRefusal, CompareAnswered, CompareStatus)
	}
	if st.Compare != CompareExact && st.Method == "" {
		return fmt.Errorf("step %q: compare is for a request", st.Name)
	}
	return nil
}
