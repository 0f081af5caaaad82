// Package schemata compiles every mutant of impl into one overlay build:
// each mutated function gets a copy per mutant behind a switch read from
// the environment (MutantEnv) when the process starts; the working tree
// is never touched. Compile errors are blamed on the mutants that cause
// them.
package schemata

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

// MutantEnv selects the active mutant of a schemata build, by id. Absent or
// empty: no mutant. An id the build does not hold makes the process exit
// with status 2 before main runs.
const MutantEnv = "MCPPARITY_MUTANT"

// Names the schemata add to a mutated package.
const (
	ActiveVar  = "mcpparityMutant"
	idsVar     = "mcpparityMutantIDs"
	SelFunc    = "mcpparityMutSel"
	HelperFile = "zz_mcpparity_mutants.go"
	// MutantMark starts the generated file: the test that the normal build
	// holds no mutant code looks for it.
	MutantMark = "mcpparity mutate: schemata overlay"
)

// Schemata is a mutated copy of some packages (an overlay for go build
// -overlay) holding many mutants at once, one of them active at run time
// (MutantEnv):
//
//   - a mutant inside a function body: the enclosing function is copied
//     with the mutation (f__m12), and the original starts with a dispatch
//     (switch mcpparityMutant { case 12: return f__m12(args…) });
//   - a mutant in a package-level var or const spec: the value becomes
//     mcpparityMutSel(12, original, mutated); a const becomes a var, with
//     every const depending on it (the package's test files included).
//
// Original lines keep their numbers: the dispatch sits on the line of the
// function's opening brace, converted consts are blanked in place, and the
// generated code is appended to the file.
type Schemata struct {
	// Files maps module-relative paths to their generated content:
	// rewritten files and one added helper file per package.
	Files map[string][]byte
	// IDs maps each hosted mutant to its number (1…).
	IDs map[string]int
	// Own lists the mutants the schemata cannot host, with why: each needs
	// a build of its own.
	Own map[string]string
	// Broken lists the mutants that do not even parse, with the error.
	Broken map[string]string

	regions map[string][]region // by file
	// convertedBy maps "dir name" of each const made a var to the mutants
	// that made it so.
	convertedBy map[string][]string
	// specHosted lists, per package folder, its spec-hosted mutants.
	specHosted map[string][]string
	pkgNames   map[string]string
}

type regionKind int

const (
	// regionCopy is a mutant's own code (a function copy, a mutated
	// value): an error there means the mutant does not compile.
	regionCopy regionKind = iota
	// regionHost is code that hosts mutants (a dispatch, a converted
	// spec): an error there means they need builds of their own.
	regionHost
)

type region struct {
	kind       regionKind
	start, end int // lines, inclusive, in the generated file
	ids        []string
	// origLine is the original line that the region's first line stands
	// for (function copies), 0 when none.
	origLine int
}

type edit struct {
	start, end int
	text       string
}

type srcFile struct {
	rel   string
	src   []byte
	f     *ast.File
	edits []edit
	tail  []tailPart
	// touched: the file is part of the overlay.
	touched bool
}

type tailPart struct {
	text   string
	kind   regionKind
	ids    []string
	origLn int
}

type pkgSrc struct {
	dir   string // module-relative
	name  string
	files []*srcFile
	fset  *token.FileSet
	names map[string]bool // every identifier of the package's files
}

func (p *pkgSrc) off(pos token.Pos) int { return p.fset.Position(pos).Offset }

// fresh returns a package-unique identifier based on name.
func (p *pkgSrc) fresh(name string) string {
	for p.names[name] {
		name += "_"
	}
	p.names[name] = true
	return name
}

