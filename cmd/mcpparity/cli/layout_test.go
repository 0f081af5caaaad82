package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// repoRoot is the folder of go.mod, from this package's folder.
const repoRoot = "../../.."

// processCalls lists where a Go file ends the process (os.Exit,
// syscall.Exit, log.Fatal…), reads the command line (os.Args) or parses
// one (the flag package), as "file:line: what".
func processCalls(fset *token.FileSet, f *ast.File) []string {
	names := map[string]string{} // local name → import path
	var out []string
	for _, imp := range f.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		names[name] = path
		if path == "flag" {
			out = append(out, fset.Position(imp.Pos()).String()+": imports flag")
		}
	}
	banned := map[string]bool{"os.Exit": true, "os.Args": true, "syscall.Exit": true,
		"log.Fatal": true, "log.Fatalf": true, "log.Fatalln": true}
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		if id, ok := sel.X.(*ast.Ident); ok {
			if what := names[id.Name] + "." + sel.Sel.Name; banned[what] {
				out = append(out, fset.Position(sel.Pos()).String()+": "+what)
			}
		}
		return true
	})
	return out
}

// TestOnlyCmdEndsTheProcess: outside cmd/, no Go file but a test calls
// os.Exit (or its like), reads os.Args or uses the flag package: the
// libraries return errors and take typed configuration; cmd/ parses
// command lines and chooses exit codes.
func TestOnlyCmdEndsTheProcess(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	var found []string
	err := filepath.WalkDir(repoRoot, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repoRoot, path)
		base := d.Name()
		if d.IsDir() {
			// What the go tool leaves out (other modules too), and node_modules.
			if rel != "." && (rel == "cmd" || base == "testdata" || base == "node_modules" || base == "vendor" || strings.HasPrefix(base, ".") || strings.HasPrefix(base, "_")) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && rel != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(base, ".go") || strings.HasSuffix(base, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		checked++
		found = append(found, processCalls(fset, f)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 80 {
		t.Fatalf("only %d Go files checked: the walk missed the module", checked)
	}
	for _, f := range found {
		t.Errorf("outside cmd/: %s", f)
	}
}

// TestProcessCallsFinds: the detector finds each form, under an alias too,
// and nothing called os that is not the package.
func TestProcessCallsFinds(t *testing.T) {
	src := `package p

import (
	"flag"
	"log"
	sys "os"
)

func f() {
	_ = flag.Args
	log.Fatalf("x")
	if len(sys.Args) > 1 {
		sys.Exit(2)
	}
	var os struct{ Exit func(int) }
	os.Exit(1)
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(processCalls(fset, f), "\n")
	want := "p.go:4:2: imports flag\np.go:11:2: log.Fatalf\np.go:12:9: os.Args\np.go:13:3: os.Exit"
	if got != want {
		t.Errorf("found:\n%s\nwant:\n%s", got, want)
	}
	main, err := os.ReadFile("../main.go")
	if err != nil {
		t.Fatal(err)
	}
	f, err = parser.ParseFile(fset, "main.go", main, parser.SkipObjectResolution)
	if err != nil || len(processCalls(fset, f)) != 2 {
		t.Errorf("cmd/mcpparity/main.go: %v %v", err, processCalls(fset, f))
	}
}
