package mutations

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/mutations/catalogue"
	"github.com/mcpparity/mcpparity/mutations/schemata"
)

// writeModule writes files (slash paths → content) under a new folder and
// returns it.
func writeModule(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, src := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// needGo skips without a go command, except under CI=true.
func needGo(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("no go command")
		}
		t.Skip("no go command")
	}
}

// The shapes a schemata must host: consts with dependents (also in a test
// file and inside a function), a const an array length needs, a var, a
// variadic function with a named result, a method with unnamed
// parameters, a one-line method on an unnamed receiver, a generic
// function, a function without results and a blank variadic parameter, a
// struct tag.
var shapesFiles = map[string]string{
	"go.mod": "module example.com/shapes\n\ngo 1.26\n",
	"shapes/shapes.go": `package shapes

import "strings"

// Base has dependents.
const Base = 10

const (
	Double = Base * 2
	Label  = "base"
)

// Size is an array length: it must stay a const.
const Size = 3

var Table [Size]int

var greeting = strings.ToUpper("hello")

type Point struct {
	X int ` + "`json:\"x\"`" + `
}

func Sum(xs ...int) (total int) {
	for _, x := range xs {
		total += x
	}
	return total
}

func (p *Point) Move(int, string) int {
	p.X += 1
	return p.X
}

func (Point) Name() string { return "point" }

func Pair[T any](a, b T) []T {
	return []T{a, b}
}

func Log(sb *strings.Builder, s string, _ ...int) {
	sb.WriteString(s)
}

func Greeting() string { return greeting }
`,
	"shapes/shapes_test.go": `package shapes

import "testing"

const twice = Double * 2

func TestTwice(t *testing.T) {
	const local = Base + 1
	if twice != 40 || local != 11 {
		t.Fatalf("twice %d, local %d", twice, local)
	}
}
`,
	"cmd/show/main.go": `package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"example.com/shapes/shapes"
)

func main() {
	fmt.Println(shapes.Base, shapes.Double, len(shapes.Table), shapes.Greeting())
	fmt.Println(shapes.Sum(1, 2, 3))
	p := &shapes.Point{}
	fmt.Println(p.Move(1, "a"), shapes.Point{}.Name())
	fmt.Println(shapes.Pair(1, 2))
	var sb strings.Builder
	shapes.Log(&sb, "x")
	b, _ := json.Marshal(shapes.Point{X: 1})
	fmt.Println(sb.String(), string(b))
}
`,
}

const shapesPlain = "10 20 3 HELLO\n6\n1 point\n[1 2]\nx {\"x\":1}\n"

func shapesMutant(id, original, replacement string) catalogue.Mutant {
	return catalogue.Mutant{ID: id, Rule: "C1", File: "shapes/shapes.go", Original: original, Replacement: replacement, Why: id, Offset: -1}
}

func shapesMutants() []catalogue.Mutant {
	return []catalogue.Mutant{
		shapesMutant("base", "const Base = 10", "const Base = 11"),
		shapesMutant("size", "const Size = 3", "const Size = 4"),
		shapesMutant("greeting", `strings.ToUpper("hello")`, `strings.ToUpper("bye")`),
		shapesMutant("sum", "total += x", "total -= x"),
		shapesMutant("sum-tail", "range xs {", "range xs[1:] {"),
		shapesMutant("move", "p.X += 1", "p.X += 2"),
		shapesMutant("name", `return "point"`, `return "dot"`),
		shapesMutant("pair", "[]T{a, b}", "[]T{b, a}"),
		shapesMutant("log", "sb.WriteString(s)", "sb.WriteString(s + s)"),
		shapesMutant("tag", "`json:\"x\"`", "`json:\"y\"`"),
		shapesMutant("broken", "return total", `return "total"`),
		shapesMutant("unparsable", "return p.X", "return p.X +"),
		shapesMutant("signature", "(a, b T) []T {", "(a, b T) any {"),
		shapesMutant("helper", "{ return greeting }", "{ return shout(greeting) }\n\nfunc shout(s string) string { return s + \"!\" }"),
	}
}