// NewSchemata generates the schemata of ms (resolved mutants) under root,
// leaving out the mutants of skip. Mutants it cannot host are in Own, those
// that do not parse in Broken.
func NewSchemata(root string, ms []catalogue.Mutant, skip map[string]bool) (*Schemata, error) {
	s := &Schemata{
		Files: map[string][]byte{}, IDs: map[string]int{}, Own: map[string]string{}, Broken: map[string]string{},
		regions: map[string][]region{}, convertedBy: map[string][]string{}, specHosted: map[string][]string{},
		pkgNames: map[string]string{},
	}
	byDir, err := s.number(ms, skip)
	if err != nil {
		return nil, err
	}
	for _, dir := range slices.Sorted(maps.Keys(byDir)) {
		if err := s.genDir(root, dir, byDir[dir]); err != nil {
			return nil, err
		}
	}
	for id := range s.Own {
		delete(s.IDs, id)
	}
	for id := range s.Broken {
		delete(s.IDs, id)
	}
	// The id tables are written last: they list the hosted mutants only.
	// Every package of ms gets the helper, even with no mutant hosted: an
	// id must stop the build's processes unless the build holds it.
	for _, dir := range PackagesOf(ms) {
		if s.pkgNames[dir] == "" {
			name, err := dirPackage(root, dir)
			if err != nil {
				return nil, err
			}
			s.pkgNames[dir] = name
		}
		s.Files[path.Join(dir, HelperFile)] = s.helper(dir, byDir[dir])
	}
	return s, nil
}

// number gives each mutant of ms not in skip its number, and groups them
// by package folder.
func (s *Schemata) number(ms []catalogue.Mutant, skip map[string]bool) (map[string][]catalogue.Mutant, error) {
	byDir := map[string][]catalogue.Mutant{}
	for _, m := range ms {
		if skip[m.ID] {
			continue
		}
		if m.Offset < 0 {
			return nil, fmt.Errorf("schemata: mutant %s is not resolved", m.ID)
		}
		if _, dup := s.IDs[m.ID]; dup {
			return nil, fmt.Errorf("schemata: mutant %s given twice", m.ID)
		}
		s.IDs[m.ID] = len(s.IDs) + 1
		byDir[path.Dir(m.File)] = append(byDir[path.Dir(m.File)], m)
	}
	return byDir, nil
}

// genDir generates the package of dir with ms. Hosting a mutant can fail
// late (a const in an iota group): such mutants leave, and the package is
// generated again.
func (s *Schemata) genDir(root, dir string, ms []catalogue.Mutant) error {
	local := map[string]bool{}
	for {
		p, err := loadPkg(root, dir)
		if err != nil {
			return err
		}
		s.pkgNames[dir] = p.name
		own, err := s.genPkg(p, ms, local)
		if err != nil {
			return err
		}
		if len(own) == 0 {
			return s.finishPkg(p)
		}
		for id, why := range own {
			s.Own[id] = why
			local[id] = true
		}
	}
}

// dirPackage is the package name of the non-test files of dir.
func dirPackage(root, dir string) (string, error) {
	p, err := loadPkg(root, dir)
	if err != nil {
		return "", err
	}
	return p.name, nil
}

