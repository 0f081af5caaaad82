package catalogue

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"

	"github.com/mcpparity/mcpparity/internal/scenario"
)

// ScenariosDir is the folder of the scenarios, relative to the module root.
const ScenariosDir = "scenarios"

// ChangedFiles lists the files changed between rev and the working tree
// (git diff --name-only), relative to root, slash-separated.
func ChangedFiles(ctx context.Context, root, rev string) ([]string, error) {
	if strings.HasPrefix(rev, "-") {
		return nil, fmt.Errorf("revision %q", rev)
	}
	cmd := exec.CommandContext(ctx, "git", "diff", "--name-only", "--relative", "--no-renames", rev, "--")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			return nil, fmt.Errorf("git diff --name-only %s: %v: %s", rev, err, strings.TrimSpace(string(ee.Stderr)))
		}
		return nil, fmt.Errorf("git diff --name-only %s: %w", rev, err)
	}
	var files []string
	for _, line := range strings.Split(string(out), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			files = append(files, filepath.ToSlash(line))
		}
	}
	return files, nil
}

// RuleScenarios reads the scenarios of the tree at root (ScenariosDir)
// and names, for each rule, those with a step that tests it (the steps'
// `rules`, as docs/rules-coverage.md shows them). The error wraps
// fs.ErrNotExist when the folder is absent.
func RuleScenarios(root string) (map[string][]string, error) {
	scenarios, err := scenario.LoadScenarios(os.DirFS(root), ScenariosDir)
	if err != nil {
		return nil, err
	}
	return scenario.RuleScenarios(scenarios), nil
}

// ruleFiles are the files whose change concerns a rule: the files of its
// mutants in all, its catalogue file (catalogueDir/<rule>.json), and its
// scenarios' files (scenarios/<name>.json, golden/<name>.golden).
func ruleFiles(rule string, all []Mutant, scenarios map[string][]string, catalogueDir string) map[string]bool {
	files := map[string]bool{path.Join(catalogueDir, rule+".json"): true}
	for _, m := range all {
		if m.Rule == rule {
			files[m.File] = true
		}
	}
	for _, s := range scenarios[rule] {
		files["scenarios/"+s+".json"] = true
		files["golden/"+s+".golden"] = true
	}
	return files
}

// SelectChanged keeps the mutants of ms whose rule's files (RuleFiles, all
// being the whole catalogue) include a changed file.
func SelectChanged(ms, all []Mutant, changed []string, scenarios map[string][]string, catalogueDir string) []Mutant {
	hit := map[string]bool{}
	for _, f := range changed {
		hit[f] = true
	}
	concerned := map[string]bool{}
	var out []Mutant
	for _, m := range ms {
		c, ok := concerned[m.Rule]
		if !ok {
			for f := range ruleFiles(m.Rule, all, scenarios, catalogueDir) {
				if hit[f] {
					c = true
					break
				}
			}
			concerned[m.Rule] = c
		}
		if c {
			out = append(out, m)
		}
	}
	return out
}
