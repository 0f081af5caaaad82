package impl

import (
	"regexp"
	"strings"
)

// ToolPrefix starts every exposed tool name.
const ToolPrefix = "mcp__"

var unsafeRun = regexp.MustCompile(`[^a-zA-Z0-9_-]+`)

// Sanitize implements P7's sanitize: each run of characters outside
// [a-zA-Z0-9_-] becomes "_", then "_" is trimmed from both ends.
func Sanitize(s string) string {
	return strings.Trim(unsafeRun.ReplaceAllString(s, "_"), "_")
}

// ExposedName implements P7: mcp__<sanitize(server)>__<sanitize(tool)>.
func ExposedName(server, tool string) string {
	return ToolPrefix + Sanitize(server) + "__" + Sanitize(tool)
}

// OriginServer returns the server, among servers (tried in order), whose
// exposed names would carry the prefix of exposed.
func OriginServer(exposed string, servers []string) (string, bool) {
	if !strings.HasPrefix(exposed, ToolPrefix) {
		return "", false
	}
	for _, s := range servers {
		if strings.HasPrefix(exposed, ToolPrefix+Sanitize(s)+"__") {
			return s, true
		}
	}
	return "", false
}
