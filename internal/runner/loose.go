package runner

import "github.com/mcpparity/mcpparity/internal/scenario"

// answered is the body of an answer compared as CompareAnswered.
const answered = "answered below 500"

// loosen reduces an answer's observation to what its step compares. A
// failure (no answer) is kept whatever the mode.
func loosen(o *scenario.Observation, mode string) {
	if o.Status == 0 || mode == scenario.CompareExact {
		return
	}
	switch mode {
	case scenario.CompareRefusal:
		o.Headers = nil
		o.Body = refusalBody(o.Body)
	case scenario.CompareAnswered:
		if o.Status < 500 {
			o.Status, o.Headers, o.Body = 0, nil, answered
		}
	case scenario.CompareStatus:
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
