package replay

import (
	"context"
	"testing"
)

// A server request sent on the GET stream from a POST's script is still
// awaited when that POST's connection ends: the client may close it (it
// has its answer) before it answers the request on a POST of its own.
// The answer is delivered before the wait starts, so both it and the
// ended context are ready: a wait that chose the context would fail one
// of these rounds in two.
func TestGETRequestOutlivesItsPOST(t *testing.T) {
	e, err := newEngine("await", Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := newPeer()
	const rounds = 32
	for range rounds {
		st := &step{kind: stepEmit, onGET: true, m: &message{method: "roots/list", id: []byte("0")}}
		pd := p.register(st)
		if p.deliver(&incoming{ID: pd.id, Result: []byte(`{"roots":[]}`)}) != pd {
			t.Fatal("the answer found no pending request")
		}
		e.await(ctx, p, pd, &step{kind: stepAwait, m: st.m})
	}
	if rep := e.report(); rep.Answers != rounds || len(rep.MissingAnswers) > 0 {
		t.Errorf("%d answers, missing %+v; want %d answers", rep.Answers, rep.MissingAnswers, rounds)
	}
	// A request on the POST's own stream is given up with that stream.
	st := &step{kind: stepEmit, m: &message{method: "ping", id: []byte("1")}}
	e.await(ctx, p, p.register(st), &step{kind: stepAwait, m: st.m})
	if rep := e.report(); len(rep.MissingAnswers) != 1 || rep.MissingAnswers[0].Problem != "the request or connection ended before the answer" {
		t.Errorf("missing answers: %+v, want the ping's", rep.MissingAnswers)
	}
}