// TestSchemataShapes builds the schemata of every shape, runs the harness
// with each mutant, and checks what each one changes — and that the
// mutants the schemata cannot host are built alone or dropped.
func TestSchemataShapes(t *testing.T) {
	needGo(t)
	root := writeModule(t, shapesFiles)
	ms := shapesMutants()
	if err := catalogue.Resolve(root, ms); err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(Config{Root: root, Harness: "./cmd/show", TempDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bs, err := r.buildSchemata(t.Context(), dir, ms, false)
	if err != nil {
		t.Fatal(err)
	}
	shapesPlacement(t, bs)
	shapesRuns(t, bs)
	shapesTests(t, bs, root)
	shapesOwn(t, r, ms)
}

// shapesPlacement: where each shape of mutant went (hosted, built alone,
// broken), and why.
func shapesPlacement(t *testing.T, bs *schemataBuild) {
	t.Helper()
	if why := bs.own["size"]; !strings.Contains(why, "Size") {
		t.Errorf("size: built alone because %q, want its const in an array length", why)
	}
	if why := bs.own["tag"]; !strings.Contains(why, "type declaration") {
		t.Errorf("tag: built alone because %q", why)
	}
	// A copy with another signature cannot be called by the dispatch: built
	// alone, and the other mutants of its function stay hosted.
	if why := bs.own["signature"]; why != "changes the function's signature" {
		t.Errorf("signature: built alone because %q", why)
	}
	if why := bs.own["helper"]; why != "declares more than its function" {
		t.Errorf("helper: built alone because %q", why)
	}
	if why, ok := bs.own["pair"]; ok {
		t.Errorf("pair: built alone because %q", why)
	}
	if why := bs.broken["broken"]; !strings.Contains(why, "does not compile") || !strings.Contains(why, "copy of line") {
		t.Errorf("broken: %q, want a compile error mapped to its line", why)
	}
	if why := bs.broken["unparsable"]; !strings.Contains(why, "does not parse") {
		t.Errorf("unparsable: %q", why)
	}
	if bs.rounds < 2 {
		t.Errorf("%d round(s): the broken and size mutants need a second", bs.rounds)
	}

}

// showMutant runs a shapes binary with a mutant selected.
func showMutant(t *testing.T, bin, id string) (string, int) {
	t.Helper()
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), schemata.MutantEnv+"="+id)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), code
}

// shapesRuns: each hosted mutant selected in the schemata's binary.
func shapesRuns(t *testing.T, bs *schemataBuild) {
	t.Helper()
	want := map[string]string{
		"":         shapesPlain,
		"base":     "11 22 3 HELLO\n6\n1 point\n[1 2]\nx {\"x\":1}\n",
		"greeting": "10 20 3 BYE\n6\n1 point\n[1 2]\nx {\"x\":1}\n",
		"sum":      "10 20 3 HELLO\n-6\n1 point\n[1 2]\nx {\"x\":1}\n",
		"sum-tail": "10 20 3 HELLO\n5\n1 point\n[1 2]\nx {\"x\":1}\n",
		"move":     "10 20 3 HELLO\n6\n2 point\n[1 2]\nx {\"x\":1}\n",
		"name":     "10 20 3 HELLO\n6\n1 dot\n[1 2]\nx {\"x\":1}\n",
		"pair":     "10 20 3 HELLO\n6\n1 point\n[2 1]\nx {\"x\":1}\n",
		"log":      "10 20 3 HELLO\n6\n1 point\n[1 2]\nxx {\"x\":1}\n",
	}
	for id, w := range want {
		if got, code := showMutant(t, bs.harness, id); got != w || code != 0 {
			t.Errorf("%s=%q: exit %d\n%s\nwant:\n%s", schemata.MutantEnv, id, code, got, w)
		}
	}
	if got, code := showMutant(t, bs.harness, "size"); code != 2 || !strings.Contains(got, `"size": no such mutant in this build`) {
		t.Errorf("a mutant built alone, asked of the schemata: exit %d %q", code, got)
	}

}

// shapesTests: the test binary compiles with the converted consts and sees them.
func shapesTests(t *testing.T, bs *schemataBuild, root string) {
	t.Helper()
	test := func(id string) error {
		cmd := exec.Command(bs.tests["shapes"], "-test.count=1")
		cmd.Dir = filepath.Join(root, "shapes")
		cmd.Env = append(os.Environ(), schemata.MutantEnv+"="+id)
		return cmd.Run()
	}
	if err := test(""); err != nil {
		t.Errorf("unmutated tests: %v", err)
	}
	if err := test("base"); err == nil {
		t.Error("tests pass with Base mutated")
	}

}

