package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/cmdline"
	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
)

func init() {
	register("matrix", "run the scenarios against several implementations side by side (table, Markdown, HTML)", runMatrix)
}

// defaultPortFile is the TypeScript port's target file, part of the
// default matrix when it is there.
const defaultPortFile = "ports/typescript/target.yaml"

// rustPortFile is the Rust port's target file, part of the default matrix
// once the port is built (rustPortBinary is there: a checkout without
// cargo has the file but no build).
const (
	rustPortFile   = "ports/rust/target.yaml"
	rustPortBinary = "ports/rust/target/release/mcpparity-rust"
)

// Port is a port of this repository: its target file and a file its build
// leaves, both relative to the module root.
type Port struct{ Name, TargetFile, Built string }

// Ports are this repository's ports, as the tests gate them.
var Ports = []Port{
	{"typescript", defaultPortFile, "ports/typescript/dist/main.js"},
	{"rust", rustPortFile, rustPortBinary},
}

func runMatrix(ctx context.Context, c *call) int {
	fs := c.flags("[--target T]... [--target-file F]... [--suite DIR]... [--no-builtin] [flags]", `
The implementations are ref, `+defaultPortFile+` (when it is there) and
`+rustPortFile+` (once built), then every --target and --target-file, in
order; --no-defaults keeps only those. A target or file given twice is one
implementation (NAME=SPEC names one already there). Each implementation
runs in each era of --era (by default both): one column per
implementation and era, named NAME ERA.
exit codes: 0 every implementation in parity, 1 one diverges, 2 one could not run`)
	var targets, files listFlag
	fs.Var(&targets, "target", "a `target` to add, repeatable: [NAME=]SPEC, SPEC as for check (ref, cmd:…, url:…, image:…)")
	fs.Var(&files, "target-file", "a target `file` to add, repeatable")
	noDefaults := fs.Bool("no-defaults", false, "leave out ref and the ports")
	var eras listFlag
	fs.Var(&eras, "era", "an `era` to run each implementation in, repeatable: "+impl.EraHandshake+" or "+impl.EraModern+" (default: both)")
	runExpr := fs.String("run", "", "run only the scenarios whose name (03-status, SUITE:NAME) matches this regular expression")
	sf := declareSuiteFlags(fs, true)
	markdown := fs.String("markdown", "", "write the matrix as Markdown to this file")
	html := fs.String("html", "", "write the matrix as one self-contained HTML page to this file")
	jsonOut := fs.String("json", "", "write the matrix as JSON to this file")
	if code, done := c.parse(); done {
		return code
	}
	impls := matrixImpls(*noDefaults, targets, files)
	if len(impls) == 0 {
		return c.badUsage("no implementation: --no-defaults needs a --target or a --target-file")
	}
	if len(eras) == 0 {
		eras = impl.Eras
	}
	for _, e := range eras {
		if _, err := impl.ParseEra(e); err != nil || e == "" {
			return c.badUsage("--era %q: want %s or %s", e, impl.EraHandshake, impl.EraModern)
		}
	}
	base, scs, golden, code := c.setup(*runExpr, sf, true)
	if code != 0 {
		return code
	}
	outs, err := openFiles(map[string]string{"markdown": *markdown, "html": *html, "json": *jsonOut})
	if err != nil {
		return c.fail(exitCannotRun, err)
	}
	defer outs.abort()
	stdout := c.stdout
	m := runColumns(ctx, base, scs, golden, impls, eras, stdout)
	fmt.Fprintln(stdout)
	report.WriteMatrixText(stdout, m)
	if err := outs.write(map[string]func(io.Writer) error{
		"markdown": func(w io.Writer) error { report.WriteMatrixMarkdown(w, m); return nil },
		"html":     func(w io.Writer) error { return report.WriteMatrixHTML(w, m) },
		"json":     func(w io.Writer) error { return writeJSON(w, m) },
	}); err != nil {
		return c.fail(exitCannotRun, err)
	}
	switch diverged, errored := m.Failed(); {
	case errored:
		return exitCannotRun
	case diverged:
		return exitDiverged
	}
	return exitParity
}

