package compare

import (
	"regexp"
	"strings"
)

// GlobMatch reports whether s matches pattern, where * matches any run of
// characters and everything else itself: the form of a deviation's path
// and scenario, and of a call script's volatile fields.
func GlobMatch(pattern, s string) bool {
	re := "^" + strings.ReplaceAll(regexp.QuoteMeta(pattern), `\*`, ".*") + "$"
	ok, err := regexp.MatchString(re, s)
	return err == nil && ok
}
