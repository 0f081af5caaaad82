package mutations

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

const opSrc = "package p\n\nimport \"strings\"\n\ntype T struct {\n\tA string `json:\"a\"`\n}\n\n// F is small.\nfunc (t *T) F(n int) bool {\n\tif n < 3 && t.A == \"x\" {\n\t\tstrings.ToUpper(t.A)\n\t}\n\treturn n >= 0\n}\n"

func TestOperatorMutants(t *testing.T) {
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "p"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(root, "p", name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("p.go", opSrc)
	write("p_test.go", "package p\n\nfunc helper() bool { return 1 == 2 }\n")
	ms, err := catalogue.OperatorMutants(root, "p")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range ms {
		got = append(got, m.ID+" "+m.Original+"→"+m.Replacement)
		if m.Rule != "T.F" {
			t.Errorf("%s: scope %q", m.ID, m.Rule)
		}
	}
	want := []string{
		"p/p.go:11:7/boundary <→<=",
		"p/p.go:11:9/int+1 3→4",
		"p/p.go:11:9/int0 3→0",
		`p/p.go:11:18/negate ==→!=`,
		`p/p.go:11:21/empty-string "x"→""`,
		"p/p.go:12:3/remove-call strings.ToUpper(t.A)→",
		"p/p.go:14:11/boundary >=→>",
		"p/p.go:14:14/int+1 0→1",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("mutants:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Their offsets are right, and they resolve as they are.
	if err := catalogue.Resolve(root, ms); err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		out, err := m.Apply([]byte(opSrc))
		if err != nil || string(out) == opSrc {
			t.Errorf("%s: apply: %v", m.ID, err)
		}
	}
	// Stale once the source moves.
	write("p.go", "package p\n\n"+opSrc[len("package p\n"):])
	if err := catalogue.Resolve(root, ms); err == nil {
		t.Error("operator mutants of a changed file resolved")
	}
}

func TestOperatorMutantsOfImpl(t *testing.T) {
	ms, err := catalogue.OperatorMutants(repoRoot(t), "impl")
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) < 100 {
		t.Errorf("%d operator mutants of impl", len(ms))
	}
	ids := map[string]bool{}
	for _, m := range ms {
		if ids[m.ID] {
			t.Errorf("duplicate id %s", m.ID)
		}
		ids[m.ID] = true
		if strings.HasSuffix(m.File, "_test.go") {
			t.Errorf("%s mutates a test file", m.ID)
		}
	}
	if err := catalogue.Resolve(repoRoot(t), ms); err != nil {
		t.Fatal(err)
	}
}

func TestSample(t *testing.T) {
	ms := syntheticMutants(40)
	a := catalogue.Sample(ms, 10, 7)
	b := catalogue.Sample(ms, 10, 7)
	c := catalogue.Sample(ms, 10, 8)
	if len(a) != 10 || !reflect.DeepEqual(a, b) {
		t.Fatalf("sample not deterministic: %v %v", a, b)
	}
	if reflect.DeepEqual(a, c) {
		t.Error("seeds 7 and 8 gave the same sample")
	}
	for i := 1; i < len(a); i++ {
		if a[i].Index <= a[i-1].Index {
			t.Error("sample out of order")
		}
	}
	if len(catalogue.Sample(ms, 0, 1)) != 40 || len(catalogue.Sample(ms, 100, 1)) != 40 {
		t.Error("limit 0 or above the total must keep all")
	}
}