// shapesOwn: the mutants built alone, each its own build, always active.
func shapesOwn(t *testing.T, r *Runner, ms []catalogue.Mutant) {
	t.Helper()
	for id, w := range map[string]string{
		"size":      "10 20 4 HELLO\n6\n1 point\n[1 2]\nx {\"x\":1}\n",
		"signature": shapesPlain,
		"helper":    "10 20 3 HELLO!\n6\n1 point\n[1 2]\nx {\"x\":1}\n",
		"tag":       "10 20 3 HELLO\n6\n1 point\n[1 2]\nx {\"y\":1}\n",
	} {
		var m catalogue.Mutant
		for _, x := range ms {
			if x.ID == id {
				m = x
			}
		}
		own, broken, err := r.buildOwn(t.Context(), t.TempDir(), m, false)
		if err != nil || broken != "" {
			t.Fatalf("%s: own build: %v %s", id, err, broken)
		}
		if got, code := showMutant(t, own.harness, id); got != w || code != 0 {
			t.Errorf("%s (own build): exit %d\n%s\nwant:\n%s", id, code, got, w)
		}
		if got, code := showMutant(t, own.harness, ""); code != 2 || !strings.Contains(got, "holds mutant "+id+" only") {
			t.Errorf("%s (own build) without %s: exit %d %q", id, schemata.MutantEnv, code, got)
		}
	}
}

// shapesSchemata writes the shapes module and generates its schemata.
func shapesSchemata(t *testing.T) (string, *schemata.Schemata) {
	t.Helper()
	root := writeModule(t, shapesFiles)
	ms := shapesMutants()
	if err := catalogue.Resolve(root, ms); err != nil {
		t.Fatal(err)
	}
	s, err := schemata.NewSchemata(root, ms, nil)
	if err != nil {
		t.Fatal(err)
	}
	return root, s
}

// TestSchemataKeepsLines: every original line keeps its number (the
// dispatch shares the line of the opening brace; converted consts are
// blanked in place), so that errors, panics and coverage of original code
// point at the right line.
func TestSchemataKeepsLines(t *testing.T) {
	root, s := shapesSchemata(t)
	orig, _ := os.ReadFile(filepath.Join(root, "shapes", "shapes.go"))
	gen := s.Files["shapes/shapes.go"]
	ol := strings.Split(string(orig), "\n")
	gl := strings.Split(string(gen), "\n")
	for i, line := range ol {
		g := gl[i]
		switch {
		case g == line:
		case strings.HasPrefix(line, "func ") && strings.HasPrefix(g, "func ") && strings.Contains(g, "{ switch "+schemata.ActiveVar+" {"):
		case strings.HasPrefix(line, "const ") || strings.HasPrefix(line, "\tDouble"):
			if strings.TrimSpace(g) != "" {
				t.Errorf("line %d: converted const not blanked: %q", i+1, g)
			}
		case strings.HasPrefix(line, "var greeting"):
			if !strings.Contains(g, schemata.SelFunc+"(") {
				t.Errorf("line %d: %q", i+1, g)
			}
		default:
			t.Errorf("line %d changed:\n%q\n%q", i+1, line, g)
		}
	}
	if !bytes.Contains(gen, []byte("func sum__m")) || !bytes.Contains(gen, []byte("func (p *Point) move__m")) {
		t.Errorf("no copies of Sum and Move:\n%s", gen)
	}
	for _, named := range []string{
		"func (mcpparityRecv0 Point) Name() string { switch",
		"Move(mcpparityArg0 int, mcpparityArg1 string) int { switch " + schemata.ActiveVar + " { case 6: return p.move__m6(mcpparityArg0, mcpparityArg1); };",
		"Log(sb *strings.Builder, s string, mcpparityArg2 ...int) { switch " + schemata.ActiveVar + " { case 9: log__m9(sb, s, mcpparityArg2...); return; };",
		"return pair__m8[T](a, b);",
	} {
		if !bytes.Contains(gen, []byte(named)) {
			t.Errorf("no %q:\n%s", named, gen)
		}
	}
	test := s.Files["shapes/shapes_test.go"]
	if !bytes.Contains(test, []byte("var twice = Double * 2")) || !bytes.Contains(test, []byte("var local = Base + 1; _ = []any{local}")) {
		t.Errorf("the test file's consts on Base are not vars:\n%s", test)
	}
	if s.Own["tag"] == "" || s.Broken["unparsable"] == "" {
		t.Errorf("own %v, broken %v", s.Own, s.Broken)
	}
}

