package replay

import (
	"context"
	"testing"
)

// endedRequest is an engine, a peer and the context of a request that has
// ended (its connection closed).
func endedRequest(t *testing.T) (*engine, *peer, context.Context) {
	t.Helper()
	e, err := newEngine("await", Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return e, newPeer(), ctx
}

// A POST's script goes on with its GET-stream steps when that POST's
// connection has ended: the client may close it (it has its answer)
// before it answers, on a POST of its own, a request sent on the GET
// stream. The answer is delivered as the request is sent, so both it and
// the ended context are ready when the wait starts: a wait that chose the
// context would fail one of these rounds in two.
func TestGETStepsOutliveTheirPOST(t *testing.T) {
	e, p, ctx := endedRequest(t)
	roots := &message{method: "roots/list", id: []byte("0"), raw: []byte(`{"jsonrpc":"2.0","id":0,"method":"roots/list"}`)}
	note := &message{method: "notifications/message", raw: []byte(`{"jsonrpc":"2.0","method":"notifications/message"}`)}
	s := &script{steps: []step{
		{kind: stepEmit, onGET: true, m: roots},
		{kind: stepAwait, ref: 0, m: roots},
		{kind: stepEmit, onGET: true, m: note},
	}}
	const rounds = 32
	sent := 0
	for range rounds {
		err := e.run(ctx, p, s, nil, func(st *step, data []byte) error {
			sent++
			if st.m == roots {
				p.deliver(&incoming{ID: []byte("0"), Result: []byte(`{"roots":[]}`)})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if rep := e.report(); sent != 2*rounds || rep.Answers != rounds || len(rep.MissingAnswers) > 0 {
		t.Errorf("%d steps sent, %d answers, missing %+v; want %d, %d", sent, rep.Answers, rep.MissingAnswers, 2*rounds, rounds)
	}
	// What goes on the POST's own stream ends with it, awaits included.
	ping := &message{method: "ping", id: []byte("1")}
	e.await(ctx, p, p.register(&step{kind: stepEmit, m: ping}), &step{kind: stepAwait, m: ping})
	if rep := e.report(); len(rep.MissingAnswers) != 1 || rep.MissingAnswers[0].Problem != "the request or connection ended before the answer" {
		t.Errorf("missing answers: %+v, want the ping's", rep.MissingAnswers)
	}
	if err := e.run(ctx, p, &script{steps: []step{{kind: stepRespond, m: ping}}}, []byte("1"), func(*step, []byte) error {
		t.Error("a step of the POST's stream sent after its end")
		return nil
	}); err == nil {
		t.Error("run on an ended request: no error")
	}
}

// An optional server request (recorded without an answer, as the session
// ended) that is still pending when the connection's context ends — the
// replay got SIGTERM with its client — is no problem, and neither is the
// answer that comes after it.
func TestOptionalRequestEndedWithTheContext(t *testing.T) {
	e, p, ctx := endedRequest(t)
	st := &step{kind: stepEmit, m: &message{method: "roots/list", id: []byte("0")}}
	pd := p.register(st)
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
