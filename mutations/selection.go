package mutations

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

// rulesInName finds rule ids inside a test function's name (without its
// "Test" prefix): P10Retry, Config_C1, StatusP16Parallel, P3P4_Timeouts.
// An id starts at the beginning, or after a lower-case letter, a digit or
// "_", and is not followed by a digit: HTTP1 and P10 do not name P1.
func rulesInName(name string) []string {
	var out []string
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c != 'C' && c != 'P' {
			continue
		}
		if i > 0 {
			b := name[i-1]
			if !(b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_') {
				continue
			}
		}
		j := i + 1
		for j < len(name) && name[j] >= '0' && name[j] <= '9' {
			j++
		}
		if id := name[i:j]; catalogue.ValidRule(id) {
			out = append(out, id)
		}
	}
	return out
}

// ruleInText finds rule ids in comments and string literals: a word of
// capital letters and digits, kept when it is a rule of the specification.
var ruleInText = regexp.MustCompile(`\b([A-Z][0-9]+)\b`)

// rulesInText are the rule ids text names.
func rulesInText(text string) []string {
	var out []string
	for _, m := range ruleInText.FindAllStringSubmatch(text, -1) {
		if catalogue.ValidRule(m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// ruleTests maps each rule id to the top-level tests of the package in dir
// that name it: in the test's name, its doc comment, a comment inside it, or
// a string literal inside it (a t.Run name, a table's rule field). Names are
// sorted.
func ruleTests(dir string) (map[string][]string, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	sets := map[string]map[string]bool{}
	add := func(rule, test string) {
		if sets[rule] == nil {
			sets[rule] = map[string]bool{}
		}
		sets[rule][test] = true
	}
	fset := token.NewFileSet()
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments)
		if err != nil {
			continue // a test file that does not parse: the build will say so
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !isTestName(fn.Name.Name) {
				continue
			}
			test := fn.Name.Name
			for _, id := range rulesInName(strings.TrimPrefix(test, "Test")) {
				add(id, test)
			}
			if fn.Doc != nil {
				for _, id := range rulesInText(fn.Doc.Text()) {
					add(id, test)
				}
			}
			for _, cg := range f.Comments {
				if cg.Pos() >= fn.Pos() && cg.End() <= fn.End() {
					for _, id := range rulesInText(cg.Text()) {
						add(id, test)
					}
				}
			}
			if fn.Body != nil {
				ast.Inspect(fn.Body, func(n ast.Node) bool {
					if bl, ok := n.(*ast.BasicLit); ok && bl.Kind == token.STRING {
						if s, err := strconv.Unquote(bl.Value); err == nil && len(s) <= 80 {
							for _, id := range rulesInText(s) {
								add(id, test)
							}
						}
					}
					return true
				})
			}
		}
	}
	out := map[string][]string{}
	for rule, set := range sets {
		for t := range set {
			out[rule] = append(out[rule], t)
		}
		sort.Strings(out[rule])
	}
	return out, nil
}

// isTestName reports whether name is a test function's name (Test, or
// Test followed by a character that is not a lower-case letter).
func isTestName(name string) bool {
	if !strings.HasPrefix(name, "Test") || name == "TestMain" {
		return false
	}
	if len(name) == 4 {
		return true
	}
	c := name[4]
	return !(c >= 'a' && c <= 'z')
}

// runFilter is the -run pattern selecting exactly the named top-level tests.
func runFilter(tests []string) string {
	if len(tests) == 0 {
		return ""
	}
	q := make([]string, len(tests))
	for i, t := range tests {
		q[i] = regexp.QuoteMeta(t)
	}
	return "^(" + strings.Join(q, "|") + ")$"
}
