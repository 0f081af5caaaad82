package recorder

import (
	"reflect"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
)

// TestBySessionOrderIsStable: a reconnection whose old DELETE reaches the
// recorder before or after the new initialize gives the same exchanges.
func TestBySessionOrderIsStable(t *testing.T) {
	ex := func(method, reqSession, respSession string, events ...int) fixtures.Exchange {
		e := fixtures.Exchange{Request: fixtures.Request{Method: method, Headers: map[string]string{}},
			Response: fixtures.Response{Status: 200, Headers: map[string]string{}}}
		if reqSession != "" {
			e.Request.Headers["Mcp-Session-Id"] = reqSession
		}
		if respSession != "" {
			e.Response.Headers["Mcp-Session-Id"] = respSession
		}
		for _, a := range events {
			e.Response.Events = append(e.Response.Events, fixtures.Event{After: a})
		}
		return e
	}
	number := func(exs []fixtures.Exchange) []fixtures.Exchange {
		for i := range exs {
			exs[i].Seq = i + 1
		}
		return exs
	}
	// DELETE of A before B's initialize.
	first := number([]fixtures.Exchange{
		ex("POST", "", "A", 1), ex("GET", "A", "", 2), ex("POST", "A", "", 3),
		ex("DELETE", "A", ""), ex("POST", "", "B", 5), ex("GET", "B", "", 6),
	})
	// The same, B's initialize first: the events' positions follow.
	second := number([]fixtures.Exchange{
		ex("POST", "", "A", 1), ex("GET", "A", "", 2), ex("POST", "A", "", 3),
		ex("POST", "", "B", 4), ex("DELETE", "A", ""), ex("GET", "B", "", 6),
	})
	a, b := bySession(first), bySession(second)
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("two arrival orders give two recordings:\n%+v\n%+v", a, b)
	}
	if a[3].Request.Method != "DELETE" || a[4].Seq != 5 || a[5].Response.Events[0].After != 6 {
		t.Errorf("grouped: %+v", a)
	}
}
