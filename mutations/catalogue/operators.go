package catalogue

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
)

// Operator kinds.
const (
	opNegate      = "negate"       // == ↔ !=
	opBoundary    = "boundary"     // < ↔ <=, > ↔ >=
	opIntPlusOne  = "int+1"        // n → n+1
	opIntZero     = "int0"         // n → 0
	opEmptyString = "empty-string" // "…" → ""
	opRemoveCall  = "remove-call"  // f(…) statement removed
)

var swaps = map[token.Token]struct {
	to   token.Token
	kind string
}{
	token.EQL: {token.NEQ, opNegate},
	token.NEQ: {token.EQL, opNegate},
	token.LSS: {token.LEQ, opBoundary},
	token.LEQ: {token.LSS, opBoundary},
	token.GTR: {token.GEQ, opBoundary},
	token.GEQ: {token.GTR, opBoundary},
}

// OperatorMutants generates operator mutants from the non-test Go files of
// the package folder dir (relative to root, slash-separated). They are
// ordered by file and position, with stable ids (file:line:col/operator).
func OperatorMutants(root, dir string) ([]Mutant, error) {
	abs := filepath.Join(root, filepath.FromSlash(dir))
	names, err := filepath.Glob(filepath.Join(abs, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Mutant
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		rel := path.Join(dir, filepath.Base(name))
		ms, err := fileOperatorMutants(rel, src)
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	return out, nil
}

func fileOperatorMutants(rel string, src []byte) ([]Mutant, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, rel, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	if ast.IsGenerated(f) {
		return nil, nil
	}
	var out []Mutant
	add := func(pos token.Pos, original, replacement, kind, scope string) {
		p := fset.Position(pos)
		id := fmt.Sprintf("%s:%d:%d/%s", rel, p.Line, p.Column, kind)
		why := fmt.Sprintf("%s: %s → %s", kind, clip(original), clip(replacement))
		if replacement == "" {
			why = fmt.Sprintf("%s: %s removed", kind, clip(original))
		}
		out = append(out, Mutant{
			ID: id, Rule: scope, File: rel, Original: original, Replacement: replacement,
			Why: why, Offset: p.Offset, Line: p.Line, Operator: kind,
		})
	}
	text := func(n ast.Node) string {
		return string(src[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
	}
	skip := map[ast.Node]bool{} // struct tags and import paths
	for _, imp := range f.Imports {
		skip[imp.Path] = true
	}
	for _, decl := range f.Decls {
		scope := "(package)"
		if fn, ok := decl.(*ast.FuncDecl); ok {
			scope = fn.Name.Name
			if fn.Recv != nil && len(fn.Recv.List) > 0 {
				scope = recvName(fn.Recv.List[0].Type) + "." + scope
			}
		}
		ast.Inspect(decl, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.Field:
				if n.Tag != nil {
					skip[n.Tag] = true
				}
			case *ast.BinaryExpr:
				if s, ok := swaps[n.Op]; ok {
					add(n.OpPos, n.Op.String(), s.to.String(), s.kind, scope)
				}
			case *ast.BasicLit:
				if skip[n] {
					return true
				}
				switch n.Kind {
				case token.INT:
					v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64)
					if err != nil {
						return true
					}
					add(n.Pos(), n.Value, strconv.FormatInt(v+1, 10), opIntPlusOne, scope)
					if v != 0 {
						add(n.Pos(), n.Value, "0", opIntZero, scope)
					}
				case token.STRING:
					if s, err := strconv.Unquote(n.Value); err == nil && s != "" {
						add(n.Pos(), n.Value, `""`, opEmptyString, scope)
					}
				}
			case *ast.ExprStmt:
				if _, ok := n.X.(*ast.CallExpr); ok {
					add(n.Pos(), text(n), "", opRemoveCall, scope)
				}
			}
			return true
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Offset < out[j].Offset })
	return out, nil
}

func recvName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return recvName(t.X)
	case *ast.Ident:
		return t.Name
	case *ast.IndexExpr:
		return recvName(t.X)
	case *ast.IndexListExpr:
		return recvName(t.X)
	}
	return "?"
}

func clip(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// Sample returns at most limit mutants of ms chosen at random with seed
// (deterministic for a seed), kept in their original order. limit ≤ 0
// keeps them all.
func Sample(ms []Mutant, limit int, seed uint64) []Mutant {
	if limit <= 0 || limit >= len(ms) {
		return ms
	}
	idx := rand.New(rand.NewPCG(seed, 0x6d757461)).Perm(len(ms))[:limit]
	sort.Ints(idx)
	out := make([]Mutant, limit)
	for i, j := range idx {
		out[i] = ms[j]
	}
	return out
}
