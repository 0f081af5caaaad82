package scripted

import (
	"fmt"
	"strings"

	"github.com/mcpparity/mcpparity/impl"
)

// The outcomes a call of a script expects.
const (
	// expectResult: a result without isError.
	expectResult = "result"
	// expectToolError: a result with isError (how most SDKs report a
	// tool that failed, and bad arguments).
	expectToolError = "tool-error"
	// expectRPCError: a JSON-RPC error answer; the pool retries it once
	// after reconnecting (P10.3), and both tries are recorded.
	expectRPCError = "rpc-error"
	// ExpectUnknown: no client of the recording could call the tool.
	expectUnknown = "unknown tool"
)

// Call is one call of a recording script.
type Call struct {
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
	// Expect is the call's outcome: ExpectResult, ExpectToolError or
	// ExpectRPCError; empty, a result or a tool error.
	Expect string `json:"expect,omitempty"`
	// Fails is the former spelling of "expect": "rpc-error".
	Fails bool `json:"fails,omitempty"`
	// Volatile names the fields of the call's result expected to change
	// from one recording to the next (a time, a counter), by path in the
	// result as check names paths ("content[0].text",
	// "structuredContent.datetime"; * matches anything): a drift check
	// accepts a change there, and below.
	Volatile []string `json:"volatile,omitempty"`
}

// expected names the outcomes the call accepts.
func (c Call) expected() string {
	switch {
	case c.Fails:
		return expectRPCError
	case c.Expect == "":
		return expectResult + " or " + expectToolError
	}
	return c.Expect
}

// accepts reports whether outcome is one the call expects.
func (c Call) accepts(outcome string) bool {
	if c.Expect == "" && !c.Fails {
		return outcome == expectResult || outcome == expectToolError
	}
	return outcome == c.expected()
}

// validateCalls refuses a call without tool or with an outcome it does not
// know.
func validateCalls(calls []Call) error {
	for i, c := range calls {
		switch {
		case c.Tool == "":
			return fmt.Errorf("calls[%d]: no tool", i)
		case c.Expect != "" && c.Expect != expectResult && c.Expect != expectToolError && c.Expect != expectRPCError:
			return fmt.Errorf("calls[%d] (%s): expect %q: want %q, %q or %q", i, c.Tool, c.Expect, expectResult, expectToolError, expectRPCError)
		case c.Fails && c.Expect != "" && c.Expect != expectRPCError:
			return fmt.Errorf("calls[%d] (%s): \"fails\": true is \"expect\": %q, not %q", i, c.Tool, expectRPCError, c.Expect)
		}
		for _, f := range c.Volatile {
			if f == "" || strings.HasPrefix(f, ".") || strings.HasPrefix(f, "result.") {
				return fmt.Errorf("calls[%d] (%s): volatile %q: want a path in the call's result, e.g. \"content[0].text\" or \"structuredContent.datetime\"", i, c.Tool, f)
			}
		}
	}
	return nil
}

// outcomeOf reads a call's outcome from the pool's output (P9, P10, P13).
func outcomeOf(output string) string {
	switch {
	case strings.HasPrefix(output, impl.UnknownToolPrefix):
		return expectUnknown
	case strings.HasPrefix(output, impl.CallErrorPrefix):
		return expectRPCError
	case strings.HasPrefix(output, impl.ToolErrorPrefix):
		return expectToolError
	}
	return expectResult
}
