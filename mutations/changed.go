package mutations

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// RulesCoverageDoc is the rule → scenario table, relative to the module
// root: a Markdown table whose first column is a rule id and whose second
// names the scenarios that check it ("`07-routes`: save while connecting").
const RulesCoverageDoc = "docs/rules-coverage.md"

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

var (
	scenarioName = regexp.MustCompile(`\b\d{2}-[A-Za-z0-9][A-Za-z0-9_-]*`)
	tableRule    = regexp.MustCompile(`^[*_` + "`" + `\s]*(C[1-8]|P1[0-7]|P[1-9])[*_` + "`" + `\s]*$`)
)

// RuleScenarios reads RulesCoverageDoc under root: the scenarios named in
// the second column of each rule's rows. The error wraps fs.ErrNotExist
// when the file is absent.
func RuleScenarios(root string) (map[string][]string, error) {
	f, err := os.Open(filepath.Join(root, filepath.FromSlash(RulesCoverageDoc)))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return parseRuleScenarios(bufio.NewScanner(f))
}

func parseRuleScenarios(sc *bufio.Scanner) (map[string][]string, error) {
	out := map[string][]string{}
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if !strings.HasPrefix(line, "|") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		if len(cells) < 2 {
			continue
		}
		m := tableRule.FindStringSubmatch(cells[0])
		if m == nil {
			continue
		}
		rule := m[1]
		if out[rule] == nil {
			out[rule] = []string{}
		}
		for _, name := range scenarioName.FindAllString(cells[1], -1) {
			out[rule] = appendUnique(out[rule], name)
		}
	}
	return out, sc.Err()
}

// RuleFiles are the files whose change concerns a rule: the files of its
// mutants in all, its catalogue file (catalogueDir/<rule>.json), and its
// scenarios' files (scenarios/<name>.json, golden/<name>.golden).
func RuleFiles(rule string, all []Mutant, scenarios map[string][]string, catalogueDir string) map[string]bool {
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
			for f := range RuleFiles(m.Rule, all, scenarios, catalogueDir) {
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
