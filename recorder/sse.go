package recorder

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxEventBytes bounds one server-sent event.
const maxEventBytes = 64 << 20

// sseEvent is one event block as read: its raw bytes (forwarded unchanged)
// and its fields.
type sseEvent struct {
	raw     []byte
	comment string
	event   string
	id      string
	data    string
	hasData bool
}

// sseReader splits a text/event-stream body into event blocks.
type sseReader struct {
	r *bufio.Reader
}

func newSSEReader(r io.Reader) *sseReader { return &sseReader{bufio.NewReaderSize(r, 32<<10)} }

// next returns the next complete event block. At the end of the body it
// returns io.EOF when the stream ended cleanly (a partial block, which SSE
// discards, is returned in raw with a nil event so it can still be
// forwarded), or the read error.
func (s *sseReader) next() (*sseEvent, []byte, error) {
	var raw []byte
	var comments, data []string
	fields := 0
	ev := &sseEvent{}
	for {
		line, err := s.r.ReadBytes('\n')
		raw = append(raw, line...)
		if len(raw) > maxEventBytes {
			return nil, raw, fmt.Errorf("server-sent event over %d bytes", maxEventBytes)
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, raw, io.EOF
			}
			return nil, raw, err
		}
		text := string(bytes.TrimRight(line, "\r\n"))
		if text == "" {
			if fields == 0 {
				// A stray blank line between events: forwarded with the next one.
				continue
			}
			ev.raw = raw
			ev.comment = joinLines(comments)
			ev.data = joinLines(data)
			ev.hasData = data != nil
			return ev, nil, nil
		}
		fields++
		field, value := text, ""
		if i := strings.IndexByte(text, ':'); i >= 0 {
			field, value = text[:i], text[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch field {
		case "":
			comments = append(comments, value)
		case "event":
			ev.event = value
		case "id":
			ev.id = value
		case "data":
			data = append(data, value)
		}
	}
}

func joinLines(lines []string) string { return strings.Join(lines, "\n") }
