package replay

import (
	"bytes"
	"crypto/rand"
	"strings"
	"sync"
	"sync/atomic"
)

// session is one live HTTP session: its pending server requests and the
// frames waiting for its standalone GET stream.
type session struct {
	*peer
	id      string
	used    atomic.Int64 // when last looked up (Replay.tick), for eviction
	streams atomic.Int32 // standalone GET streams open
	// initialized is set by the client's notifications/initialized.
	initialized atomic.Bool

	mu     sync.Mutex
	outbox [][]byte
	wake   chan struct{}
}

func newSession() *session {
	return &session{peer: newPeer(), id: rand.Text(), wake: make(chan struct{}, 1)}
}

// streaming reports whether a standalone GET stream is open.
func (s *session) streaming() bool { return s.streams.Load() > 0 }

// push queues an SSE frame for the GET stream (sent when it is open).
func (s *session) push(frame []byte) {
	s.mu.Lock()
	s.outbox = append(s.outbox, frame)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

func (s *session) drain() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.outbox
	s.outbox = nil
	return out
}

// sseFrame renders one server-sent event. Comments and data may hold
// several lines; each gets its own field line.
func sseFrame(st *step, data []byte) []byte {
	if st.kind == stepComment {
		var b []byte
		for _, line := range strings.Split(st.comment, "\n") {
			b = append(b, ": "...)
			b = append(b, line...)
			b = append(b, '\n')
		}
		return append(b, '\n')
	}
	b := make([]byte, 0, len(data)+16+len(st.event)+len(st.evID))
	if st.event != "" {
		b = append(b, "event: "...)
		b = append(b, st.event...)
		b = append(b, '\n')
	}
	if st.evID != "" {
		b = append(b, "id: "...)
		b = append(b, st.evID...)
		b = append(b, '\n')
	}
	for {
		line, rest, more := bytes.Cut(data, []byte{'\n'})
		b = append(b, "data: "...)
		b = append(b, line...)
		b = append(b, '\n')
		if !more {
			break
		}
		data = rest
	}
	return append(b, '\n')
}
