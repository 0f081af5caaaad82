package replay

import (
	"context"
	"testing"
)

// An optional server request (recorded without an answer, as the session
// ended) that is still pending when the connection's context ends — the
// replay got SIGTERM with its client — is no problem, and neither is the
// answer that comes after it.
func TestOptionalRequestEndedWithTheContext(t *testing.T) {
	e, err := newEngine("waive", Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := newPeer()
	st := &step{kind: stepEmit, m: &message{method: "roots/list", id: []byte("0")}}
	pd := p.register(st)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	e.await(ctx, p, pd, &step{kind: stepAwait, m: st.m, optional: true})
	if rep := e.report(); len(rep.MissingAnswers) > 0 {
		t.Errorf("missing answers: %+v, want none for an optional request", rep.MissingAnswers)
	}
	in := &incoming{ID: []byte("0"), Result: []byte(`{"roots":[]}`)}
	if got := p.deliver(in); got != nil || !p.late(in.ID) {
		t.Errorf("a late answer: delivered to %v, late %v; want none, late", got, p.late(in.ID))
	}
	// A request that is not optional is still reported.
	pd = p.register(&step{kind: stepEmit, m: &message{method: "ping", id: []byte("1")}})
	e.await(ctx, p, pd, &step{kind: stepAwait, m: &message{method: "ping"}})
	if rep := e.report(); len(rep.MissingAnswers) != 1 {
		t.Errorf("missing answers: %+v, want the ping's", rep.MissingAnswers)
	}
	if p.late([]byte("1")) {
		t.Error("a request that is not optional was waived")
	}
}
