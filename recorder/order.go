package recorder

import (
	"net/http"

	"github.com/mcpparity/mcpparity/fixtures"
)

// bySession puts the exchanges of each session together, sessions in the
// order they began, each session's exchanges in the order they arrived,
// and renumbers them. Two sessions of one client (a reconnection) overlap
// in time: which of the old session's DELETE and the new session's
// initialize reaches the recorder first is chance. Grouped, a recording is
// the same every time the client behaves the same in each session. An
// event is then placed after the last request of its own session that had
// arrived when it was sent.
//
// An exchange without a session id (initialize, a server/discover before
// it) belongs to the session its answer opens, else to the next session
// to begin.
func bySession(in []fixtures.Exchange) []fixtures.Exchange {
	session := make([]string, len(in))
	for i, ex := range in {
		session[i] = sessionOf(ex.Request.Headers)
		if session[i] == "" {
			session[i] = sessionOf(ex.Response.Headers)
		}
	}
	for i := len(in) - 2; i >= 0; i-- {
		if session[i] == "" {
			session[i] = session[i+1]
		}
	}
	var order []string
	members := map[string][]int{}
	for i, s := range session {
		if _, ok := members[s]; !ok {
			order = append(order, s)
		}
		members[s] = append(members[s], i)
	}
	var idx []int
	for _, s := range order {
		idx = append(idx, members[s]...)
	}
	newSeq := make([]int, len(in)) // by old index
	for n, i := range idx {
		newSeq[i] = n + 1
	}
	out := make([]fixtures.Exchange, 0, len(in))
	for _, i := range idx {
		ex := in[i]
		ex.Seq = newSeq[i]
		var evs []fixtures.Event
		for _, e := range ex.Response.Events {
			// The last request of this session at or before the event's.
			after := 0
			for _, j := range members[session[i]] {
				if in[j].Seq <= e.After {
					after = newSeq[j]
				}
			}
			e.After = after
			evs = append(evs, e)
		}
		ex.Response.Events = evs
		out = append(out, ex)
	}
	return out
}

// sessionOf is the Mcp-Session-Id of headers ("" when none).
func sessionOf(h map[string]string) string {
	for k, v := range h {
		if http.CanonicalHeaderKey(k) == "Mcp-Session-Id" {
			return v
		}
	}
	return ""
}
