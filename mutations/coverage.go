package mutations

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/mcpparity/mcpparity/internal/verdict"
	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

// coverage is what each unit of the baseline reached — each scenario of
// the check, each top-level test of a package —, from a build of the
// unmutated sources with -cover. A unit that never reaches a mutant's place
// cannot see the mutant: a mutant is run against the units that reach it
// only, and is "not covered" when none does.
type coverage struct {
	// suite and tests map a mutant to the scenarios and tests (of its
	// package) that reach it; a mutant absent from a map lies outside
	// every block (a package-level value, a type): every unit may see it.
	suite map[string][]string
	tests map[string][]string
	// suiteTime and testsTime are, per mutant, the baseline time of the
	// units that reach it, summed: the base of their timeout.
	suiteTime map[string]time.Duration
	testsTime map[string]time.Duration
}

// suiteFilter returns the --run filter of the scenarios reaching m: "" for
// all, and covered false when none reaches it.
func (c *coverage) suiteFilter(m catalogue.Mutant) (filter string, covered bool) {
	return unitFilter(c.suite, m.ID)
}

// testsFilter is suiteFilter for m's package tests.
func (c *coverage) testsFilter(m catalogue.Mutant) (filter string, covered bool) {
	return unitFilter(c.tests, m.ID)
}

func unitFilter(reach map[string][]string, id string) (string, bool) {
	units, ok := reach[id]
	if !ok {
		return "", true
	}
	if len(units) == 0 {
		return "", false
	}
	return runFilter(units), true
}

// block is one block of a coverage profile.
type block struct {
	l0, c0, l1, c1 int
	count          int
}

var profileLine = regexp.MustCompile(`^(.+):(\d+)\.(\d+),(\d+)\.(\d+) \d+ (\d+)$`)

// readProfile reads a text coverage profile into blocks by module-relative
// file.
func readProfile(name, module string) (map[string][]block, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][]block{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		m := profileLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		rel, ok := strings.CutPrefix(m[1], module+"/")
		if !ok {
			continue
		}
		n := make([]int, 5)
		for i := range n {
			n[i], _ = strconv.Atoi(m[i+2])
		}
		out[rel] = append(out[rel], block{n[0], n[1], n[2], n[3], n[4]})
	}
	return out, sc.Err()
}

// reached reports whether a block run at least once holds (line, col), and
// whether any block holds it at all.
func reached(blocks []block, line, col int) (hit, inBlock bool) {
	for _, b := range blocks {
		after := line > b.l0 || line == b.l0 && col >= b.c0
		before := line < b.l1 || line == b.l1 && col < b.c1
		if after && before {
			inBlock = true
			if b.count > 0 {
				return true, true
			}
		}
	}
	return false, inBlock
}

// unitProfile is the coverage of one unit.
type unitProfile struct {
	name   string
	blocks map[string][]block
	dur    time.Duration
}

// covUnit is one unit of the coverage baseline: a scenario (pkg "") or a
// top-level test of pkg.
type covUnit struct {
	pkg  string
	name string
}

// measureCoverage runs every scenario and every test of the coverage
// build alone, each writing its own profile, then decides which units
// reach which mutant.
func (r *Runner) measureCoverage(ctx context.Context, dir string, cov *built, scenarios []string, tests map[string]*pkgTests, ms []catalogue.Mutant) (*coverage, error) {
	mod, err := modulePath(r.cfg.Root)
	if err != nil {
		return nil, err
	}
	units, err := r.coverUnits(ctx, dir, cov, scenarios, tests)
	if err != nil {
		return nil, err
	}
	profiles := make([]unitProfile, len(units))
	errs := make([]error, len(units))
	measure := func(i int) {
		profiles[i], errs[i] = r.unitCoverage(ctx, dir, cov, mod, units[i].pkg, units[i].name, tests, i)
	}
	pool(ctx, r.lim.workers, len(units), measure)
	// Deadlines can fail under load: a unit that failed runs once more,
	// alone.
	var again []int
	for i, err := range errs {
		var be *BaselineError
		if errors.As(err, &be) {
			again = append(again, i)
		}
	}
	pool(ctx, 1, len(again), func(k int) { measure(again[k]) })
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return r.reach(units, profiles, ms)
}

