package mutations

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/mcpparity/mcpparity/internal/cmdline"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
	"github.com/mcpparity/mcpparity/internal/verdict"
	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

// modeTarget is the mode of a run of a target's own mutants.
const modeTarget = "target"

// TargetConfig tunes RunTarget.
type TargetConfig struct {
	// File is the target file; its mutants section names the catalogue and
	// the build.
	File string
	// Harness is the mcpparity binary check runs with.
	Harness string
	// Dir is where check runs (the target file's paths, {dir} aside, are
	// relative to it); "" means the current folder.
	Dir string
	// Workers, ConfirmWorkers, Floor and Multiplier are Config's, with the
	// same defaults (scheduler.go).
	Workers        int
	ConfirmWorkers int
	Floor          time.Duration
	Multiplier     float64
	// Progress receives a line per finished mutant (nil: none).
	Progress io.Writer
	// IDs selects mutants or rules (empty: all).
	IDs []string
	// CheckArgs are check's arguments (nil: "check"), e.g. with --suite.
	CheckArgs []string
	// Fuzz, as Config's.
	Fuzz FuzzConfig
	// Catalogue, when set, replaces the mutants section's catalogue (a
	// folder relative to the target file's), e.g. a batch of one's own.
	Catalogue string
}

// buildTimeout bounds one build of a copy of the target.
const buildTimeout = 5 * time.Minute

