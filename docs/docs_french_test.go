package docs

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// rules.md and contract.md give every user-visible French text of the pool
// with its meaning in English right after it, in italics and in parentheses:
//
//	`nom de serveur vide` (*empty server name*)
//	`serveur <name> non connecté` (*server `<name>` not connected*; `<name>` is …)
//
// A text is a code span, or a «…» quote of the prose, that reads as French.

var (
	// frenchLetter: letters and marks that French uses and English does not.
	frenchLetter = regexp.MustCompile(`[àâæçéèêëîïôœùûüÿÀÂÆÇÉÈÊËÎÏÔŒÙÛÜŸ«»]`)
	// frenchWord: common French words without accents (Go's \b is ASCII).
	frenchWord = regexp.MustCompile(`(?i)\b(erreur|serveur|outil|inconnue?|vide|aucune|sortie|injoignable|invalide|illisible|corps|champ|nom|paquet|doit|peut|pas|avoir|soit|une?|des|du|le|la|les|et|ou|non|pour|dans|avec|sans|est)\b`)
	// notEnglish: words that say a gloss is still French.
	notEnglish = regexp.MustCompile(`(?i)\b(erreur|serveur|outil|inconnue?|vide|aucune|sortie|paquet|doit|peut|soit|injoignable|invalide|illisible|champ|corps)\b`)
	// gloss: the English meaning right after a text, white space (line
	// breaks included) between them: "(*meaning*)" or "(*meaning*; note)".
	gloss = regexp.MustCompile(`^\s*\(\*([^*]+)\*([^)*]{0,200})\)`)
	// placeholder: what a text leaves to be filled.
	placeholder = regexp.MustCompile(`<[a-zA-Z]+>|%[sdqv]|\{[a-zA-Z]+\}`)
)

// notTexts are French-looking code spans that are not texts of the pool.
var notTexts = map[string]string{
	"édge": "a server name in P7.1's sanitize example",
}

// englishWords are English words written with a letter of frenchLetter:
// the prose and a meaning may use them.
var englishWords = map[string]bool{
	"façade": true, // contract.md: the agent's side of the pool
}

// wordAt is the word (letters only) around md[i].
func wordAt(md string, i int) (start, end int) {
	isLetter := func(r rune) bool { return unicode.IsLetter(r) }
	start, end = i, i
	for start > 0 {
		r, size := utf8.DecodeLastRuneInString(md[:start])
		if !isLetter(r) {
			break
		}
		start -= size
	}
	for end < len(md) {
		r, size := utf8.DecodeRuneInString(md[end:])
		if !isLetter(r) {
			break
		}
		end += size
	}
	return start, end
}

// withoutEnglishWords drops the words of englishWords from s.
func withoutEnglishWords(s string) string {
	return regexp.MustCompile(`\pL+`).ReplaceAllStringFunc(s, func(w string) string {
		if englishWords[strings.ToLower(w)] {
			return ""
		}
		return w
	})
}

func isFrench(s string) bool { return frenchLetter.MatchString(s) || frenchWord.MatchString(s) }

// frenchText is a French text of a Markdown file and its gloss.
type frenchText struct {
	line  int
	text  string // as written: `…` or «…»
	gloss string // the italic meaning, "" when missing
	note  string
}

