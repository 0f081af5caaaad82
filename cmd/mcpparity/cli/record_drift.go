package cli

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/mcpparity/mcpparity/internal/scripted"
)

// writeDrift reports each fixture of a drift check, drifted or not,
// then a total line that starts with what (the command); accept is the
// command that records them again. It
// returns the exit code: 0 when every recording matches (volatile fields
// aside), 1 otherwise.
func writeDrift(w io.Writer, checked []scripted.Checked, what, accept string) int {
	var drifted, failed int
	for _, c := range checked {
		switch {
		case c.Err != nil:
			failed++
			fmt.Fprintf(w, "error  %s: %v\n", c.Name, c.Err)
		case c.Drift.Drifted():
			drifted++
			fmt.Fprintf(w, "drift  %s: %d difference(s) outside the volatile fields\n%s", c.Name, len(c.Drift.Diffs), c.Drift)
		default:
			fmt.Fprintf(w, "ok     %s: as stored", c.Name)
			if v := c.Drift.VolatilePaths(); len(v) > 0 {
				fmt.Fprintf(w, ", %d volatile field(s) changed:\n  %s", len(v), strings.Join(v, "\n  "))
			}
			fmt.Fprintln(w)
		}
	}
	if drifted+failed == 0 {
		fmt.Fprintf(w, "%s: the %d fixture(s) match a fresh recording\n", what, len(checked))
		return 0
	}
	var parts []string
	if drifted > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d fixture(s) drifted (to accept: %s)", drifted, len(checked), accept))
	}
	if failed > 0 {
		parts = append(parts, fmt.Sprintf("%d of %d could not be made again", failed, len(checked)))
	}
	fmt.Fprintf(w, "%s: %s\n", what, strings.Join(parts, "; "))
	return 1
}

// relativeTo names path as below the folder the user gave (given) rather
// than its absolute form (abs).
func relativeTo(path, abs, given string) string {
	rel, err := filepath.Rel(abs, path)
	if err != nil || strings.HasPrefix(rel, "..") {
		return path
	}
	return filepath.Join(given, rel)
}