// A matrixImpl is a column of the matrix: a target spec or a target file.
type matrixImpl struct {
	name, spec, file string
	named            bool // name given as NAME=SPEC
}

// key is what makes two columns the same: the spec, or the file's cleaned
// absolute path.
func (im matrixImpl) key() string {
	if im.file == "" {
		return "spec " + im.spec
	}
	if abs, err := filepath.Abs(im.file); err == nil {
		return "file " + abs
	}
	return "file " + filepath.Clean(im.file)
}

// matrixImpls lists the columns: the defaults, then the targets, then the
// target files, each once. A target or file already listed (ref given
// again, a default port's file, the same file by another path) keeps its
// first place; a NAME=SPEC names it when it was not named by NAME= before,
// since the user asked for that name and a default's is only a default.
func matrixImpls(noDefaults bool, targets, files []string) []matrixImpl {
	var impls []matrixImpl
	add := func(im matrixImpl) {
		for i := range impls {
			if impls[i].key() == im.key() {
				if im.named && !impls[i].named {
					impls[i].name, impls[i].named = im.name, true
				}
				return
			}
		}
		impls = append(impls, im)
	}
	if !noDefaults {
		add(matrixImpl{name: "ref", spec: "ref"})
		if _, err := os.Stat(defaultPortFile); err == nil {
			add(matrixImpl{name: "typescript", file: defaultPortFile})
		}
		if _, err := os.Stat(rustPortBinary); err == nil {
			add(matrixImpl{name: "rust", file: rustPortFile})
		}
	}
	for _, t := range targets {
		name, spec, named := implName(t)
		add(matrixImpl{name: name, spec: spec, named: named})
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), filepath.Ext(f))
		if name == "target" {
			name = filepath.Base(filepath.Dir(f))
		}
		add(matrixImpl{name: name, file: f})
	}
	return impls
}

// runColumns runs the scenarios against each implementation in each era
// in turn, a line each on stdout; one that cannot run is a column with its
// error. A column is named for its implementation, and its era when
// there are several.
func runColumns(ctx context.Context, base *runner.Config, scs []*scenario.Scenario, golden scenario.Golden, impls []matrixImpl, eras []string, stdout io.Writer) *report.Matrix {
	m := &report.Matrix{}
	for _, s := range scs {
		m.Scenarios = append(m.Scenarios, s.ID())
	}
	for _, im := range impls {
		for _, era := range eras {
			col := report.Column{Name: im.name, Target: im.spec, Era: era}
			if len(eras) > 1 {
				col.Name += " " + era
			}
			m.Columns = append(m.Columns, runColumn(ctx, *base, scs, golden, im, col, stdout))
			if ctx.Err() != nil {
				return m
			}
		}
	}
	return m
}

// runColumn runs the scenarios against one implementation in col's era.
func runColumn(ctx context.Context, cfg runner.Config, scs []*scenario.Scenario, golden scenario.Golden, im matrixImpl, col report.Column, stdout io.Writer) report.Column {
	devs, err := targetConfig(&cfg, im.spec, im.file, col.Era)
	if err == nil {
		col.Target = cfg.Target.Name()
		err = reach(ctx, cfg.Target)
	}
	if err != nil {
		col.Err = err.Error()
		fmt.Fprintf(stdout, "%s: could not run: %v\n", col.Name, err)
		return col
	}
	fmt.Fprintf(stdout, "%s: %s\n", col.Name, col.Target)
	col.Results = runner.Check(ctx, cfg, scs, golden, devs, nil)
	fmt.Fprintf(stdout, "  %s\n", report.Totals(col.Results))
	return col
}

// implName reads "[NAME=]SPEC" (named: NAME= was given); without a name, a
// short one is made from the spec (cmd: the command's base name).
func implName(arg string) (name, spec string, named bool) {
	if n, rest, ok := strings.Cut(arg, "="); ok && !strings.Contains(n, ":") && n != "" {
		return n, rest, true
	}
	kind, rest, _ := strings.Cut(arg, ":")
	if kind == "cmd" {
		if argv, err := cmdline.Split(rest); err == nil {
			return "cmd:" + filepath.Base(argv[0]), arg, false
		}
	}
	return arg, arg, false
}
