package suite

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// mask applies a step's masks to its observation: a string at a path that
// starts with the path's prefix is cut after the prefix, followed by "…".
func mask(o *Observation, masks map[string]string) error {
	if len(masks) == 0 {
		return nil
	}
	paths := map[string][]any{}
	for path := range masks {
		keys, err := splitPath(path)
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

var pathPart = regexp.MustCompile(`^([^.\[\]]+)?((?:\[\d+\])*)$`)

// splitPath reads "body.servers[2].error" as ["body","servers",2,"error"].
func splitPath(path string) ([]any, error) {
	var out []any
	for _, part := range strings.Split(path, ".") {
		m := pathPart.FindStringSubmatch(part)
		if m == nil || m[1] == "" && m[2] == "" {
			return nil, fmt.Errorf("bad path element %q", part)
		}
		if m[1] != "" {
			out = append(out, m[1])
		}
		for _, idx := range regexp.MustCompile(`\d+`).FindAllString(m[2], -1) {
			i, _ := strconv.Atoi(idx)
			out = append(out, i)
		}
	}
	return out, nil
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
func rewrite(o *Observation, fn func(any) any) error {
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
	*o = Observation{}
	return json.Unmarshal(raw, o)
}