// RunTarget applies each mutant of a target's own catalogue to a copy of
// the target file's folder, builds the copy and runs check with the
// copy's target file: a mutant is killed when check exits 1 naming a
// difference. An unmutated copy is built and checked first (it must pass).
// A target whose mutants are compiled in (a switch) is neither copied nor
// built: check runs its own target file with the switch naming the mutant
// (empty for the baseline), and its equivalent mutants are said, not run.
// The mutants run and are confirmed as rule mutants are (scheduler.go): a
// kill seen only under load does not count.
func RunTarget(ctx context.Context, cfg TargetConfig) (*Report, error) {
	start := time.Now()
	tf, ms, sw, err := loadTargetMutants(&cfg)
	if err != nil {
		return nil, err
	}
	r, err := NewRunner(Config{Root: cfg.Dir, Harness: cfg.Harness, Workers: cfg.Workers, ConfirmWorkers: cfg.ConfirmWorkers,
		Floor: cfg.Floor, Multiplier: cfg.Multiplier, Progress: cfg.Progress, CheckArgs: cfg.CheckArgs})
	if err != nil {
		return nil, err
	}
	r.inProcess = false // the target runs in processes of its own
	tmp, err := os.MkdirTemp("", "mcpparity-mutate-target-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	scenarios, err := scenario.EmbeddedScenarios()
	if err != nil {
		return nil, err
	}
	t := &targetRun{reporter: reporter{r: r, n: len(ms), rep: &Report{Version: ReportVersion, Mode: modeTarget,
		Selected: len(ms), Workers: r.cfg.Workers, Started: start.UTC().Truncate(time.Second)}},
		cfg: cfg, tf: tf, sw: sw, tmp: tmp, file: filepath.Base(cfg.File), byRule: scenario.RuleScenarios(scenarios),
		kept: map[string]builtCopy{}}
	if sw != nil {
		for _, m := range sw.Equivalent {
			r.say("equivalent, not run: %s: %s", m.ID, m.Why)
		}
	}
	if err := t.baseline(ctx); err != nil {
		if ctx.Err() != nil {
			return t.report(ctx, start)
		}
		return nil, err
	}
	defer t.base.remove()
	sch := &scheduler{lim: r.lim}
	unsure := sch.run(ctx, t.trials(ms))
	r.confirm(ctx, sch, unsure, start)
	r.fuzzPhase(ctx, cfg.Fuzz, t.rep, tmp, t.fuzzTarget, t.unmutated)
	for _, c := range t.kept {
		c.remove()
	}
	return t.report(ctx, start)
}

// loadTargetMutants reads the target file and its catalogue (a switch
// catalogue when the target names a switch), keeps the mutants of cfg.IDs
// and resolves them; it fills cfg.Dir.
func loadTargetMutants(cfg *TargetConfig) (*target.TargetFile, []catalogue.Mutant, *catalogue.SwitchCatalogue, error) {
	tf, err := target.LoadTargetFile(cfg.File)
	if err != nil {
		return nil, nil, nil, err
	}
	if tf.Mutants == nil {
		return nil, nil, nil, fmt.Errorf("target file %s has no mutants section (docs/targets.md)", cfg.File)
	}
	if cfg.Catalogue != "" {
		tf.Mutants.Catalogue = cfg.Catalogue
	}
	var ms []catalogue.Mutant
	var sw *catalogue.SwitchCatalogue
	if tf.Mutants.Switch != "" {
		if sw, err = catalogue.LoadSwitchCatalogue(os.DirFS(tf.Dir), tf.Mutants.Catalogue); err == nil {
			ms = sw.Mutants
		}
	} else {
		ms, err = catalogue.LoadTargetCatalogue(os.DirFS(tf.Dir), tf.Mutants.Catalogue)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	if len(cfg.IDs) > 0 {
		if ms, err = catalogue.Select(ms, cfg.IDs); err != nil {
			return nil, nil, nil, err
		}
	}
	if sw == nil {
		if err := catalogue.Resolve(tf.Dir, ms); err != nil {
			return nil, nil, nil, err
		}
	}
	Number(ms)
	if cfg.Dir == "" {
		if cfg.Dir, err = os.Getwd(); err != nil {
			return nil, nil, nil, err
		}
	}
	return tf, ms, sw, nil
}

// targetRun is one run of a target's mutants.
type targetRun struct {
	reporter
	cfg TargetConfig
	tf  *target.TargetFile
	sw  *catalogue.SwitchCatalogue // the compiled-in mutants (nil: copies)
	// checked are the eras the baseline was checked in, besides the run's.
	checked []string
	tmp     string
	file    string // the target file's name in its folder
	// byRule names, for each rule, the scenarios whose steps test it.
	byRule map[string][]string
	// base is the unmutated copy, built and checked; timeout bounds a
	// check of a copy.
	base    builtCopy
	timeout time.Duration
	// kept are the copies the fuzz phase still needs, by mutant.
	kept map[string]builtCopy
}

// fuzzTarget is how the fuzz phase runs a mutant: its kept copy, or the
// target's own file with its switch naming the mutant.
func (t *targetRun) fuzzTarget(res Result) (fuzzTarget, error) {
	c, ok := t.kept[res.ID]
	if !ok {
		return fuzzTarget{}, fmt.Errorf("no build of %s to fuzz", res.ID)
	}
	return fuzzTarget{harness: t.cfg.Harness, dir: c.dir, file: c.file, env: t.switchEnv(res.ID)}, nil
}

// unmutated is how the fuzz phase runs the target without mutant: the
// unmutated copy, its switch naming none.
func (t *targetRun) unmutated() (fuzzTarget, error) {
	return fuzzTarget{harness: t.cfg.Harness, dir: t.base.dir, file: t.base.file, env: t.switchEnv("")}, nil
}

// baseline builds and checks an unmutated copy: it must pass. The copy is
// kept, to settle timeouts.
func (t *targetRun) baseline(ctx context.Context) error {
	dir, err := os.MkdirTemp(t.tmp, "baseline-")
	if err != nil {
		return err
	}
	t.base.dir = dir
	copyFile, build, err := t.copyTarget(ctx, dir, nil)
	if err != nil {
		return &BaselineError{What: "the build of " + t.tf.Dir, Err: err}
	}
	t.base.file = copyFile
	start := time.Now()
	x, o := t.r.checkOnce(ctx, baselineBound, dir, t.cfg.Harness, "", "", []string{"--target-file", copyFile}, nil, t.switchEnv("")...)
	check := time.Since(start)
	if x.cancelled {
		return ctx.Err()
	}
	if o.Verdict != verdict.Survived {
		return &BaselineError{What: "check of " + t.tf.Dir, Output: x.out, Err: fmt.Errorf("check of the unmutated target: %s %s%s", o.Verdict, o.KilledBy, o.Error)}
	}
	if err := t.baselineEras(ctx, dir, copyFile); err != nil {
		return err
	}
	t.timeout = t.r.lim.timeout(check)
	t.rep.Baselines = []Baseline{{Name: "build", Seconds: secondsOf(build)},
		{Name: "check", Seconds: secondsOf(check), Timeout: secondsOf(t.timeout)}}
	t.r.say("baseline: build %.1fs, check %.1fs; timeout per check %.0fs", build.Seconds(), check.Seconds(), t.timeout.Seconds())
	return nil
}

// baselineEras checks the unmutated copy in each era a mutant of the
// catalogue is judged in: it must pass there too, or every such mutant
// would seem killed.
func (t *targetRun) baselineEras(ctx context.Context, dir, copyFile string) error {
	if t.sw == nil {
		return nil
	}
	for _, era := range slices.Sorted(maps.Values(t.sw.Eras)) {
		if slices.Contains(t.checked, era) {
			continue
		}
		t.checked = append(t.checked, era)
		x, o := t.r.checkOnce(ctx, baselineBound, dir, t.cfg.Harness, "", "", []string{"--target-file", copyFile, "--era", era}, nil, t.switchEnv("")...)
		if x.cancelled {
			return ctx.Err()
		}
		if o.Verdict != verdict.Survived {
			return &BaselineError{What: "check of " + t.tf.Dir + " in era " + era, Output: x.out,
				Err: fmt.Errorf("check of the unmutated target in era %s: %s %s%s", era, o.Verdict, o.KilledBy, o.Error)}
		}
	}
	return nil
}

func (t *targetRun) trials(ms []catalogue.Mutant) []trial {
	ts := make([]trial, len(ms))
	for i, m := range ms {
		res := Result{Index: m.Index, ID: m.ID, Rule: m.Rule, File: m.File, Line: m.Line, Why: m.Why, Build: buildCopy}
		if t.sw != nil {
			res.Build, res.Note = catalogue.BuildSwitch, t.sw.Notes[m.ID]
		}
		ts[i] = &targetTrial{t: t, m: m, res: res}
	}
	return ts
}

// targetTrial is one mutant of a target: one part, its copy built and
// checked.
type targetTrial struct {
	t   *targetRun
	m   catalogue.Mutant
	res Result
	c   builtCopy // kept for the confirmation
}

func (x *targetTrial) parts() int             { return 1 }
func (x *targetTrial) cost(int) time.Duration { return 0 }
func (x *targetTrial) unsure(int) bool        { return x.res.unsure() && x.c.file != "" }

// run builds a copy with the mutant applied and judges it by check:
// first with the scenarios whose steps test its rule (a kill there is a
// kill by the whole suite, and cheaper), then, if it survives them, with
// every scenario, so that a survivor is always judged by all.
func (x *targetTrial) run(ctx context.Context, _ int) bool {
	dir, err := os.MkdirTemp(x.t.tmp, "mutant-")
	if err == nil {
		x.c.dir = dir
		x.c.file, _, err = x.t.copyTarget(ctx, dir, &x.m)
	}
	var nv *notViable
	switch {
	case ctx.Err() != nil:
		return false
	case errors.As(err, &nv):
		x.res.Verdict, x.res.Error = verdict.NotViable, err.Error()
		return true
	case err != nil:
		x.res.Verdict, x.res.Error = verdict.Error, err.Error()
		return true
	}
	passes := [][]string{nil}
	if sc := x.t.byRule[x.t.ruleOf(x.m)]; len(sc) > 0 {
		passes = [][]string{sc, nil}
	}
	_, ok := x.t.judge(ctx, x.c, &x.res, passes...)
	return ok
}

// ruleOf is the clause or rule whose scenarios judge m first: a compiled-in
// mutant's clause when the catalogue names one, else its rule.
func (t *targetRun) ruleOf(m catalogue.Mutant) string {
	if t.sw != nil && t.sw.Clauses[m.ID] != "" {
		return t.sw.Clauses[m.ID]
	}
	return m.Rule
}

// switchEnv is the environment that selects mutant id (none: "") in a
// target whose mutants are compiled in; nil for a target of copies.
func (t *targetRun) switchEnv(id string) []string {
	if t.sw == nil {
		return nil
	}
	return []string{t.tf.Mutants.Switch + "=" + id}
}

// confirm judges the copy again: the killing scenario alone, then, if it
// passes alone, the whole check once more; a timeout or a check that could
// not run, alone, is settled against the unmutated copy.
func (x *targetTrial) confirm(ctx context.Context, _ int) bool {
	first := x.res
	passes := [][]string{nil}
	if first.Scenario != "" {
		passes = [][]string{{first.Scenario}, nil}
	}
	o, ok := x.t.judge(ctx, x.c, &x.res, passes...)
	if !ok {
		return false
	}
	if settled(o.Reason) {
		var u Result
		uo, ok := x.t.judge(ctx, x.t.base, &u, passes...)
		if !ok {
			return false
		}
		x.res.CheckTime += u.CheckTime
		x.res.Verdict, x.res.Reason, x.res.Error = settle(o.Reason, o.seen(), uo.seen(), x.t.timeout)
	}
	if x.res.Verdict != first.Verdict || x.res.Scenario != first.Scenario || x.res.Reason != first.Reason {
		x.res.Note = fmt.Sprintf("among other runs: %s; alone: %s", first.summary(), x.res.summary())
	}
	return true
}

func (x *targetTrial) done(run, confirm time.Duration) {
	if x.t.cfg.Fuzz.wants(x.res) && x.c.file != "" {
		x.t.kept[x.res.ID] = x.c // for the fuzz phase
	} else {
		x.c.remove()
	}
	x.res.ConfirmTime = secondsOf(confirm)
	x.res.Time = secondsOf(run + confirm)
	x.t.emit(x.res)
}

// builtCopy is a copy of the target, mutated and built, in dir.
type builtCopy struct {
	dir  string
	file string // the copy's target file ("" when the build failed)
}

func (c builtCopy) remove() {
	if c.dir != "" {
		os.RemoveAll(c.dir)
	}
}

// judge runs check on a built copy in passes into res: each pass runs the
// scenarios it names (nil: all of them), and the first pass whose verdict
// is not a survival gives the verdict, also returned. False when
// cancelled.
func (t *targetRun) judge(ctx context.Context, c builtCopy, res *Result, passes ...[]string) (suiteOutcome, bool) {
	var o suiteOutcome
	for _, scenarios := range passes {
		extra := []string{"--target-file", c.file, "--failfast"}
		if t.sw != nil && t.sw.Eras[res.ID] != "" {
			extra = append(extra, "--era", t.sw.Eras[res.ID])
		}
		if len(scenarios) > 0 {
			quoted := make([]string, len(scenarios))
			for i, s := range scenarios {
				quoted[i] = regexp.QuoteMeta(s)
			}
			extra = append(extra, "--run", "^("+strings.Join(quoted, "|")+")$")
		}
		var x execResult
		x, o = t.r.checkOnce(ctx, t.timeout, c.dir, t.cfg.Harness, "", "", extra, nil, t.switchEnv(res.ID)...)
		if x.cancelled {
			return o, false
		}
		res.setSuite(o, x.dur)
		if res.Verdict != verdict.Survived {
			break
		}
	}
	return o, true
}

// notViable is the failure of a mutated copy's build: the mutant does not
// build.
type notViable struct{ msg string }

func (e *notViable) Error() string { return e.msg }

// copyTarget copies the target file's folder into dir/target (the Link
// entries linked, not copied), applies m (when set) and runs the build
// there; it returns the copy's target file and the build's time. A target
// whose mutants are compiled in is not copied: its own file is returned.
func (t *targetRun) copyTarget(ctx context.Context, dir string, m *catalogue.Mutant) (string, time.Duration, error) {
	if t.sw != nil {
		// Compiled in: the target's own file, as it is; dir is scratch.
		return filepath.Join(t.tf.Dir, t.file), 0, nil
	}
	dst := filepath.Join(dir, "target")
	if err := copyTree(t.tf.Dir, dst, t.tf.Mutants.Link); err != nil {
		return "", 0, err
	}
	if m != nil {
		if err := applyTo(filepath.Join(dst, filepath.FromSlash(m.File)), *m); err != nil {
			return "", 0, err
		}
	}
	copyFile := filepath.Join(dst, t.file)
	tf, err := target.LoadTargetFile(copyFile)
	if err != nil {
		return "", 0, err
	}
	argv, err := cmdline.Split(tf.Mutants.Build)
	if err != nil {
		return "", 0, fmt.Errorf("mutants build: %w", err)
	}
	x := t.r.exec(ctx, buildTimeout, dst, dir, argv)
	switch {
	case x.timedOut:
		return "", x.dur, fmt.Errorf("build %q: %v", tf.Mutants.Build, x.failure())
	case x.err != nil:
		return "", x.dur, &notViable{fmt.Sprintf("does not build: %q: %v\n%s", tf.Mutants.Build, x.err, tail(x.out, 2000))}
	}
	return copyFile, x.dur, nil
}

// applyTo applies m to the file at path.
func applyTo(path string, m catalogue.Mutant) error {
	src, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := m.Apply(src)
	if err != nil {
		return err
	}
	return os.WriteFile(path, out, 0o644)
}

// copyTree copies the regular files and folders of src to dst; the
// top-level entries of link are linked to src's instead.
func copyTree(src, dst string, link []string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if rel != "." && slices.Contains(link, filepath.ToSlash(rel)) {
			if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
				return err
			}
			if err := os.Symlink(p, to); err != nil {
				return err
			}
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case d.Type().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			return os.WriteFile(to, data, info.Mode().Perm())
		}
		return nil // links and special files are not copied
	})
}
