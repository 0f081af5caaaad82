package impl

import (
	"encoding/json"
)

// labelKeys are tried in order for a call label (P15).
var labelKeys = []string{"path", "file", "query", "command", "url", "name"}

const labelMaxRunes = 120

// CallLabel implements P15: the first non-empty string among path, file,
// query, command, url, name, as sent (white space only is taken); else the arguments' JSON cut at 120 runes
// followed by "…"; no arguments give "".
func CallLabel(args map[string]any) string {
	if len(args) == 0 {
		return ""
	}
	for _, k := range labelKeys {
		if s, ok := args[k].(string); ok && s != "" {
			return s
		}
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return ""
	}
	s := string(raw)
	if r := []rune(s); len(r) > labelMaxRunes {
		return string(r[:labelMaxRunes]) + "…"
	}
	return s
}