// frenchTexts scans md: code spans, «…» quotes (nested ones included) of
// the prose, and the gloss after each French one. stray lists French
// letters of the prose that are in none of them.
func frenchTexts(md string) (texts []frenchText, stray []string, err error) {
	lineAt := func(i int) int { return strings.Count(md[:i], "\n") + 1 }
	for i := 0; i < len(md); {
		start := i
		switch {
		case md[i] == '`':
			end := strings.IndexByte(md[i+1:], '`')
			if end < 0 {
				return nil, nil, fmt.Errorf("line %d: code span never closed", lineAt(i))
			}
			i += end + 2
		case strings.HasPrefix(md[i:], "«"):
			depth := 0
			for i < len(md) {
				if strings.HasPrefix(md[i:], "«") {
					depth++
					i += len("«")
				} else if strings.HasPrefix(md[i:], "»") {
					depth--
					i += len("»")
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
			if depth != 0 {
				return nil, nil, fmt.Errorf("line %d: « never closed", lineAt(start))
			}
		default:
			r, size := utf8.DecodeRuneInString(md[i:])
			if frenchLetter.MatchString(string(r)) {
				if ws, we := wordAt(md, i); englishWords[strings.ToLower(md[ws:we])] {
					i = we
					continue
				}
				stray = append(stray, fmt.Sprintf("line %d: %q outside a code span or a «…» quote", lineAt(i), r))
			}
			i += size
			continue
		}
		text := md[start:i]
		inner := strings.Trim(text, "`")
		if _, skip := notTexts[inner]; skip || !isFrench(inner) {
			continue
		}
		t := frenchText{line: lineAt(start), text: text}
		if m := gloss.FindStringSubmatch(md[i:]); m != nil {
			t.gloss, t.note = m[1], m[2]
			i += len(m[0]) // the gloss is English: not scanned
		}
		texts = append(texts, t)
	}
	return texts, stray, nil
}

// checkGlosses says what is wrong with the French texts of md.
func checkGlosses(md string) (n int, problems []string) {
	texts, stray, err := frenchTexts(md)
	if err != nil {
		return 0, []string{err.Error()}
	}
	problems = append(problems, stray...)
	for _, t := range texts {
		if t.gloss == "" {
			problems = append(problems, fmt.Sprintf("line %d: %s has no English meaning after it (write it as (*meaning*))", t.line, t.text))
			continue
		}
		// The meaning may name a button by its French label in «…».
		english := withoutEnglishWords(regexp.MustCompile(`«[^»]*»`).ReplaceAllString(t.gloss, ""))
		if frenchLetter.MatchString(english) || notEnglish.MatchString(english) || !regexp.MustCompile(`[A-Za-z]{2}`).MatchString(english) {
			problems = append(problems, fmt.Sprintf("line %d: the meaning of %s is not English: (*%s*)", t.line, t.text, t.gloss))
		}
		for _, p := range placeholder.FindAllString(t.text, -1) {
			if !strings.Contains(t.gloss, p) && !strings.Contains(t.note, p) {
				problems = append(problems, fmt.Sprintf("line %d: the meaning of %s does not keep its placeholder %s", t.line, t.text, p))
			}
		}
	}
	return len(texts), problems
}

// TestFrenchTextsGlossed: every French text of rules.md and contract.md is
// followed by its English meaning, so that a reader who reads no French can
// port it.
func TestFrenchTextsGlossed(t *testing.T) {
	for _, f := range []struct {
		name string
		min  int // fewer texts found means the scan is broken, not that the texts are gone
	}{
		{"rules.md", 15},
		{"contract.md", 10},
	} {
		b, err := spec.ReadFile(f.name)
		if err != nil {
			t.Fatal(err)
		}
		n, problems := checkGlosses(string(b))
		for _, p := range problems {
			t.Errorf("%s %s", f.name, p)
		}
		if n < f.min {
			t.Errorf("%s: only %d French texts found, want at least %d", f.name, n, f.min)
		}
		t.Logf("%s: %d French texts checked", f.name, n)
	}
}

// TestFrenchGlossCheck: the check finds what it must.
func TestFrenchGlossCheck(t *testing.T) {
	for _, c := range []struct {
		md   string
		want int // problems
	}{
		{"refused: `nom de serveur vide` (*empty server name*).", 0},
		{"refused: `nom de serveur vide`\n  (*empty server name*).", 0},
		{"refused: `nom de serveur vide`.", 1},
		{"refused: `nom de serveur vide` (empty server name).", 1},
		{"refused: `nom de serveur vide` (*nom de serveur vide*).", 1},
		{"fails: `serveur <name> non connecté` (*server not connected*).", 1},
		{"fails: `serveur <name> non connecté` (*server `<name>` not connected*; `<name>` the server).", 0},
		{"says « clique « tester » pour réessayer » (*click « tester » to retry*).", 0},
		{"says « clique « tester » pour réessayer ».", 1},
		{"the output `[ok] (aucune sortie)`, or `[ok] (aucune sortie)` (*[ok] (no output)*)", 1},
		{"English `calling \"tools/call\": ` and `édge` → `dge`", 0},
		{"a stray réponse vide in the prose", 1},
		{"the agent's side of the façade, or the Façade", 0},
		{"fails with `façade MCP injoignable (<path>)` (*MCP façade unreachable (`<path>`)*)", 0},
		{"fails with `façade MCP injoignable (<path>)` (*façade MCP injoignable (`<path>`)*)", 1},
		{"the façade's méthode", 1},
		{"a broken `span", 1},
	} {
		if _, got := checkGlosses(c.md); len(got) != c.want {
			t.Errorf("%q: %d problems, want %d: %q", c.md, len(got), c.want, got)
		}
	}
}
