package fuzz

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
)

// The forms a seeded store's text may have on a user's disk (C8.3,
// C8.4), besides JSON as Go writes it.
const (
	diskJSON     = iota
	diskTwice    // a server named twice, a throwaway one first: the later wins
	diskNulls    // a field given twice, the later null: a list or map emptied
	diskTrailing // stray bytes after the value: no servers
	diskCut      // cut short by a partial write: no servers
	diskBOM      // a byte order mark before the value: no servers
	diskSpace    // white space around the value: read as is
)

// diskFields are the fields a diskNulls text gives twice.
var diskFields = []string{"args", "env", "headers", "disabledTools", "enabled", "command", "url"}

// diskTrailers are stray bytes after a stored value.
var diskTrailers = []string{" x", "{}", "\n]", "\x00", " null", "\n{\"a\":{}}"}

// disk is how the seed's text is written: its form and the choices the
// form reads (all drawn in every sequence, so that the shrinker dropping
// one leaves the others where they were).
type disk struct {
	form, server, field, cut int
	trailer                  string
}

func drawDisk(h *stream) disk {
	return disk{form: h.pick(14, 2, 2, 1, 1, 1, 1), server: h.intn(1 << 10), field: h.intn(len(diskFields)),
		cut: 1 + h.intn(98), trailer: oneOf(h, diskTrailers)}
}

// text writes the servers of obj, names sorted, in the disk's form.
func (d disk) text(obj map[string]any) string {
	names := slices.Sorted(maps.Keys(obj))
	var b strings.Builder
	b.WriteByte('{')
	for i, name := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		key, _ := json.Marshal(name)
		entry, _ := json.Marshal(obj[name])
		chosen := i == d.server%len(names)
		if chosen && d.form == diskTwice {
			b.Write(key)
			b.WriteString(`: {"command": "mcpparity-first-missing", "args": ["first"]}, `)
		}
		if chosen && d.form == diskNulls && len(entry) > 1 && entry[0] == '{' {
			sep := ", "
			if string(entry) == "{}" {
				sep = ""
			}
			entry = []byte(string(entry[:len(entry)-1]) + sep + `"` + d.nulled(entry) + `": null}`)
		}
		b.Write(key)
		b.WriteString(": ")
		b.Write(entry)
	}
	b.WriteByte('}')
	text := b.String()
	switch d.form {
	case diskTrailing:
		text += d.trailer
	case diskCut:
		text = text[:len(text)*d.cut/100]
	case diskBOM:
		text = "\ufeff" + text
	case diskSpace:
		text = " \n\t" + text + "\n "
	}
	return text
}

// nulled is the field a diskNulls entry gives twice. A replay's args are
// not emptied: the harness started without them exits at once, and
// whether the pool then reads the end of its output or fails to write is
// the machine's timing (EOF or a broken pipe); its env is emptied instead.
func (d disk) nulled(entry []byte) string {
	f := diskFields[d.field]
	if f == "args" && strings.Contains(string(entry), `"command":"{cmd:`) {
		return "env"
	}
	return f
}
