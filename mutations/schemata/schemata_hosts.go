package schemata

import (
	"fmt"
	"go/ast"
	"go/token"

	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

// funcHost is one function with mutants inside.
type funcHost struct {
	file *srcFile
	fn   *ast.FuncDecl
	ms   []catalogue.Mutant
}

// specHost is one package-level var or const spec with mutants inside.
type specHost struct {
	file *srcFile
	gd   *ast.GenDecl
	spec *ast.ValueSpec
	ms   []catalogue.Mutant
	// mutated[i] lists, per value index, the mutants changing it and
	// their texts.
	mutated map[int][]mutValue
}

type mutValue struct {
	id   string
	text string
}

// hosts are the declarations of one package that host mutants.
type hosts struct {
	funcs  []*funcHost
	specs  []*specHost
	funcOf map[*ast.FuncDecl]*funcHost
	specOf map[*ast.ValueSpec]*specHost
}

// constDecl is a const declaration of a package, in a function (local) or
// not.
type constDecl struct {
	file  *srcFile
	gd    *ast.GenDecl
	local bool
}

// dependents are the consts that depend on a converted const, with the
// mutants that make them vars: local declarations whole, package ones by
// spec.
type dependents struct {
	local map[*ast.GenDecl][]string
	spec  map[*ast.ValueSpec][]string
}

// genPkg places the mutants of one package; it returns the mutants that
// turned out not hostable (the package must then be generated again
// without them).
func (s *Schemata) genPkg(p *pkgSrc, ms []catalogue.Mutant, skip map[string]bool) (map[string]string, error) {
	h, err := s.findHosts(p, ms, skip)
	if err != nil {
		return nil, err
	}
	converted, constSpecs, late := s.placeSpecs(p, h.specs)
	if len(late) > 0 {
		return late, nil
	}
	// Consts that depend on a converted const become vars too, in every
	// file of the package (test files included), also inside functions.
	decls := constDecls(p)
	dep := findDependents(decls, h.specOf, converted)
	if late := dep.iotaLate(decls); len(late) > 0 {
		return late, nil
	}
	for name, ids := range converted {
		s.convertedBy[p.dir+" "+name] = ids
	}
	s.edit(p, h, decls, dep, constSpecs)
	return nil, nil
}

// findHosts finds the declaration hosting each mutant of ms not in skip;
// the mutants no copy of a function or spec can host go to s.Own.
func (s *Schemata) findHosts(p *pkgSrc, ms []catalogue.Mutant, skip map[string]bool) (*hosts, error) {
	h := &hosts{funcOf: map[*ast.FuncDecl]*funcHost{}, specOf: map[*ast.ValueSpec]*specHost{}}
	for _, m := range ms {
		if skip[m.ID] {
			continue
		}
		sf := p.file(m.File)
		if sf == nil {
			return nil, fmt.Errorf("schemata: %s: file %s not in package %s", m.ID, m.File, p.dir)
		}
		switch d := hostDecl(p, sf, m).(type) {
		case nil:
			s.Own[m.ID] = "outside any single declaration"
		case *ast.FuncDecl:
			if why := hostableFunc(p, d, m); why != "" {
				s.Own[m.ID] = why
				continue
			}
			h.addFunc(sf, d, m)
		case *ast.GenDecl:
			if why := h.addSpec(p, sf, d, m); why != "" {
				s.Own[m.ID] = why
			}
		}
	}
	return h, nil
}

// hostDecl is the top-level declaration of sf that holds the whole of m's
// original text, or nil.
func hostDecl(p *pkgSrc, sf *srcFile, m catalogue.Mutant) ast.Decl {
	start, end := m.Offset, m.Offset+len(m.Original)
	for _, d := range sf.f.Decls {
		if p.off(d.Pos()) <= start && end <= p.off(d.End()) {
			return d
		}
	}
	return nil
}

func (h *hosts) addFunc(sf *srcFile, d *ast.FuncDecl, m catalogue.Mutant) {
	fh := h.funcOf[d]
	if fh == nil {
		fh = &funcHost{file: sf, fn: d}
		h.funcOf[d] = fh
		h.funcs = append(h.funcs, fh)
	}
	fh.ms = append(fh.ms, m)
}

// addSpec hosts m in its var or const spec; it says why when it cannot.
func (h *hosts) addSpec(p *pkgSrc, sf *srcFile, d *ast.GenDecl, m catalogue.Mutant) string {
	if d.Tok != token.VAR && d.Tok != token.CONST {
		return "in a " + d.Tok.String() + " declaration (a type or a struct tag is fixed at build time)"
	}
	start, end := m.Offset, m.Offset+len(m.Original)
	var vs *ast.ValueSpec
	for _, sp := range d.Specs {
		if p.off(sp.Pos()) <= start && end <= p.off(sp.End()) || !d.Lparen.IsValid() {
			vs = sp.(*ast.ValueSpec)
		}
	}
	if vs == nil {
		return "spans several specs of a " + d.Tok.String() + " declaration"
	}
	sh := h.specOf[vs]
	if sh == nil {
		sh = &specHost{file: sf, gd: d, spec: vs, mutated: map[int][]mutValue{}}
		h.specOf[vs] = sh
		h.specs = append(h.specs, sh)
	}
	sh.ms = append(sh.ms, m)
	return ""
}

// placeSpecs finds which values each spec mutant changes. It returns the
// consts made vars (name → mutants) and their specs; late lists the
// mutants found not hostable (a const of an iota group).
func (s *Schemata) placeSpecs(p *pkgSrc, specs []*specHost) (converted map[string][]string, constSpecs []*specHost, late map[string]string) {
	converted, late = map[string][]string{}, map[string]string{}
	for _, h := range specs {
		var kept []catalogue.Mutant
		for _, m := range h.ms {
			why, broken := h.place(p, m)
			switch {
			case broken != "":
				s.Broken[m.ID] = broken
			case why != "":
				s.Own[m.ID] = why
			default:
				kept = append(kept, m)
			}
		}
		h.ms = kept
		if len(kept) == 0 || h.gd.Tok != token.CONST || len(h.mutated) == 0 {
			continue
		}
		if iotaGroup(h.gd) {
			for _, m := range kept {
				late[m.ID] = "a const of a group with iota or implied values"
			}
			continue
		}
		constSpecs = append(constSpecs, h)
		for _, n := range h.spec.Names {
			for _, m := range kept {
				converted[n.Name] = appendUnique(converted[n.Name], m.ID)
			}
		}
	}
	return converted, constSpecs, late
}

// constDecls lists every const declaration of p, inside functions too.
func constDecls(p *pkgSrc) []constDecl {
	var decls []constDecl
	for _, sf := range p.files {
		for _, d := range sf.f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.CONST {
				decls = append(decls, constDecl{sf, gd, false})
			}
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				if ds, ok := n.(*ast.DeclStmt); ok {
					if gd, ok := ds.Decl.(*ast.GenDecl); ok && gd.Tok == token.CONST {
						decls = append(decls, constDecl{sf, gd, true})
					}
				}
				return true
			})
		}
	}
	return decls
}