func loadPkg(root, dir string) (*pkgSrc, error) {
	abs := filepath.Join(root, filepath.FromSlash(dir))
	names, err := filepath.Glob(filepath.Join(abs, "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	p := &pkgSrc{dir: dir, fset: token.NewFileSet(), names: map[string]bool{}}
	for _, name := range names {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		f, err := parser.ParseFile(p.fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("schemata: %w", err)
		}
		if strings.HasSuffix(name, "_test.go") && strings.HasSuffix(f.Name.Name, "_test") {
			continue // an external test package: it sees the package's exports only
		}
		if !strings.HasSuffix(name, "_test.go") && p.name == "" {
			p.name = f.Name.Name
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if id, ok := n.(*ast.Ident); ok {
				p.names[id.Name] = true
			}
			return true
		})
		p.files = append(p.files, &srcFile{rel: path.Join(dir, filepath.Base(name)), src: src, f: f})
	}
	if p.name == "" {
		return nil, fmt.Errorf("schemata: no Go file in %s", dir)
	}
	for _, n := range []string{ActiveVar, idsVar, SelFunc} {
		if p.names[n] {
			return nil, fmt.Errorf("schemata: %s already declares %s", dir, n)
		}
	}
	return p, nil
}

func (p *pkgSrc) file(rel string) *srcFile {
	for _, f := range p.files {
		if f.rel == rel {
			return f
		}
	}
	return nil
}

// hostableFunc says why a mutant of fn cannot be hosted by a copy of fn
// ("" when it can).
func hostableFunc(p *pkgSrc, fn *ast.FuncDecl, m catalogue.Mutant) string {
	if fn.Body == nil {
		return "in a function without a body"
	}
	if fn.Name.Name == "_" {
		return "in a function named _"
	}
	if m.Offset < p.off(fn.Pos()) {
		return "outside the function"
	}
	return ""
}

// place finds which values of the spec the mutant changes. why is set when
// the mutant cannot be hosted, broken when the mutated spec does not
// parse.
func (h *specHost) place(p *pkgSrc, m catalogue.Mutant) (why, broken string) {
	start, end := p.off(h.spec.Pos()), p.off(h.spec.End())
	prefix := "package p\n" + h.gd.Tok.String() + " "
	if !h.gd.Lparen.IsValid() {
		// A declaration of one spec: the mutant may cover its keyword.
		start, end = p.off(h.gd.Pos()), p.off(h.gd.End())
		prefix = "package p\n"
	}
	src := h.file.src
	text := string(src[start:m.Offset]) + m.Replacement + string(src[m.Offset+len(m.Original):end])
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "mutant.go", prefix+text+"\n", parser.SkipObjectResolution)
	if err != nil {
		return "", "does not parse: " + err.Error()
	}
	if len(f.Decls) != 1 {
		return "changes the declaration's shape", ""
	}
	gd, ok := f.Decls[0].(*ast.GenDecl)
	if !ok || gd.Tok != h.gd.Tok || len(gd.Specs) != 1 || gd.Lparen.IsValid() {
		return "changes the declaration's shape", ""
	}
	vs := gd.Specs[0].(*ast.ValueSpec)
	mtext := func(n ast.Node) string {
		if n == nil {
			return ""
		}
		return string((prefix + text)[fset.Position(n.Pos()).Offset:fset.Position(n.End()).Offset])
	}
	otext := func(n ast.Node) string {
		if n == nil {
			return ""
		}
		return string(src[p.off(n.Pos()):p.off(n.End())])
	}
	if len(vs.Names) != len(h.spec.Names) || mtext(vs.Type) != otext(h.spec.Type) || len(vs.Values) != len(h.spec.Values) {
		return "changes the names, type or count of a spec", ""
	}
	for i, n := range vs.Names {
		if n.Name != h.spec.Names[i].Name {
			return "changes the names, type or count of a spec", ""
		}
	}
	if len(h.spec.Values) > 0 && len(h.spec.Values) != len(h.spec.Names) {
		return "in a spec of several names with one value", ""
	}
	for i, v := range vs.Values {
		if mt := mtext(v); mt != otext(h.spec.Values[i]) {
			h.mutated[i] = append(h.mutated[i], mutValue{id: m.ID, text: mt})
		}
	}
	return "", ""
}

// iotaGroup reports whether a const group uses iota or implied values.
func iotaGroup(gd *ast.GenDecl) bool {
	found := false
	for _, sp := range gd.Specs {
		vs := sp.(*ast.ValueSpec)
		if len(vs.Values) == 0 {
			return true
		}
		for _, v := range vs.Values {
			ast.Inspect(v, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok && id.Name == "iota" {
					found = true
				}
				return !found
			})
		}
	}
	return found
}

// selected returns the value expression of spec value i with its mutants:
// mcpparityMutSel(n2, mcpparityMutSel(n1, orig, v1), v2); the mutated
// values become functions appended to the file.
func (s *Schemata) selected(p *pkgSrc, h *specHost, i int, orig string) string {
	typ := ""
	if h.spec.Type != nil {
		typ = string(h.file.src[p.off(h.spec.Type.Pos()):p.off(h.spec.Type.End())])
	}
	out := orig
	for _, mv := range h.mutated[i] {
		fn := p.fresh(fmt.Sprintf("mcpparityValue%d", s.IDs[mv.id]))
		body := "return " + mv.text
		call := SelFunc
		if typ != "" {
			body = "var v " + typ + " = " + mv.text + "; return v"
			call += "[" + typ + "]"
		}
		h.file.tail = append(h.file.tail, tailPart{
			text: fmt.Sprintf("func %s() any { %s }", fn, body), kind: regionCopy, ids: []string{mv.id},
		})
		out = fmt.Sprintf("%s(%d, %s, %s)", call, s.IDs[mv.id], out, fn)
	}
	return out
}

