package replay

import (
	"crypto/rand"
	"sync"
)

// session is one live HTTP session: its pending server requests and the
// frames waiting for its standalone GET stream.
type session struct {
	*peer
	id string

	mu     sync.Mutex
	outbox [][]byte
	wake   chan struct{}
}

func newSession() *session {
	return &session{peer: newPeer(), id: rand.Text(), wake: make(chan struct{}, 1)}
}

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

// sseFrame renders one server-sent event.
func sseFrame(st *step, data []byte) []byte {
	if st.kind == stepComment {
		return []byte(": " + st.comment + "\n\n")
	}
	n := len(data) + 16 + len(st.event) + len(st.evID)
	b := make([]byte, 0, n)
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
	b = append(b, "data: "...)
	b = append(b, data...)
	return append(b, '\n', '\n')
}
