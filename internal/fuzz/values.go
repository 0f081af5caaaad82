package fuzz

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// goSpace is Unicode's White_Space as Go's strings.TrimSpace knows it
// (docs/rules.md, "White space").
var goSpace = []string{" ", "\t", "\n", "\v", "\f", "\r", "\u0085", "\u00a0", "\u1680",
	"\u2000", "\u2001", "\u2002", "\u2003", "\u2004", "\u2005", "\u2006", "\u2007", "\u2008", "\u2009", "\u200a",
	"\u2028", "\u2029", "\u202f", "\u205f", "\u3000"}

// notSpace are characters other languages count as white space, or that
// look like it, and Go does not: the BOM (JavaScript's trim removes it),
// U+200B, U+180E (white space in older Unicode).
var notSpace = []string{"\ufeff", "\u200b", "\u180e"}

// namePieces are what names are made of, where implementations differ:
// letter case, letters outside ASCII (case folding that changes length),
// characters beyond the BMP and near its end (UTF-16 order differs from
// UTF-8's), runs of characters sanitize replaces, "_" and "-", white space
// inside, invisible characters, characters JSON escapes.
var namePieces = []string{
	"a", "b", "B", "A", "srv", "Zeta", "ops", "x", "1", "-", "_",
	" ", "!", ":", " :: ", ".", "/", "@", "é", "É", "ß", "İ", "ǅ", "Σ",
	"🙂", "𝒳", "😀", "！", "\ufffd", "\uff5e", "\uffff",
	"\t", "\u00a0", "\u3000", "\u2028", "\u2029",
	"\u200b", "\u180e", "\ufeff", "\u0001", "\u007f",
	"<", ">", "&", "\"", "\\", "漢字",
}

// catalogIDs are entries of the catalog (P17.3: installed), named as
// configured servers now and then.
var catalogIDs = []string{"filesystem", "memory", "git", "fetch", "github-docker", "kubernetes", "context7"}

// space returns a white space character, Go's or one Go does not count.
func (s *stream) space() string {
	if s.chance(25) {
		return oneOf(s, notSpace)
	}
	return oneOf(s, goSpace)
}

// pad surrounds v with white space now and then (C4.1, C4.4: a save trims
// Go's white space and nothing else).
func (s *stream) pad(v string) string {
	switch s.pick(6, 2, 2, 1) {
	case 1:
		return s.space() + v
	case 2:
		return v + s.space()
	case 3:
		return s.space() + v + s.space() + s.space()
	}
	return v
}

// word is a short string of name pieces.
func (s *stream) word(maxPieces int) string {
	var b strings.Builder
	n := 1 + s.intn(maxPieces)
	for i := 0; i < n; i++ {
		b.WriteString(oneOf(s, namePieces))
	}
	return b.String()
}

// name is a server name: pieces, a catalog id now and then.
func (s *stream) name() string {
	if s.chance(8) {
		return oneOf(s, catalogIDs)
	}
	return s.word(3)
}

// text is a string for outputs, labels and fields: pieces, white space
// anywhere (ends included), JSON's special characters, control characters.
func (s *stream) text() string {
	var b strings.Builder
	n := 1 + s.intn(5)
	for i := 0; i < n; i++ {
		switch s.pick(6, 2, 1, 1) {
		case 0:
			b.WriteString(oneOf(s, namePieces))
		case 1:
			b.WriteString(s.space())
		case 2:
			b.WriteString(oneOf(s, []string{"\n", "\r\n", "\u0000", "\u001f", "\b", "\u2028", "</script>", "\\u0041"}))
		case 3:
			b.WriteString(oneOf(s, []string{"ligne", "Bonjour 🙂 — parité", "{\"k\":1}", "a\u0301", "🙂🙂🙂"}))
		}
	}
	return b.String()
}

// printable is a command name that Go's %q writes as it is (no escape)
// and that holds no "/" (a path is not looked up on PATH), so that the
// text of a command not found (P6.3) is the same in every language.
func (s *stream) printable() string {
	for range 4 {
		w := s.word(3)
		if q := strconv.Quote(w); q[1:len(q)-1] == w && !strings.Contains(w, "/") {
			return w
		}
	}
	return "x"
}

// runes is the length of v in runes.
func runes(v string) int { return utf8.RuneCountInString(v) }

// token is an HTTP token (a header name part): letters, digits, "-".
func (s *stream) token() string {
	const chars = "aZ09-xQ"
	var b strings.Builder
	for n := 1 + s.intn(6); n > 0; n-- {
		b.WriteByte(chars[s.intn(len(chars))])
	}
	return b.String()
}

// headerValue is a value every HTTP stack sends as it is: printable ASCII,
// no white space at its ends.
func (s *stream) headerValue() string {
	const chars = "v1 =;,/:\"'*~A"
	var b strings.Builder
	b.WriteByte('v')
	for n := s.intn(8); n > 0; n-- {
		b.WriteByte(chars[s.intn(len(chars))])
	}
	b.WriteByte('z')
	return b.String()
}

// envKey is an environment variable name a process gets as is: FZ_ and
// letters, digits, "_" (never one the server or its runtime reads).
func (s *stream) envKey() string {
	const chars = "AZ09_bé"
	var b strings.Builder
	b.WriteString("FZ_")
	for n := 1 + s.intn(5); n > 0; n-- {
		b.WriteString(string([]rune(chars)[s.intn(utf8.RuneCountInString(chars))]))
	}
	return b.String()
}

// envValue is a value a process gets as is: any text but NUL.
func (s *stream) envValue() string { return strings.ReplaceAll(s.text(), "\u0000", "") }
