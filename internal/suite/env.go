package suite

import (
	"os"
	"sort"
)

// baseEnv is the service environment of an in-process target: the
// process's environment plus vars.
func baseEnv(vars map[string]string) []string {
	env := os.Environ()
	for _, k := range sortedKeys(vars) {
		env = append(env, k+"="+vars[k])
	}
	return env
}

// sortedKeys returns the keys of m, sorted.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
