// Package docs holds the specification of a target (Markdown) and the
// clause ids it defines; its tests keep the repository self-contained.
package docs

import (
	"embed"
	"regexp"
	"slices"
	"strings"
	"sync"
)

//go:embed rules.md contract.md
var spec embed.FS

// specFiles are the files whose clauses scenario steps name, in order.
var specFiles = []string{"rules.md", "contract.md"}

// clauseDef is a clause's definition: a list item starting with its id in
// bold, e.g. "- **C4.2** An empty name …".
var clauseDef = regexp.MustCompile(`(?m)^- \*\*([A-Z][0-9]+\.[0-9]+)\*\*`)

// Clauses lists the clause ids of the specification (rules.md, then
// contract.md), in the order they are defined; parsed once, when first
// asked. The caller must not change the list.
var Clauses = sync.OnceValue(clauses)

func clauses() []string {
	var out []string
	for _, f := range specFiles {
		b, err := spec.ReadFile(f)
		if err != nil {
			panic(err) // embedded
		}
		for _, m := range clauseDef.FindAllStringSubmatch(string(b), -1) {
			out = append(out, m[1])
		}
	}
	return out
}

// Rule is the rule a clause belongs to: "C4" for "C4.2".
func Rule(clause string) string {
	r, _, _ := strings.Cut(clause, ".")
	return r
}

// Rules lists the rules that have clauses, in the order they are defined:
// C1…C8, P1…P17, J1, T1, S1 (rules.md), then H1…H4 (contract.md). A rule
// added to the documents with its clauses is known everywhere from here.
var Rules = sync.OnceValue(rules)

func rules() []string {
	var out []string
	for _, c := range Clauses() {
		if r := Rule(c); !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out
}
