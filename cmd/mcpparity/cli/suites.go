package cli

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"

	"github.com/mcpparity/mcpparity/internal/scenario"
)

// suiteFlags are --suite (repeatable) and, where the embedded scenarios
// may be left out, --no-builtin.
type suiteFlags struct {
	dirs      listFlag
	noBuiltin *bool
}

const suiteUsage = "a suite `folder` (scenarios/, golden/, fixtures/), repeatable: [NAME=]DIR; its scenarios are named NAME:SCENARIO, NAME by default the folder's base name"

// declareSuiteFlags declares --suite, and --no-builtin when builtin.
func declareSuiteFlags(fs *flag.FlagSet, builtin bool) *suiteFlags {
	sf := &suiteFlags{}
	fs.Var(&sf.dirs, "suite", suiteUsage)
	if builtin {
		sf.noBuiltin = fs.Bool("no-builtin", false, "leave out the embedded scenarios: only those of the --suite folders")
	}
	return sf
}

// builtin reports whether the embedded scenarios are in.
func (sf *suiteFlags) builtin() bool { return sf.noBuiltin == nil || !*sf.noBuiltin }

// suites parses the --suite arguments.
func (sf *suiteFlags) suites() ([]scenario.Suite, error) {
	if !sf.builtin() && len(sf.dirs) == 0 {
		return nil, errors.New("--no-builtin needs a --suite")
	}
	var out []scenario.Suite
	for _, d := range sf.dirs {
		su, err := scenario.ParseSuite(d)
		if err != nil {
			return nil, err
		}
		out = append(out, su)
	}
	return out, nil
}

// suiteCheckArgs are the arguments of the checks mutate runs: "check",
// then each suite as --suite NAME=DIR (absolute: check runs in another
// folder), once the suites load and every scenario has its golden file
// (nil without --suite).
func (c *call) suiteCheckArgs(sf *suiteFlags) ([]string, int) {
	if len(sf.dirs) == 0 {
		return nil, 0
	}
	suites, err := sf.suites()
	if err != nil {
		return nil, c.badUsage("%v", err)
	}
	all, err := c.loadScenarios(true, suites)
	if err == nil {
		err = scenario.RequireGolden(all, scenario.GoldenOf(all))
	}
	if err != nil {
		return nil, c.failf(2, "%v; no mutant was run", err)
	}
	args := []string{"check"}
	for _, su := range suites {
		args = append(args, "--suite", su.Name+"="+su.Dir)
	}
	return args, 0
}

// loadScenarios loads the scenarios (scenario.Load) and says once, on
// stderr, which suites hold steps that name no kind: the format before
// step kinds, still read (their kinds inferred).
func (c *call) loadScenarios(builtin bool, suites []scenario.Suite) ([]*scenario.Scenario, error) {
	all, err := scenario.Load(builtin, suites)
	steps, files := map[string]int{}, map[string]int{}
	for _, s := range all {
		if s.InferredKinds > 0 {
			steps[s.Dir] += s.InferredKinds
			files[s.Dir]++
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(steps)) {
		fmt.Fprintf(c.stderr, "mcpparity: %s: %d step(s) in %d scenario file(s) name no kind (the format before step kinds): their kinds were inferred; add \"kind\" to each (scenarios/README.md)\n", dir, steps[dir], files[dir])
	}
	return all, err
}