// TestBlame maps compile errors back to the mutant whose code fails, and
// errors that name a converted const to the mutants that converted it.
func TestBlame(t *testing.T) {
	root, s := shapesSchemata(t)
	lineOf := func(src, text string) int {
		for i, line := range strings.Split(src, "\n") {
			if strings.Contains(line, text) {
				return i + 1
			}
		}
		t.Fatalf("no %q", text)
		return 0
	}
	gen := string(s.Files["shapes/shapes.go"])
	orig := shapesFiles["shapes/shapes.go"]
	errs := schemata.ParseErrors("# example.com/shapes/shapes\n"+
		"/ov/src/shapes/shapes.go:"+strconv.Itoa(lineOf(gen, `return "total"`))+":9: cannot use \"total\" (untyped string constant) as int value in return statement\n"+
		"/ov/src/shapes/shapes.go:"+strconv.Itoa(lineOf(orig, "var Table"))+":12: invalid array length Size\n"+
		"\tmore about it\n", root, "/ov/src")
	if len(errs) != 2 || errs[0].File != "shapes/shapes.go" || !strings.Contains(errs[1].Text, "more about it") {
		t.Fatalf("parsed %+v", errs)
	}
	own, broken, err := s.Blame(errs)
	if err != nil {
		t.Fatal(err)
	}
	if len(broken) != 0 || own["size"] == "" || len(own) != 1 {
		t.Errorf("own %v, broken %v: hosting errors come first", own, broken)
	}
	own, broken, err = s.Blame(errs[:1])
	if err != nil || len(own) != 0 || !strings.Contains(broken["broken"], "copy of line "+strconv.Itoa(lineOf(orig, "return total"))) {
		t.Errorf("own %v, broken %v, err %v", own, broken, err)
	}
	if _, _, err := s.Blame([]schemata.CompileError{{File: "other/x.go", Line: 3, Text: "undefined: y"}}); err == nil {
		t.Error("an error no mutant explains was blamed on one")
	}
}

// TestNormalBuildHoldsNoMutant: the repository's own build of the harness
// has no mutant code (the schemata exist in overlays only), while a
// schemata build has it.
func TestNormalBuildHoldsNoMutant(t *testing.T) {
	needGo(t)
	root := repoRoot(t)
	out, err := exec.Command("grep", "-rl", schemata.MutantMark, filepath.Join(root, "impl")).CombinedOutput()
	if err == nil {
		t.Errorf("generated code in the tree:\n%s", out)
	}
	if testing.Short() {
		t.Skip("builds the harness")
	}
	bin := filepath.Join(t.TempDir(), "mcpparity")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/mcpparity")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	syms, err := exec.Command("go", "tool", "nm", bin).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool nm: %v\n%s", err, syms)
	}
	if !bytes.Contains(syms, []byte("impl.Sanitize")) {
		t.Fatal("the symbol table has no impl.Sanitize: nm output unexpected")
	}
	for _, sym := range []string{schemata.ActiveVar, schemata.SelFunc, "__m"} {
		if bytes.Contains(syms, []byte(sym)) {
			t.Errorf("the normal build holds %s", sym)
		}
	}
	// A mutant id means nothing to it: it runs unmutated.
	cmd = exec.CommandContext(t.Context(), bin, "help")
	cmd.Env = append(os.Environ(), schemata.MutantEnv+"=P7-no-trim")
	out, _ = cmd.CombinedOutput()
	if bytes.Contains(out, []byte("no such mutant")) {
		t.Errorf("the normal build reads %s: %s", schemata.MutantEnv, out)
	}
}
