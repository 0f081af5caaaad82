package runner

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mcpparity/mcpparity/internal/scenario"
)

// mask applies a step's masks to its observation: a string at a path that
// starts with the path's prefix is cut after the prefix, followed by "…".
func mask(o *scenario.Observation, masks map[string]string) error {
	if len(masks) == 0 {
		return nil
	}
	paths := map[string][]any{}
	for path := range masks {
		keys, err := scenario.SplitPath(path)
		if err != nil {
			return fmt.Errorf("mask %q: %w", path, err)
		}
		paths[path] = keys
	}
	return rewrite(o, func(v any) any {
		for path, prefix := range masks {
			v = maskAt(v, paths[path], prefix)
		}
		return v
	})
}

func maskAt(v any, keys []any, prefix string) any {
	if len(keys) == 0 {
		if s, ok := v.(string); ok && strings.HasPrefix(s, prefix) {
			return prefix + "…"
		}
		return v
	}
	switch k := keys[0].(type) {
	case string:
		if m, ok := v.(map[string]any); ok {
			if c, ok := m[k]; ok {
				m[k] = maskAt(c, keys[1:], prefix)
			}
		}
	case int:
		if a, ok := v.([]any); ok && k < len(a) {
			a[k] = maskAt(a[k], keys[1:], prefix)
		}
	}
	return v
}

// rewrite applies fn to o as plain JSON values (map[string]any, []any, …).
func rewrite(o *scenario.Observation, fn func(any) any) error {
	raw, err := json.Marshal(o)
	if err != nil {
		return err
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	raw, err = json.Marshal(fn(v))
	if err != nil {
		return err
	}
	*o = scenario.Observation{}
	return json.Unmarshal(raw, o)
}