// coverUnits lists the scenarios and the top-level tests of every
// package.
func (r *Runner) coverUnits(ctx context.Context, dir string, cov *built, scenarios []string, tests map[string]*pkgTests) ([]covUnit, error) {
	var units []covUnit
	for _, s := range scenarios {
		units = append(units, covUnit{"", s})
	}
	var pkgs []string
	for p := range tests {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	for _, p := range pkgs {
		x := r.exec(ctx, time.Minute, tests[p].dir, dir, []string{cov.tests[p], "-test.list", ".*"})
		if x.err != nil || x.timedOut {
			return nil, fmt.Errorf("coverage: listing the tests of %s: %v\n%s", tests[p].name, x.failure(), tail(x.out, 1000))
		}
		for _, t := range strings.Fields(x.out) {
			if isTestName(t) {
				units = append(units, covUnit{p, t})
			}
		}
	}
	return units, nil
}

// reach decides, for each mutant, which units reach its place and their
// baseline time.
func (r *Runner) reach(units []covUnit, profiles []unitProfile, ms []catalogue.Mutant) (*coverage, error) {
	c := &coverage{suite: map[string][]string{}, tests: map[string][]string{},
		suiteTime: map[string]time.Duration{}, testsTime: map[string]time.Duration{}}
	for _, m := range ms {
		line, col, err := position(r.cfg.Root, m.File, m.Offset)
		if err != nil {
			return nil, err
		}
		suite, tst := []string{}, []string{}
		suiteIn, testsIn := false, false
		for i, u := range units {
			hit, in := reached(profiles[i].blocks[m.File], line, col)
			switch {
			case u.pkg == "":
				suiteIn = suiteIn || in
				if hit {
					suite = append(suite, u.name)
					c.suiteTime[m.ID] += profiles[i].dur
				}
			case u.pkg == path.Dir(m.File):
				testsIn = testsIn || in
				if hit {
					tst = append(tst, u.name)
					c.testsTime[m.ID] += profiles[i].dur
				}
			}
		}
		if suiteIn {
			c.suite[m.ID] = suite
		} else {
			delete(c.suiteTime, m.ID)
		}
		if testsIn {
			c.tests[m.ID] = tst
		} else {
			delete(c.testsTime, m.ID)
		}
	}
	return c, nil
}

// unitCoverage runs one scenario (pkg "") or one test of pkg alone with
// coverage and reads its profile. The unit must pass, as in the whole
// baseline.
func (r *Runner) unitCoverage(ctx context.Context, dir string, cov *built, mod, pkg, name string, tests map[string]*pkgTests, i int) (unitProfile, error) {
	scratch := filepath.Join(dir, "unit"+strconv.Itoa(i))
	counters := filepath.Join(scratch, "counters")
	if err := os.MkdirAll(counters, 0o755); err != nil {
		return unitProfile{}, err
	}
	defer os.RemoveAll(scratch)
	profile := filepath.Join(scratch, "profile.out")
	const bound = 10 * time.Minute
	var dur time.Duration
	if pkg == "" {
		x, o := r.checkOnce(ctx, bound, scratch, cov.harness, "", counters, []string{"--run", "^" + regexpQuote(name) + "$"}, nil)
		if x.cancelled {
			return unitProfile{}, ctx.Err()
		}
		if o.Verdict != verdict.Survived {
			return unitProfile{}, &BaselineError{What: "check --run " + name + " (coverage build)", Output: x.out, Err: x.failure()}
		}
		dur = x.dur
		x = r.exec(ctx, time.Minute, r.cfg.Root, scratch, []string{r.cfg.Go, "tool", "covdata", "textfmt", "-i=" + counters, "-o=" + profile})
		if x.err != nil || x.timedOut {
			return unitProfile{}, fmt.Errorf("coverage of scenario %s: %v\n%s", name, x.failure(), tail(x.out, 1000))
		}
	} else {
		t := tests[pkg]
		x := r.runTestBinary(ctx, bound, cov.tests[pkg], t, "^"+regexpQuote(name)+"$", "", profile, "TMPDIR="+scratch)
		if x.cancelled {
			return unitProfile{}, ctx.Err()
		}
		if x.err != nil || x.timedOut {
			return unitProfile{}, &BaselineError{What: "test " + name + " of " + t.name + " (coverage build)", Output: x.out, Err: x.failure()}
		}
		dur = x.dur
	}
	blocks, err := readProfile(profile, mod)
	if err != nil {
		return unitProfile{}, fmt.Errorf("coverage of %s: %w", name, err)
	}
	return unitProfile{name: name, blocks: blocks, dur: dur}, nil
}

func regexpQuote(s string) string { return regexp.QuoteMeta(s) }

// position returns the line and byte column (1-based) of an offset of a
// file under root.
func position(root, rel string, offset int) (line, col int, err error) {
	src, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return 0, 0, err
	}
	if offset > len(src) {
		return 0, 0, fmt.Errorf("%s: offset %d past the end", rel, offset)
	}
	line = 1 + bytes.Count(src[:offset], []byte("\n"))
	col = offset - bytes.LastIndexByte(src[:offset], '\n')
	return line, col, nil
}
