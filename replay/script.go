package replay

import "math"

// stepKind is what one step of a script does.
type stepKind uint8

const (
	stepEmit    stepKind = iota // send a server notification or request
	stepRespond                 // send the answer to the triggering request
	stepAwait                   // wait for the client's answer to an earlier emitted request
	stepComment                 // SSE comment line (HTTP only)
)

// step is one recorded server action.
type step struct {
	kind    stepKind
	m       *message
	onGET   bool   // HTTP: goes on the session's GET stream
	event   string // SSE event name
	evID    string // SSE event id
	comment string
	ref     int          // stepAwait: index of the emit it waits for
	at      int          // timeline position, see script.add
	seq     int          // where it was recorded (exchange seq or line number)
	answer  *interaction // emitted server request: the recorded client answer, if any
	// tail (stdio, emitted server request): its recorded answer came
	// after the server's last answer to its client, which then awaited
	// nothing more: whether a client answers before it closes is a race,
	// so its await is optional.
	tail bool
	// optional (stepAwait): the fixture holds no answer to this request
	// (the recorded client left first), so a session ending before the
	// answer is not a problem; an answer given is still checked.
	optional bool
}

// script is what the server did in answer to one client message, in order.
type script struct {
	steps []step
	open  []int // emitted server requests not awaited yet
}

// atEnd is the position of a step known to come after everything else.
const atEnd = math.MaxInt

// add appends st. Server requests emitted earlier whose recorded answer
// arrived at or before st's position are awaited first: positions are
// exchange seqs (HTTP: Event.After) or line indexes (stdio).
func (s *script) add(st step) {
	kept := s.open[:0]
	for _, i := range s.open {
		if a := s.steps[i].answer; a != nil && a.pos <= st.at || st.at == atEnd {
			s.steps = append(s.steps, s.await(i))
		} else {
			kept = append(kept, i)
		}
	}
	s.open = kept
	s.steps = append(s.steps, st)
	if st.kind == stepEmit && st.m.isRequest() {
		s.open = append(s.open, len(s.steps)-1)
	}
}

// finish awaits every request still open, so a missing answer is reported
// (unless the recording has none either).
func (s *script) finish() {
	for _, i := range s.open {
		s.steps = append(s.steps, s.await(i))
	}
	s.open = nil
}

// await is the step that awaits the answer to emitted request i:
// optional when the fixture holds none or holds it at its tail.
func (s *script) await(i int) step {
	e := s.steps[i]
	return step{kind: stepAwait, ref: i, m: e.m, seq: e.seq, optional: e.answer == nil || e.tail}
}

// answerBook links server requests of the recording to the client answers
// recorded after them (same id, first later one).
type answerBook struct {
	byID map[string][]*interaction
}

func (b *answerBook) put(id []byte, it *interaction) {
	if b.byID == nil {
		b.byID = map[string][]*interaction{}
	}
	b.byID[string(id)] = append(b.byID[string(id)], it)
}

// claim returns the first unclaimed answer to id recorded after pos.
func (b *answerBook) claim(id []byte, pos int) *interaction {
	list := b.byID[string(id)]
	for i, it := range list {
		if it != nil && it.pos > pos {
			list[i] = nil
			return it
		}
	}
	return nil
}