// varValues rewrites the mutated values of a var spec in place.
func (s *Schemata) varValues(p *pkgSrc, h *specHost) {
	for i, v := range h.spec.Values {
		if len(h.mutated[i]) == 0 {
			continue
		}
		start, end := p.off(v.Pos()), p.off(v.End())
		h.file.edits = append(h.file.edits, edit{start, end, s.selected(p, h, i, string(h.file.src[start:end]))})
	}
	s.hostRegion(p, h.file, p.off(h.spec.Pos()), p.off(h.spec.End()), ids(h.ms))
}

// constToVar blanks a const spec (its lines kept) and appends it as a var,
// its mutated values selected.
func (s *Schemata) constToVar(p *pkgSrc, sf *srcFile, gd *ast.GenDecl, h *specHost, causes []string) {
	start, end := p.off(h.spec.Pos()), p.off(h.spec.End())
	if !gd.Lparen.IsValid() {
		start, end = p.off(gd.Pos()), p.off(gd.End())
	}
	sf.edits = append(sf.edits, edit{start, end, blank(sf.src[start:end])})
	var b strings.Builder
	b.WriteString("var ")
	for i, n := range h.spec.Names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(n.Name)
	}
	if h.spec.Type != nil {
		b.WriteString(" " + string(sf.src[p.off(h.spec.Type.Pos()):p.off(h.spec.Type.End())]))
	}
	b.WriteString(" = ")
	for i, v := range h.spec.Values {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(s.selected(p, h, i, string(sf.src[p.off(v.Pos()):p.off(v.End())])))
	}
	sf.tail = append(sf.tail, tailPart{text: b.String(), kind: regionHost, ids: causes})
	sf.touched = true
}

// localConst turns a const declaration inside a function into vars, used
// once so that the compiler does not call them unused.
func (s *Schemata) localConst(p *pkgSrc, sf *srcFile, gd *ast.GenDecl) {
	var names []string
	for _, sp := range gd.Specs {
		for _, n := range sp.(*ast.ValueSpec).Names {
			if n.Name != "_" {
				names = append(names, n.Name)
			}
		}
	}
	at := p.off(gd.TokPos)
	sf.edits = append(sf.edits, edit{at, at + len("const"), "var"})
	if len(names) > 0 {
		end := p.off(gd.End())
		sf.edits = append(sf.edits, edit{end, end, "; _ = []any{" + strings.Join(names, ", ") + "}"})
	}
	sf.touched = true
}

// hostRegion marks the original lines of [start, end) as hosting ids.
func (s *Schemata) hostRegion(p *pkgSrc, sf *srcFile, start, end int, ids []string) {
	sf.touched = true
	a := 1 + bytes.Count(sf.src[:start], []byte("\n"))
	b := 1 + bytes.Count(sf.src[:end], []byte("\n"))
	s.regions[sf.rel] = append(s.regions[sf.rel], region{kind: regionHost, start: a, end: b, ids: ids})
}

// funcCopies appends one copy of h's function per mutant and puts the
// dispatch at the top of the original.
func (s *Schemata) funcCopies(p *pkgSrc, h *funcHost) {
	fn, sf := h.fn, h.file
	fnStart, fnEnd := p.off(fn.Pos()), p.off(fn.End())
	// Conversion edits inside the function (local consts) go to the
	// copies too.
	var inner []edit
	for _, e := range sf.edits {
		if e.start >= fnStart && e.end <= fnEnd {
			inner = append(inner, e)
		}
	}

	call := dispatchCall(p, sf, fn)
	var cases strings.Builder
	for _, m := range h.ms {
		n := s.IDs[m.ID]
		name := p.fresh(copyName(fn.Name.Name, n))
		text, err := s.copyText(p, sf, fn, m, inner, name)
		if err != "" {
			s.Broken[m.ID] = err
		}
		if text == "" {
			continue
		}
		sf.tail = append(sf.tail, tailPart{text: text, kind: regionCopy, ids: []string{m.ID}, origLn: p.fset.Position(fn.Pos()).Line})
		fmt.Fprintf(&cases, " case %d: %s;", n, call(name))
	}
	if cases.Len() == 0 {
		return
	}
	at := p.off(fn.Body.Lbrace) + 1
	sf.edits = append(sf.edits, edit{at, at, " switch " + ActiveVar + " {" + cases.String() + " };"})
	var hosted []string
	for _, m := range h.ms {
		if s.Broken[m.ID] == "" && s.Own[m.ID] == "" {
			hosted = append(hosted, m.ID)
		}
	}
	s.hostRegion(p, sf, fnStart, p.off(fn.Body.Lbrace), hosted)
}

