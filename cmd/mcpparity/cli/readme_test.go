package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	// A command line in README: `mcpparity NAME …`, bin/mcpparity NAME …,
	// up to the end of its code span, a comment, a pipe or a redirection
	// ("\|" is a pipe in a table cell).
	readmeLine = regexp.MustCompile("(?:`|/)mcpparity ([a-z][a-z-]*)((?:[^`#|>;\n\\\\]|\\\\.)*)")
	readmeFlag = regexp.MustCompile(`(?:^|[\s\[|(])--?([a-z][a-z0-9-]*)`)
	usageFlag  = regexp.MustCompile(`(?m)^  -([a-z][a-z0-9-]*)`)
	// quoted is an argument in quotes: a command line of its own, whose
	// flags are not the subcommand's.
	quoted = regexp.MustCompile(`"[^"]*"|'[^']*'`)
)

// flagsOf returns the flags a subcommand's usage lists.
func flagsOf(t *testing.T, name string) map[string]bool {
	t.Helper()
	code, out, errs := run(name, "--help")
	if code != 0 {
		t.Fatalf("%s --help: exit %d %s", name, code, errs)
	}
	flags := map[string]bool{}
	for _, m := range usageFlag.FindAllStringSubmatch(out, -1) {
		flags[m[1]] = true
	}
	return flags
}

// TestReadmeCommandLines: README's table of commands shows every
// subcommand, and every command line README and docs/ show names a
// subcommand and flags that subcommand has.
func TestReadmeCommandLines(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(data)
	for _, n := range names() {
		if !strings.Contains(readme, "| `mcpparity "+n+" ") && !strings.Contains(readme, "| `mcpparity "+n+"`") {
			t.Errorf("README's table of commands lacks %s", n)
		}
	}
	docs, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	flags := map[string]map[string]bool{}
	total := 0
	for _, file := range append([]string{filepath.Join(repoRoot, "README.md")}, docs...) {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		total += checkCommandLines(t, filepath.Base(file), string(data), flags)
	}
	if total < 40 {
		t.Fatalf("%d command lines found in README and docs/", total)
	}
}

// checkCommandLines checks the command lines of one Markdown text and
// returns how many it found.
func checkCommandLines(t *testing.T, file, text string, flags map[string]map[string]bool) int {
	t.Helper()
	lines := readmeLine.FindAllStringSubmatch(text, -1)
	for _, m := range lines {
		name, rest := m[1], m[2]
		if name == "help" {
			continue // mcpparity help <subcommand>
		}
		if commands[name] == nil {
			t.Errorf("%s: %q: no subcommand %s", file, m[0], name)
			continue
		}
		if flags[name] == nil {
			flags[name] = flagsOf(t, name)
		}
		for _, f := range readmeFlag.FindAllStringSubmatch(quoted.ReplaceAllString(rest, ""), -1) {
			if !flags[name][f[1]] {
				t.Errorf("%s: %q: %s has no flag --%s", file, m[0], name, f[1])
			}
		}
	}
	return len(lines)
}
