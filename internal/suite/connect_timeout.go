package suite

import (
	"fmt"
	"os"
	"sort"
	"time"
)

// ConnectTimeoutVar is the environment variable through which the harness
// shortens a target's handshake deadline (P3), so that the timeout
// scenarios run in a fraction of a second. A target reads it at start.
const ConnectTimeoutVar = "MCPPARITY_CONNECT_TIMEOUT"

// ConnectTimeoutFromEnv reads ConnectTimeoutVar from vars (0 when absent).
func ConnectTimeoutFromEnv(vars map[string]string) (time.Duration, error) {
	v, ok := vars[ConnectTimeoutVar]
	if !ok || v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("%s=%q: want a positive duration", ConnectTimeoutVar, v)
	}
	return d, nil
}

// baseEnv is the service environment of an in-process target: the
// process's environment plus vars.
func baseEnv(vars map[string]string) []string {
	env := os.Environ()
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		env = append(env, k+"="+vars[k])
	}
	return env
}