// dispatchCall names the receiver and the parameters of fn that have no
// usable name, and returns the statement that calls a copy of fn with
// them: "return recv.copy[T](a, b...)" (the call, then "return", when fn
// has no results).
func dispatchCall(p *pkgSrc, sf *srcFile, fn *ast.FuncDecl) func(name string) string {
	recv := ""
	if fn.Recv != nil {
		recv = nameFields(p, sf, fn.Recv, "mcpparityRecv")[0] + "."
	}
	args := nameFields(p, sf, fn.Type.Params, "mcpparityArg")
	if n := fn.Type.Params.NumFields(); n > 0 {
		last := fn.Type.Params.List[len(fn.Type.Params.List)-1]
		if _, ok := last.Type.(*ast.Ellipsis); ok {
			args[len(args)-1] += "..."
		}
	}
	tparams := ""
	if tp := nameFields(p, sf, fn.Type.TypeParams, "mcpparityType"); len(tp) > 0 {
		tparams = "[" + strings.Join(tp, ", ") + "]"
	}
	results := fn.Type.Results.NumFields() > 0
	return func(name string) string {
		call := recv + name + tparams + "(" + strings.Join(args, ", ") + ")"
		if results {
			return "return " + call
		}
		return call + "; return"
	}
}

// nameFields returns the names of a field list's fields, naming (by an
// edit of sf) those unnamed or blank.
func nameFields(p *pkgSrc, sf *srcFile, fl *ast.FieldList, prefix string) []string {
	var names []string
	if fl == nil {
		return nil
	}
	for _, f := range fl.List {
		if len(f.Names) == 0 {
			n := p.fresh(fmt.Sprintf("%s%d", prefix, len(names)))
			at := p.off(f.Type.Pos())
			sf.edits = append(sf.edits, edit{at, at, n + " "})
			names = append(names, n)
			continue
		}
		for _, id := range f.Names {
			n := id.Name
			if n == "_" {
				n = p.fresh(fmt.Sprintf("%s%d", prefix, len(names)))
				at := p.off(id.Pos())
				sf.edits = append(sf.edits, edit{at, at + 1, n})
			}
			names = append(names, n)
		}
	}
	return names
}

// copyName is the name of a function's copy for mutant n: unexported, so
// that no method set grows.
func copyName(name string, n int) string {
	r, size := utf8.DecodeRuneInString(name)
	return string(unicode.ToLower(r)) + name[size:] + "__m" + strconv.Itoa(n)
}

// copyText is fn's text with mutant m and the inner edits applied, renamed
// to name; "" when m does not parse (the second result says why) or must
// be built alone (s.Own says why).
func (s *Schemata) copyText(p *pkgSrc, sf *srcFile, fn *ast.FuncDecl, m catalogue.Mutant, inner []edit, name string) (string, string) {
	fnStart, fnEnd := p.off(fn.Pos()), p.off(fn.End())
	mutEdit := edit{m.Offset, m.Offset + len(m.Original), m.Replacement}
	all := []edit{mutEdit}
	for _, e := range inner {
		if e.start < mutEdit.end && mutEdit.start < e.end || e.start == e.end && e.start > mutEdit.start && e.start < mutEdit.end {
			s.Own[m.ID] = "overlaps a const made a var"
			return "", ""
		}
		all = append(all, e)
	}
	text, err := applyEdits(sf.src[fnStart:fnEnd], all, fnStart)
	if err != nil {
		return "", err.Error()
	}
	const prefix = "package p\n"
	fset := token.NewFileSet()
	f, perr := parser.ParseFile(fset, "mutant.go", prefix+text, parser.SkipObjectResolution)
	if perr != nil {
		return "", "does not parse: " + perr.Error()
	}
	if len(f.Decls) != 1 {
		// A helper declared beside the function: the dispatch cannot host it.
		s.Own[m.ID] = "declares more than its function"
		return "", ""
	}
	cp, ok := f.Decls[0].(*ast.FuncDecl)
	if !ok || cp.Name.Name != fn.Name.Name || cp.Body == nil {
		return "", "does not parse as the same function"
	}
	cpText := func(from, to token.Pos) string {
		return (prefix + text)[fset.Position(from).Offset:fset.Position(to).Offset]
	}
	origText := func(from, to token.Pos) string { return string(sf.src[p.off(from):p.off(to)]) }
	// The signature: from "func" to the body, the receiver included.
	if cpText(cp.Pos(), cp.Name.Pos()) != origText(fn.Pos(), fn.Name.Pos()) ||
		cpText(cp.Name.End(), cp.Body.Lbrace) != origText(fn.Name.End(), fn.Body.Lbrace) {
		// The dispatch could not call it: such a mutant is built alone.
		s.Own[m.ID] = "changes the function's signature"
		return "", ""
	}
	at := fset.Position(cp.Name.Pos()).Offset - len(prefix)
	return text[:at] + name + text[at+len(cp.Name.Name):], ""
}

