package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var (
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// outside names files that are not in the repository.
	outside = regexp.MustCompile(`DESIGN\.md|\.\./shared\b`)
)

// skipDir are folders of generated or fetched files.
func skipDir(name string) bool {
	return name == ".git" || name == "node_modules" || name == "dist" || name == "bin"
}

// TestNothingPointsOutside: every relative Markdown link resolves to a file
// of the repository, and no text names a file that is not in it.
func TestNothingPointsOutside(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && skipDir(d.Name()) {
				return fs.SkipDir
			}
			return nil
		}
		ext := filepath.Ext(p)
		if ext != ".md" && ext != ".go" && ext != ".ts" && ext != ".yaml" && ext != ".json" && ext != ".mjs" && d.Name() != "Makefile" && d.Name() != "run" {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if rel == filepath.Join("docs", "links_test.go") {
			return nil
		}
		checked++
		text := string(data)
		if m := outside.FindString(text); m != "" {
			t.Errorf("%s names %q, which is not in the repository", rel, m)
		}
		if ext != ".md" {
			return nil
		}
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "#") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			target, _, _ = strings.Cut(target, "#")
			abs := filepath.Join(filepath.Dir(p), filepath.FromSlash(target))
			if r, err := filepath.Rel(root, abs); err != nil || strings.HasPrefix(r, "..") {
				t.Errorf("%s links to %s, outside the repository", rel, m[1])
				continue
			}
			if _, err := os.Stat(abs); err != nil {
				t.Errorf("%s links to %s: %v", rel, m[1], err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 20 {
		t.Fatalf("only %d files checked: the walk missed the repository", checked)
	}
}
