// Package sdkdebug gives the reference the go-sdk v1.6.1 behaviour of the
// Go pool where v1.8.0 keeps it behind a compatibility option: a request
// given up on (a call past its bound, P10.2) is cancelled before the call
// returns, so that notifications/cancelled reaches the server before the
// pool closes that session (v1.8.0 sends it in the background, racing with
// the close).
//
// The go-sdk reads MCPGODEBUG once, in the init of its internal
// mcpgodebug package. This package sets the option in its own init, which
// runs first: it imports only packages that one imports too, and Go
// initializes, among the packages ready, the first by import path
// ("github.com/mcpparity/…" before "github.com/modelcontextprotocol/…").
package sdkdebug

import (
	"os"
	"strings"
)

// Var is the go-sdk's compatibility variable; Option the one set.
const (
	Var    = "MCPGODEBUG"
	Option = "blockingcancelnotify=1"
)

func init() {
	v := os.Getenv(Var)
	if strings.Contains(v, "blockingcancelnotify=") {
		return // the user's own choice stands
	}
	if v != "" {
		v += ","
	}
	os.Setenv(Var, v+Option)
}