// findDependents finds, until nothing changes, the consts whose values
// use a converted const; converted grows with them.
func findDependents(decls []constDecl, specOf map[*ast.ValueSpec]*specHost, converted map[string][]string) dependents {
	dep := dependents{local: map[*ast.GenDecl][]string{}, spec: map[*ast.ValueSpec][]string{}}
	for changed := true; changed && len(converted) > 0; {
		changed = false
		for _, cd := range decls {
			for _, sp := range cd.gd.Specs {
				vs := sp.(*ast.ValueSpec)
				if specOf[vs] != nil && len(specOf[vs].mutated) > 0 {
					continue
				}
				causes := causesOf(vs, converted)
				if len(causes) == 0 {
					continue
				}
				if cd.local {
					changed = dep.addLocal(cd.gd, causes, converted) || changed
				} else {
					changed = dep.addSpec(vs, causes, converted) || changed
				}
			}
		}
	}
	return dep
}

// causesOf lists the mutants that converted the consts vs's values use.
func causesOf(vs *ast.ValueSpec, converted map[string][]string) []string {
	var causes []string
	for _, v := range vs.Values {
		ast.Inspect(v, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.SelectorExpr:
				ast.Inspect(n.X, func(x ast.Node) bool {
					if id, ok := x.(*ast.Ident); ok {
						causes = appendUnique(causes, converted[id.Name]...)
					}
					return true
				})
				return false
			case *ast.Ident:
				causes = appendUnique(causes, converted[n.Name]...)
			}
			return true
		})
	}
	return causes
}

