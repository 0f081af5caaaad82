package cli

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestOldSpellings: a command line of mutate or record as once spelled runs
// the subcommand that now does its job (its error lines name it), after
// exactly one notice line on stderr.
func TestOldSpellings(t *testing.T) {
	empty := t.TempDir()
	missing := filepath.Join(empty, "no-such-target.yaml")
	for _, c := range []struct {
		args   string
		notice string
		code   int
		want   string // in the output after the notice
	}{
		{"mutate --target-file " + missing, `"mutate --target-file" is now "mutate-target --target-file"`, 2, "mcpparity mutate-target: "},
		{"mutate -target-file=" + missing + " --shard 1/2", `"mutate -target-file" is now "mutate-target -target-file"`, 2,
			"mcpparity mutate-target: flag provided but not defined: -shard"},
		{"mutate --check --shard 3/2", `"mutate --check" is now "mutate --compile-only"`, 2, "mcpparity mutate: "},
		{"record --upstream http://127.0.0.1:1/mcp --out-dir d", `"record --upstream" is now "record-proxy --upstream"`, 2,
			"mcpparity record-proxy: --out-dir records a stdio server"},
		{"record --upstream-cmd x --check", `"record --upstream-cmd" is now "record-proxy --upstream-cmd"`, 2,
			"mcpparity record-proxy: flag provided but not defined: -check"},
		{"record --suite " + empty, `"record --suite" is now "record-suite --suite"`, 2, "mcpparity record-suite: " + empty + " holds no fixture"},
		{"record --check --suite " + empty + " --name n --upstream-cmd x", `"record --check --suite" is now "record-suite --drift --suite"`, 2,
			"mcpparity record-suite: --upstream and --upstream-cmd record a new fixture: they need --name and do not go with --drift"},
		{"record --check --out " + empty, `"record --check" is now "record --drift"`, 1, "record --drift: "},
	} {
		code, out, errs := run(strings.Fields(c.args)...)
		notice := "mcpparity: " + c.notice + "; the old spelling still works\n"
		if code != c.code || !strings.HasPrefix(errs, notice) || strings.Count(errs, "mcpparity: ") != 1 || !strings.Contains(out+errs[len(notice):], c.want) {
			t.Errorf("%s: exit %d, want %d, one notice %q and %q; stdout:\n%s\nstderr:\n%s", c.args, code, c.code, notice, c.want, out, errs)
		}
	}
}

// TestMutateCheckCompiles: mutate --check compiles the selected mutants,
// as mutate --compile-only does.
func TestMutateCheckCompiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the schemata")
	}
	root := writeCatalogueModule(t, false)
	for _, flag := range []string{"--compile-only", "--check"} {
		code, out, errs := mutate(t, "mutate", "--root", root, flag)
		if code != 0 || !strings.Contains(out, "2 mutant(s) compiled") {
			t.Errorf("%s: exit %d\n%s%s", flag, code, out, errs)
		}
		if notice := strings.Contains(errs, `"mutate --check" is now "mutate --compile-only"`); notice != (flag == "--check") {
			t.Errorf("%s: stderr:\n%s", flag, errs)
		}
	}
}

// TestGivenAndRenamedFlags: flags are found and renamed as given, their
// dashes and values kept, up to "--".
func TestGivenAndRenamedFlags(t *testing.T) {
	args := []string{"-x", "--check=false", "v", "--", "--suite"}
	if got := givenFlag(args, "suite"); got != "" {
		t.Errorf("a flag after --: %q", got)
	}
	if got := givenFlag(args, "check", "x"); got != "-x" {
		t.Errorf("the first given: %q", got)
	}
	want := []string{"-x", "--drift=false", "v", "--", "--suite"}
	if got := renameFlag(args, "check", "drift"); !reflect.DeepEqual(got, want) {
		t.Errorf("renamed: %q, want %q", got, want)
	}
}
