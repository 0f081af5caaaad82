//go:build !linux

package replay

// endWithParent has no kernel support here: the end of stdin ends a stdio
// replay.
func endWithParent() bool { return true }