// applyEdits applies non-overlapping edits (offsets from base) to src.
func applyEdits(src []byte, edits []edit, base int) (string, error) {
	sort.SliceStable(edits, func(i, j int) bool { return edits[i].start < edits[j].start })
	var b strings.Builder
	at := 0
	for _, e := range edits {
		s, en := e.start-base, e.end-base
		if s < at || en < s || en > len(src) {
			return "", fmt.Errorf("overlapping edits at offset %d", e.start)
		}
		b.Write(src[at:s])
		b.WriteString(e.text)
		at = en
	}
	b.Write(src[at:])
	return b.String(), nil
}

// blank replaces everything but newlines with nothing, keeping the lines.
func blank(b []byte) string {
	return strings.Repeat("\n", bytes.Count(b, []byte("\n")))
}

// finishPkg writes the touched files of p with their tails and records the
// regions by generated line.
func (s *Schemata) finishPkg(p *pkgSrc) error {
	for _, sf := range p.files {
		if !sf.touched && len(sf.edits) == 0 && len(sf.tail) == 0 {
			continue
		}
		out, err := applyEdits(sf.src, sf.edits, 0)
		if err != nil {
			return fmt.Errorf("schemata: %s: %w", sf.rel, err)
		}
		var b strings.Builder
		b.WriteString(out)
		if !strings.HasSuffix(out, "\n") {
			b.WriteString("\n")
		}
		b.WriteString("\n// " + MutantMark + " (generated, never part of the tree)\n")
		for _, t := range sf.tail {
			b.WriteString("\n")
			start := 1 + strings.Count(b.String(), "\n")
			b.WriteString(t.text)
			b.WriteString("\n")
			end := strings.Count(b.String(), "\n")
			s.regions[sf.rel] = append(s.regions[sf.rel], region{kind: t.kind, start: start, end: end, ids: t.ids, origLine: t.origLn})
		}
		s.Files[sf.rel] = []byte(b.String())
	}
	return nil
}

// helper is the generated file of a package: the active mutant, read from
// the environment once, and the value selector.
func (s *Schemata) helper(dir string, ms []catalogue.Mutant) []byte {
	pkg := s.pkgNames[dir]
	var ids []string
	for id := range s.IDs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return s.IDs[ids[i]] < s.IDs[ids[j]] })
	var b strings.Builder
	fmt.Fprintf(&b, "// Code generated by %s; DO NOT EDIT.\n\npackage %s\n\n", MutantMark, pkg)
	b.WriteString("import (\n\tmcpparityFmt \"fmt\"\n\tmcpparityOS \"os\"\n)\n\n")
	fmt.Fprintf(&b, "var %s = mcpparityMutantFromEnv()\n\n", ActiveVar)
	fmt.Fprintf(&b, "// %s lists the mutants of this build (0: hosted by another package).\nvar %s = map[string]int{\n", idsVar, idsVar)
	local := map[string]bool{}
	for _, m := range ms {
		local[m.ID] = true
	}
	for _, id := range ids {
		n := 0
		if local[id] {
			n = s.IDs[id]
		}
		fmt.Fprintf(&b, "\t%s: %d,\n", strconv.Quote(id), n)
	}
	b.WriteString("}\n\n")
	fmt.Fprintf(&b, `func mcpparityMutantFromEnv() int {
	id := mcpparityOS.Getenv(%[1]q)
	if id == "" {
		return 0
	}
	n, ok := %[2]s[id]
	if !ok {
		mcpparityFmt.Fprintf(mcpparityOS.Stderr, "%[1]s=%%q: no such mutant in this build (it holds %%d)\n", id, len(%[2]s))
		mcpparityOS.Exit(2)
	}
	return n
}

func %[3]s[T any](n int, orig T, mutated func() any) T {
	if %[4]s != n {
		return orig
	}
	v := mutated()
	if v == nil {
		var zero T
		return zero
	}
	return v.(T)
}
`, MutantEnv, idsVar, SelFunc, ActiveVar)
	return []byte(b.String())
}

