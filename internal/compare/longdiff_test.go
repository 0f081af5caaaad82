package compare_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/verdict"
)

// truncated is the long_text tool's output cut at 12000 runes, followed by
// marker, as in the golden of 05-calls-json.
func truncated(marker string) string {
	var b strings.Builder
	for i := 1; utf8.RuneCountInString(b.String()) < 12000; i++ {
		fmt.Fprintf(&b, "%04d café 漢字 🙂 — ligne déterministe ✓\n", i)
	}
	return string([]rune(b.String())[:12000]) + "\n" + marker + "[tronqué]"
}

func oneDiff(t *testing.T, want, got any) compare.Diff {
	t.Helper()
	diffs := compare.Compare(want, got)
	if len(diffs) != 1 {
		t.Fatalf("%d diffs: %+v", len(diffs), diffs)
	}
	return diffs[0]
}

// inner is a window without its elisions ("…" outside the quotes).
func inner(w string) string {
	return strings.TrimSuffix(strings.TrimPrefix(w, "…"), "…")
}

// TestLongDiffMarker: two 12000-rune texts that differ in their truncation
// marker are shown around it, located in the decoded text.
func TestLongDiffMarker(t *testing.T) {
	d := oneDiff(t, map[string]any{"text": truncated("…")}, map[string]any{"text": truncated("...")})
	// 315 lines of 38 runes, 30 runes of line 316, its "\n": the marker
	// starts line 317.
	if d.At != "rune 12001, line 317, column 1" {
		t.Errorf("At = %q", d.At)
	}
	if d.Want == d.Got {
		t.Fatalf("want and got are the same: %s", d.Want)
	}
	for _, c := range []struct{ side, shown, part string }{
		{"want", d.Want, `0316 café 漢字 🙂 — ligne détermi\n…[tronqué]"`},
		{"got", d.Got, `0316 café 漢字 🙂 — ligne détermi\n...[tronqué]"`},
	} {
		if !strings.HasPrefix(c.shown, "…") || !strings.Contains(c.shown, c.part) || strings.Contains(c.shown, "0001") {
			t.Errorf("%s = %s; want a window ending with %s", c.side, c.shown, c.part)
		}
		if n := utf8.RuneCountInString(c.shown); n > 200 {
			t.Errorf("%s is %d runes long", c.side, n)
		}
	}
}

// TestLongDiffEnds: a difference at rune 0 and at the very end.
func TestLongDiffEnds(t *testing.T) {
	s := strings.Repeat("abcdefghij", 100)
	d := oneDiff(t, "A"+s, "B"+s)
	if d.At != "rune 0, line 1, column 1" || !strings.HasPrefix(d.Want, `"A`) || !strings.HasPrefix(d.Got, `"B`) ||
		!strings.HasSuffix(d.Want, "…") || utf8.RuneCountInString(d.Want) != 1+100+1 {
		t.Errorf("at rune 0: at %q, want %s, got %s", d.At, d.Want, d.Got)
	}
	d = oneDiff(t, s, s+"x")
	if d.At != "rune 1000, line 1, column 1001" || d.Want != "…"+s[940:]+`"` || d.Got != "…"+s[940:]+`x"` {
		t.Errorf("at the end: at %q, want %s, got %s", d.At, d.Want, d.Got)
	}
	d = oneDiff(t, s+"x", s+"y")
	if d.At != "rune 1000, line 1, column 1001" || !strings.HasSuffix(d.Want, `jx"`) || !strings.HasSuffix(d.Got, `jy"`) {
		t.Errorf("last rune: at %q, want %s, got %s", d.At, d.Want, d.Got)
	}
}

// TestLongDiffCharacters: windows are cut between characters, never inside
// a rune, before a combining mark or joined emoji, or inside an escape.
func TestLongDiffCharacters(t *testing.T) {
	unit := "é漢🙂e\u0301👩\u200d💻👍🏽<\n"
	for shift := 0; shift < 12; shift++ {
		pre := strings.Repeat("x", shift) + strings.Repeat(unit, 40)
		want, got := pre+"A"+strings.Repeat(unit, 40), pre+"B"+strings.Repeat(unit, 40)
		d := oneDiff(t, want, got)
		for side, shown := range map[string]string{"want": d.Want, "got": d.Got} {
			var text string
			if err := json.Unmarshal([]byte(`"`+strings.Trim(inner(shown), `"`)+`"`), &text); err != nil {
				t.Fatalf("shift %d: %s window %s is not JSON text cut between escapes: %v", shift, side, shown, err)
			}
			r, _ := utf8.DecodeRuneInString(text)
			last, _ := utf8.DecodeLastRuneInString(text)
			if !utf8.ValidString(shown) || unicode.Is(unicode.Mn, r) || r == '\u200d' || r == 0x1F3FD || last == '\u200d' ||
				!strings.Contains(want+got, text) {
				t.Errorf("shift %d: %s window cut badly: %q", shift, side, shown)
			}
		}
	}
	// Values of different types (Compare reports differing leaves, so two
	// strings otherwise): the JSON texts, cut between escapes.
	rep := strings.Repeat("<\n", 300)
	d := oneDiff(t, map[string]any{"a": map[string]any{"k": rep}}, map[string]any{"a": []any{rep}})
	if d.At != "rune 0 of the JSON text" {
		t.Errorf("At = %q", d.At)
	}
	if !regexp.MustCompile(`^\{"k":"(\\u003c|\\n)+…$`).MatchString(d.Want) || !regexp.MustCompile(`^\["(\\u003c|\\n)+…$`).MatchString(d.Got) {
		t.Errorf("JSON windows cut inside an escape:\nwant %s\ngot  %s", d.Want, d.Got)
	}
	// Strings: located in the decoded text, shown as JSON.
	d = oneDiff(t, map[string]any{"a": rep + "x" + rep}, map[string]any{"a": rep + "y" + rep})
	escapes := regexp.MustCompile(`^(\\u003c|\\n)+[xy](\\u003c|\\n)+$`)
	if d.At != "rune 600, line 301, column 1" || !escapes.MatchString(inner(d.Want)) || !escapes.MatchString(inner(d.Got)) || d.Want == d.Got {
		t.Errorf("at %q:\nwant %s\ngot  %s", d.At, d.Want, d.Got)
	}
}