// addLocal converts a local const group, as a whole, for causes; true
// when anything changed.
func (d dependents) addLocal(gd *ast.GenDecl, causes []string, converted map[string][]string) bool {
	changed := false
	for _, c := range causes {
		if !contains(d.local[gd], c) {
			d.local[gd] = append(d.local[gd], c)
			changed = true
		}
	}
	for _, sp := range gd.Specs {
		for _, n := range sp.(*ast.ValueSpec).Names {
			changed = addCauses(converted, n.Name, causes) || changed
		}
	}
	return changed
}

// addSpec converts a package-level const spec for causes; true when
// anything changed.
func (d dependents) addSpec(vs *ast.ValueSpec, causes []string, converted map[string][]string) bool {
	changed := false
	for _, n := range vs.Names {
		changed = addCauses(converted, n.Name, causes) || changed
	}
	before := len(d.spec[vs])
	d.spec[vs] = appendUnique(d.spec[vs], causes...)
	return changed || len(d.spec[vs]) != before
}

func addCauses(converted map[string][]string, name string, causes []string) bool {
	before := len(converted[name])
	converted[name] = appendUnique(converted[name], causes...)
	return len(converted[name]) != before
}

// iotaLate lists the mutants whose const an iota group depends on: they
// cannot be hosted.
func (d dependents) iotaLate(decls []constDecl) map[string]string {
	late := map[string]string{}
	for _, cd := range decls {
		if !iotaGroup(cd.gd) {
			continue
		}
		causes := append([]string{}, d.local[cd.gd]...)
		for _, sp := range cd.gd.Specs {
			causes = append(causes, d.spec[sp.(*ast.ValueSpec)]...)
		}
		for _, c := range causes {
			late[c] = "a const that a const of an iota group depends on"
		}
	}
	return late
}

// edit writes the package's edits: converted consts, then mutated vars,
// then function copies.
func (s *Schemata) edit(p *pkgSrc, h *hosts, decls []constDecl, dep dependents, constSpecs []*specHost) {
	for _, cd := range decls {
		if cd.local {
			if len(dep.local[cd.gd]) > 0 {
				s.localConst(p, cd.file, cd.gd)
			}
			continue
		}
		for _, sp := range cd.gd.Specs {
			vs := sp.(*ast.ValueSpec)
			if causes := dep.spec[vs]; len(causes) > 0 {
				s.constToVar(p, cd.file, cd.gd, &specHost{file: cd.file, gd: cd.gd, spec: vs, mutated: map[int][]mutValue{}}, causes)
			}
		}
	}
	for _, sh := range constSpecs {
		s.constToVar(p, sh.file, sh.gd, sh, ids(sh.ms))
	}
	for _, sh := range h.specs {
		if len(sh.ms) == 0 {
			continue
		}
		s.specHosted[p.dir] = append(s.specHosted[p.dir], ids(sh.ms)...)
		if sh.gd.Tok == token.VAR && len(sh.mutated) > 0 {
			s.varValues(p, sh)
		}
	}
	for _, fh := range h.funcs {
		s.funcCopies(p, fh)
	}
}