func ids(ms []catalogue.Mutant) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.ID
	}
	return out
}

func appendUnique(list []string, more ...string) []string {
	for _, s := range more {
		if !contains(list, s) {
			list = append(list, s)
		}
	}
	return list
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// CompileError is one error of a build's output.
type CompileError struct {
	File string // module-relative when known
	Line int
	Text string // the message, continuation lines included
}

var errLine = regexp.MustCompile(`^(.+?\.go):(\d+)(?::\d+)?: (.*)$`)

// ParseErrors reads the compiler errors of a go build output. overlayDir
// is where the generated files were written (their errors name them
// there); root is the module root.
func ParseErrors(out, root, overlayDir string) []CompileError {
	var errs []CompileError
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "\t") && len(errs) > 0 {
			errs[len(errs)-1].Text += "\n" + line
			continue
		}
		m := errLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		n, _ := strconv.Atoi(m[2])
		errs = append(errs, CompileError{File: relTo(m[1], root, overlayDir), Line: n, Text: m[3]})
	}
	return errs
}

func relTo(p, root, overlayDir string) string {
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	for _, base := range []string{overlayDir, root} {
		if rel, err := filepath.Rel(base, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(p)
}

// Blame maps compile errors to mutants. own: mutants whose hosting breaks
// the build (they need builds of their own). broken: mutants whose own code
// does not compile. Errors that name no mutant make err non-nil when no
// hosted spec could explain them.
func (s *Schemata) Blame(errs []CompileError) (own, broken map[string]string, err error) {
	own, broken = map[string]string{}, map[string]string{}
	var unexplained []string
	for _, e := range errs {
		msg := fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Text)
		var reg *region
		for i, r := range s.regions[e.File] {
			if e.Line >= r.start && e.Line <= r.end && (reg == nil || r.kind == regionCopy) {
				reg = &s.regions[e.File][i]
			}
		}
		if reg != nil && reg.kind == regionCopy {
			if reg.origLine > 0 {
				msg = fmt.Sprintf("%s:%d (copy of line %d): %s", e.File, e.Line, reg.origLine+e.Line-reg.start, e.Text)
			}
			for _, id := range reg.ids {
				if broken[id] == "" {
					broken[id] = msg
				}
			}
			continue
		}
		named := false
		for key, causes := range s.convertedBy {
			dir, name, _ := strings.Cut(key, " ")
			// An exported const may be used by other packages too.
			if (path.Dir(e.File) == dir || token.IsExported(name)) && regexp.MustCompile(`\b`+regexp.QuoteMeta(name)+`\b`).MatchString(e.Text) {
				named = true
				for _, id := range causes {
					own[id] = "its const is used where only a const will do: " + msg
				}
			}
		}
		if named {
			continue
		}
		if reg != nil {
			for _, id := range reg.ids {
				own[id] = "hosting it breaks the build: " + msg
			}
			continue
		}
		dir := path.Dir(e.File)
		if len(s.specHosted[dir]) == 0 {
			unexplained = append(unexplained, msg)
			continue
		}
		for _, id := range s.specHosted[dir] {
			own[id] = "an error no mutant explains, its spec is built alone: " + msg
		}
	}
	if len(own) > 0 {
		// Hosting comes first: a copy may only fail because of it.
		broken = map[string]string{}
	}
	if len(unexplained) > 0 && len(own) == 0 && len(broken) == 0 {
		return nil, nil, fmt.Errorf("schemata build failed where no mutant is:\n%s", strings.Join(unexplained, "\n"))
	}
	return own, broken, nil
}

func PackagesOf(ms []catalogue.Mutant) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range ms {
		if d := path.Dir(m.File); !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}
