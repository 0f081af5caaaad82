package target

import (
	"maps"
	"os"
	"slices"
)

// baseEnv is the service environment of an in-process target: the
// process's environment plus vars.
func baseEnv(vars map[string]string) []string {
	env := os.Environ()
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		env = append(env, k+"="+vars[k])
	}
	return env
}
