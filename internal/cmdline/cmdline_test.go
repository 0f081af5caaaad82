package cmdline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSplit: words, quotes and escapes as a shell splits them; an open
// quote or no word at all is an error.
func TestSplit(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		err  bool
	}{
		{in: "a b  c", want: []string{"a", "b", "c"}},
		{in: `facade --listen {addr} --name "two words" 'it''s'`, want: []string{"facade", "--listen", "{addr}", "--name", "two words", "its"}},
		{in: `a\ b "x\"y"`, want: []string{"a b", `x"y`}},
		{in: `""`, want: []string{""}},
		{in: `"open`, err: true},
		{in: "   ", err: true},
	} {
		got, err := Split(c.in)
		if (err != nil) != c.err || !cmp.Equal(got, c.want) {
			t.Errorf("Split(%q) = %q, %v; want %q, error %v", c.in, got, err, c.want, c.err)
		}
	}
}
