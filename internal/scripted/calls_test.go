package scripted

import (
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/impl"
)

// A call's expected outcome tells a tool error from a JSON-RPC error;
// without one, any answer of the tool passes.
func TestCallExpectations(t *testing.T) {
	outputs := map[string]string{
		expectResult:    "bonjour",
		expectToolError: impl.ToolErrorPrefix + "the tool failed on purpose",
		expectRPCError:  impl.CallErrorPrefix + `calling "tools/call": boom`,
		expectUnknown:   impl.UnknownToolPrefix + "mcp__s__x",
	}
	cases := []struct {
		call Call
		want []string // outcomes accepted
	}{
		{Call{Tool: "t"}, []string{expectResult, expectToolError}},
		{Call{Tool: "t", Expect: expectResult}, []string{expectResult}},
		{Call{Tool: "t", Expect: expectToolError}, []string{expectToolError}},
		{Call{Tool: "t", Expect: expectRPCError}, []string{expectRPCError}},
		{Call{Tool: "t", Fails: true}, []string{expectRPCError}},
	}
	for _, c := range cases {
		for outcome, out := range outputs {
			if got := outcomeOf(out); got != outcome {
				t.Fatalf("outcomeOf(%q) = %q, want %q", out, got, outcome)
			}
			want := false
			for _, w := range c.want {
				want = want || w == outcome
			}
			if c.call.accepts(outcome) != want {
				t.Errorf("%+v accepts %s: %v, want %v", c.call, outcome, !want, want)
			}
		}
	}
	bad := map[string][]Call{
		"no tool":          {{Expect: expectResult}},
		`expect "failure"`: {{Tool: "t", Expect: "failure"}},
		`"fails": true is`: {{Tool: "t", Fails: true, Expect: expectToolError}},
	}
	for want, calls := range bad {
		if err := validateCalls(calls); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("checkCalls(%+v) = %v, want an error with %q", calls, err, want)
		}
	}
}