// TestShortDiffUnchanged: values whose JSON is not longer than 400 runes on
// both sides are shown whole or clipped, as always, without a location.
func TestShortDiffUnchanged(t *testing.T) {
	long := strings.Repeat("é", 398) // 400 runes of JSON
	for _, c := range []struct {
		want, got      any
		wantAt         bool
		shownW, shownG string
	}{
		{want: "a", got: "b", shownW: `"a"`, shownG: `"b"`},
		{want: map[string]any{"k": 1}, got: []any{1}, shownW: `{"k":1}`, shownG: `[1]`},
		{want: long, got: long[:len(long)-2] + "e", shownW: `"` + long + `"`, shownG: `"` + long[:len(long)-2] + `e"`},
		{want: long, got: long + "é", shownW: `"` + long + `"`, shownG: `"` + long + "é…"},
		{want: long + "a", got: long + "b", wantAt: true},
	} {
		d := oneDiff(t, c.want, c.got)
		if (d.At != "") != c.wantAt || !c.wantAt && (d.Want != c.shownW || d.Got != c.shownG) {
			t.Errorf("%.20q: at %q, want %s, got %s", c.want, d.At, d.Want, d.Got)
		}
	}
}

// TestReportsLocate: every report says where a long value differs, and a
// short one is reported as before.
func TestReportsLocate(t *testing.T) {
	d := oneDiff(t, map[string]any{"text": truncated("…")}, map[string]any{"text": truncated("...")})
	at := "rune 12001, line 317, column 1"
	res := []report.Result{{Scenario: "05-calls-json", Verdict: verdict.Fail, Diffs: []compare.Diff{d}}}
	var term, md, junit, js, side, html, text bytes.Buffer
	report.WriteDetails(&term, res)
	report.WriteMarkdown(&md, "t", res)
	if err := report.WriteJUnit(&junit, "t", res); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteJSON(&js, "t", "2025-11-25", res); err != nil {
		t.Fatal(err)
	}
	report.WriteSideBySide(&side, "a", "b", res[0].Diffs)
	m := &report.Matrix{Scenarios: []string{"05-calls-json"}, Columns: []report.Column{{Name: "t", Target: "t", Results: res}}}
	if err := report.WriteMatrixHTML(&html, m); err != nil {
		t.Fatal(err)
	}
	report.WriteMatrixText(&text, m)
	for name, c := range map[string]struct {
		out   string
		parts []string
	}{
		"terminal": {term.String(), []string{"05-calls-json text: DIFF\n  at:   " + at + "\n  want: …", `\n...[tronqué]"`}},
		"markdown": {md.String(), []string{"- `text` (**divergence**)\n  - at: " + at + "\n  - want: `…"}},
		"junit":    {junit.String(), []string{"text (divergence)&#xA;  at:   " + at + "&#xA;  want: …"}},
		"json":     {js.String(), []string{`"at": "` + at + `"`}},
		"side":     {side.String(), []string{"text (at " + at + ")", `détermi\n…[tronqué]"`, `détermi\n...[tronqué]"`}},
		"html":     {html.String(), []string{"text (at " + at + "): want …", "around its first difference"}},
		"matrix":   {text.String(), []string{"text (at " + at + "): want …", `\n...[tronqué]"`}},
	} {
		for _, p := range c.parts {
			if !strings.Contains(c.out, p) {
				t.Errorf("%s report lacks %q:\n%s", name, p, c.out)
			}
		}
	}

	short := []report.Result{{Scenario: "01-pure", Verdict: verdict.Fail, Diffs: compare.Compare(map[string]any{"a": 1}, map[string]any{"a": 2})}}
	term.Reset()
	html.Reset()
	report.WriteDetails(&term, short)
	m.Columns[0].Results = short
	if err := report.WriteMatrixHTML(&html, m); err != nil {
		t.Fatal(err)
	}
	if want := "\n01-pure a: DIFF\n  want: 1\n  got:  2\n\n0 passed, 1 failed, 0 accepted, 0 errors\n"; term.String() != want {
		t.Errorf("short difference:\n%s\nwant\n%s", term.String(), want)
	}
	if strings.Contains(html.String(), "around its first difference") {
		t.Error("the matrix page explains locations it does not show")
	}
}
