package replay

import "testing"

func TestSSEFrame(t *testing.T) {
	cases := []struct {
		st   step
		data string
		want string
	}{
		{step{kind: stepComment, comment: "ok"}, "", ": ok\n\n"},
		{step{kind: stepComment, comment: "a\nb"}, "", ": a\n: b\n\n"},
		{step{kind: stepEmit, event: "message", evID: "7"}, `{"x":1}`, "event: message\nid: 7\ndata: {\"x\":1}\n\n"},
		{step{kind: stepEmit}, "two\nlines", "data: two\ndata: lines\n\n"},
	}
	for _, c := range cases {
		if got := string(sseFrame(&c.st, []byte(c.data))); got != c.want {
			t.Errorf("got %q, want %q", got, c.want)
		}
	}
	if m, ok := rawText([]byte(`"not json"`)); !ok || string(m.raw) != "not json" {
		t.Errorf("rawText: %v %v", m, ok)
	}
}
