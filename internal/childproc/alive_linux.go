package childproc

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
)

// Alive reports whether a process of the group pgid is alive (a zombie is
// not: nobody may be left to reap it).
func Alive(pgid int) bool {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp …; comm may hold spaces and parens.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) >= 3 && string(f[0]) != "Z" && string(f[2]) == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}
