package compare

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A value is shown as its JSON clipped to clipRunes runes. When both JSON
// texts are longer, each is shown instead as a window around the first
// difference: windowBefore characters before it and windowAfter from it
// on (narrowBefore and narrowAfter in one-line cells), where a character
// is a rune with the combining marks and joined runes that follow it or,
// in JSON text, one escape such as \n or \u00e9.
const (
	clipRunes    = 400
	windowBefore = 60
	windowAfter  = 100
	narrowBefore = 20
	narrowAfter  = 40
)

// locate sets d.At, d.Want and d.Got (and d.narrow) to the location of the
// first difference of x and y and windows around it, when both JSON texts
// are longer than clipRunes runes. Two strings are compared as decoded
// text (their windows shown as JSON); other values as JSON texts.
func locate(d *Diff, x, y any) {
	jx, err := json.Marshal(x)
	if err != nil {
		return
	}
	jy, err := json.Marshal(y)
	if err != nil || utf8.RuneCount(jx) <= clipRunes || utf8.RuneCount(jy) <= clipRunes {
		return
	}
	a, b := string(jx), string(jy)
	sx, okx := x.(string)
	sy, oky := y.(string)
	text := okx && oky
	if text {
		a, b = sx, sy
	}
	p := diffOffset(a, b)
	if p == len(a) && p == len(b) {
		return
	}
	n := utf8.RuneCountInString(a[:p])
	if text {
		nl := strings.LastIndexByte(a[:p], '\n')
		d.At = fmt.Sprintf("rune %d, line %d, column %d", n, strings.Count(a[:p], "\n")+1, utf8.RuneCountInString(a[nl+1:p])+1)
	} else {
		d.At = fmt.Sprintf("rune %d of the JSON text", n)
	}
	ca, cb := cuts(a, !text), cuts(b, !text)
	d.Want, d.Got = window(a, ca, p, windowBefore, windowAfter, text), window(b, cb, p, windowBefore, windowAfter, text)
	d.Narrow = [2]string{window(a, ca, p, narrowBefore, narrowAfter, text), window(b, cb, p, narrowBefore, narrowAfter, text)}
}

// diffOffset is the byte offset of the first rune where a and b differ
// (the length of the shorter when it begins the other).
func diffOffset(a, b string) int {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	for p > 0 && p < len(a) && !utf8.RuneStart(a[p]) {
		p--
	}
	return p
}

// cuts returns the byte offsets of s where a window may begin or end,
// from 0 to len(s): between characters (see windowBefore), and, in JSON
// text (escaped), never inside an escape.
func cuts(s string, escaped bool) []int {
	c := []int{0}
	for i := 0; i < len(s); {
		i += unitLen(s[i:], escaped)
		// What joins the character: at most 16 runes, to stay bounded.
		for n := 0; n < 16 && i < len(s) && !(escaped && s[i] == '\\'); n++ {
			r, size := utf8.DecodeRuneInString(s[i:])
			prev, _ := utf8.DecodeLastRuneInString(s[:i])
			if !joins(r) && prev != '\u200d' {
				break
			}
			i += size
		}
		c = append(c, i)
	}
	return c
}

// unitLen is the length of the rune or, in JSON text, the escape s begins
// with (a surrogate pair of \u escapes is one).
func unitLen(s string, escaped bool) int {
	if !escaped || s[0] != '\\' || len(s) < 2 {
		_, size := utf8.DecodeRuneInString(s)
		return size
	}
	if s[1] != 'u' {
		return 2
	}
	if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' && strings.ContainsAny(s[2:3], "dD") && strings.ContainsAny(s[3:4], "89abAB") {
		return 12
	}
	return min(6, len(s))
}

// joins reports whether r belongs with the rune before it: a combining
// mark, a variation selector, an emoji modifier or a zero-width joiner.
func joins(r rune) bool {
	return unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) || r == '\u200d' || r >= 0x1F3FB && r <= 0x1F3FF
}

// window shows s from before characters before the one at byte p to after
// characters from it on, "…" for what is left out; text is a decoded
// string, shown as JSON (its quotes where the window reaches its ends).
func window(s string, c []int, p, before, after int, text bool) string {
	j := sort.SearchInts(c, p+1) - 1 // the character holding p
	lo, hi := c[max(0, j-before)], c[min(len(c)-1, j+after)]
	mid, quote := s[lo:hi], ""
	if text {
		raw, _ := json.Marshal(mid)
		mid, quote = string(raw[1:len(raw)-1]), `"`
	}
	open, end := quote, quote
	if lo > 0 {
		open = "…"
	}
	if hi < len(s) {
		end = "…"
	}
	return open + mid + end
}
