package mutations

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mcpparity/mcpparity/internal/suite"
)

// ModeTarget is the mode of a run of a target's own mutants.
const ModeTarget = "target"

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
	// Workers is the number of mutants in flight; 0 means the number of
	// CPUs (a target of its own runs a process per scenario).
	Workers int
	// Floor and Multiplier set each check's timeout from the baseline's;
	// 0 means 60 s and 3.
	Floor      time.Duration
	Multiplier float64
	// Progress receives a line per finished mutant (nil: none).
	Progress io.Writer
	// IDs selects mutants or rules (empty: all).
	IDs []string
	// CheckArgs are check's arguments (nil: "check"), e.g. with --suite.
	CheckArgs []string
}

// buildTimeout bounds one build of a copy of the target.
const buildTimeout = 5 * time.Minute

// RunTarget applies each mutant of a target's own catalogue to a copy of
// the target file's folder, builds the copy and runs check with the
// copy's target file: a mutant is killed when check exits 1 naming a
// difference. An unmutated copy is built and checked first (it must pass).
// Kills are confirmed once the others are done, with few runs at once: a
// kill seen only under load does not count.
func RunTarget(ctx context.Context, cfg TargetConfig) (*Report, error) {
	start := time.Now()
	tf, err := suite.LoadTargetFile(cfg.File)
	if err != nil {
		return nil, err
	}
	if tf.Mutants == nil {
		return nil, fmt.Errorf("target file %s has no mutants section (docs/targets.md)", cfg.File)
	}
	ms, err := LoadTargetCatalogue(os.DirFS(tf.Dir), tf.Mutants.Catalogue)
	if err != nil {
		return nil, err
	}
	if len(cfg.IDs) > 0 {
		if ms, err = Select(ms, cfg.IDs); err != nil {
			return nil, err
		}
	}
	if err := Resolve(tf.Dir, ms); err != nil {
		return nil, err
	}
	Number(ms)
	if cfg.Dir == "" {
		if cfg.Dir, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.NumCPU()
	}
	if cfg.Floor <= 0 {
		cfg.Floor = 60 * time.Second
	}
	if cfg.Multiplier <= 0 {
		cfg.Multiplier = 3
	}
	r, err := NewRunner(Config{Root: cfg.Dir, Harness: cfg.Harness, CheckArgs: cfg.CheckArgs})
	if err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "mcpparity-mutate-target-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	scenarios, err := suite.EmbeddedScenarios()
	if err != nil {
		return nil, err
	}
	t := &targetRun{r: r, cfg: cfg, tf: tf, tmp: tmp, file: filepath.Base(cfg.File), byRule: suite.RuleScenarios(scenarios)}

	rep := &Report{Version: ReportVersion, Mode: ModeTarget, Selected: len(ms), Workers: cfg.Workers,
		Started: start.UTC().Truncate(time.Second)}
	base, err := t.baseline(ctx)
	if err != nil {
		return nil, err
	}
	rep.Baselines = []Baseline{{Name: "build", Seconds: SecondsOf(base.build)},
		{Name: "check", Seconds: SecondsOf(base.check), Timeout: SecondsOf(base.timeout)}}
	t.say("baseline: build %.1fs, check %.1fs; timeout per check %.0fs", base.build.Seconds(), base.check.Seconds(), base.timeout.Seconds())

	results := make([]Result, len(ms))
	copies := make([]builtCopy, len(ms)) // kept for the confirmation of a kill
	defer func() {
		for _, c := range copies {
			c.remove()
		}
	}()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range cfg.Workers {
		wg.Go(func() {
			for i := range jobs {
				c, res := t.mutant(ctx, ms[i], base.timeout, t.passes(ms[i])...)
				if res.needsConfirm() {
					copies[i] = c
				} else {
					c.remove()
				}
				results[i] = res
				t.progress(res)
			}
		})
	}
	for i := range ms {
		select {
		case jobs <- i:
		case <-ctx.Done():
		}
	}
	close(jobs)
	wg.Wait()
	// Confirmation, two at a time, on the copy already built: the killing
	// scenario alone, then, if it passes alone, the whole check once more.
	confirm := make(chan int)
	var cwg sync.WaitGroup
	for range min(2, cfg.Workers) {
		cwg.Go(func() {
			for i := range confirm {
				res := results[i]
				passes := [][]string{nil}
				if res.Scenario != "" {
					passes = [][]string{{res.Scenario}, nil}
				}
				start := time.Now()
				again := t.judge(ctx, ms[i], copies[i], base.timeout, passes...)
				again.Time = res.Time + SecondsOf(time.Since(start))
				again.CheckTime += res.CheckTime
				if again.Verdict != res.Verdict || again.Scenario != res.Scenario {
					again.Note = fmt.Sprintf("among other runs: %s; alone: %s", res.summary(), again.summary())
					t.progress(again)
				}
				results[i] = again
			}
		})
	}
	for i, res := range results {
		if !res.needsConfirm() || copies[i].file == "" {
			continue
		}
		select {
		case confirm <- i:
		case <-ctx.Done():
		}
	}
	close(confirm)
	cwg.Wait()
	rep.Results = results
	rep.Elapsed = SecondsOf(time.Since(start))
	if ctx.Err() != nil {
		rep.Interrupted = true
		rep.finish()
		return rep, ctx.Err()
	}
	rep.finish()
	return rep, nil
}

// targetRun is one run of a target's mutants.
type targetRun struct {
	r    *Runner
	cfg  TargetConfig
	tf   *suite.TargetFile
	tmp  string
	file string // the target file's name in its folder
	// byRule names, for each rule, the scenarios whose steps test it.
	byRule map[string][]string
}

type targetBaseline struct {
	build, check, timeout time.Duration
}

func (t *targetRun) say(format string, args ...any) {
	if t.cfg.Progress != nil {
		fmt.Fprintf(t.cfg.Progress, "mutate: "+format+"\n", args...)
	}
}

func (t *targetRun) progress(res Result) {
	if t.cfg.Progress == nil {
		return
	}
	what := res.KilledBy
	if res.Error != "" {
		what = firstLine(res.Error)
	}
	if res.Note != "" {
		what += " (" + res.Note + ")"
	}
	fmt.Fprintf(t.cfg.Progress, "%-8s %-5s %s %s (%.1fs)\n", res.Verdict, res.Rule, res.ID, what, float64(res.Time))
}

// baseline builds and checks an unmutated copy: it must pass.
func (t *targetRun) baseline(ctx context.Context) (targetBaseline, error) {
	var b targetBaseline
	dir, err := os.MkdirTemp(t.tmp, "baseline-")
	if err != nil {
		return b, err
	}
	defer os.RemoveAll(dir)
	copyFile, build, err := t.copyTarget(ctx, dir, nil)
	b.build = build
	if err != nil {
		return b, &BaselineError{What: "the build of " + t.tf.Dir, Err: err}
	}
	start := time.Now()
	x, o := t.r.checkOnce(ctx, 20*time.Minute, dir, t.cfg.Harness, "", "", []string{"--target-file", copyFile}, nil)
	b.check = time.Since(start)
	if x.cancelled {
		return b, ctx.Err()
	}
	if o.Verdict != VerdictSurvived {
		return b, &BaselineError{What: "check of " + t.tf.Dir, Output: x.out, Err: fmt.Errorf("check of the unmutated target: %s %s%s", o.Verdict, o.KilledBy, o.Error)}
	}
	b.timeout = t.cfg.Floor + time.Duration(t.cfg.Multiplier*float64(b.check))
	return b, nil
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

// mutant builds a copy with m applied and judges it by check (judge). The
// caller removes the copy.
func (t *targetRun) mutant(ctx context.Context, m Mutant, timeout time.Duration, passes ...[]string) (c builtCopy, res Result) {
	start := time.Now()
	defer func() { res.Time = SecondsOf(time.Since(start)) }()
	dir, err := os.MkdirTemp(t.tmp, "mutant-")
	if err == nil {
		c.dir = dir
		c.file, _, err = t.copyTarget(ctx, dir, &m)
	}
	if err != nil {
		c.file = ""
		res = t.result(m)
		res.Verdict, res.Error = VerdictError, err.Error()
		return c, res
	}
	return c, t.judge(ctx, m, c, timeout, passes...)
}

func (t *targetRun) result(m Mutant) Result {
	return Result{Index: m.Index, ID: m.ID, Rule: m.Rule, File: m.File, Line: m.Line, Why: m.Why, Build: BuildCopy}
}

// judge runs check on a built copy in passes: each pass runs the scenarios
// it names (nil: all of them), and the first pass whose verdict is not a
// survival gives the result.
func (t *targetRun) judge(ctx context.Context, m Mutant, c builtCopy, timeout time.Duration, passes ...[]string) Result {
	res := t.result(m)
	for _, scenarios := range passes {
		extra := []string{"--target-file", c.file, "--failfast"}
		if len(scenarios) > 0 {
			quoted := make([]string, len(scenarios))
			for i, s := range scenarios {
				quoted[i] = regexp.QuoteMeta(s)
			}
			extra = append(extra, "--run", "^("+strings.Join(quoted, "|")+")$")
		}
		checkStart := time.Now()
		x, o := t.r.checkOnce(ctx, timeout, c.dir, t.cfg.Harness, "", "", extra, nil)
		res.CheckTime += SecondsOf(time.Since(checkStart))
		if x.cancelled {
			res.Verdict, res.Error = VerdictError, "interrupted"
			return res
		}
		res.Verdict, res.KilledBy, res.Scenario, res.Path, res.Want, res.Got, res.Error =
			o.Verdict, o.KilledBy, o.Scenario, o.Path, o.Want, o.Got, o.Error
		if res.Verdict != VerdictSurvived {
			break
		}
	}
	return res
}

// passes are the checks that judge m: the scenarios whose steps test its
// rule first (a kill there is a kill by the whole suite, and cheaper), then,
// if it survives them, every scenario: a survivor is always judged by all.
func (t *targetRun) passes(m Mutant) [][]string {
	if sc := t.byRule[m.Rule]; len(sc) > 0 {
		return [][]string{sc, nil}
	}
	return [][]string{nil}
}

// copyTarget copies the target file's folder into dir/target (the Link
// entries linked, not copied), applies m (when set) and runs the build
// there; it returns the copy's target file and the build's time.
func (t *targetRun) copyTarget(ctx context.Context, dir string, m *Mutant) (string, time.Duration, error) {
	dst := filepath.Join(dir, "target")
	if err := copyTree(t.tf.Dir, dst, t.tf.Mutants.Link); err != nil {
		return "", 0, err
	}
	if m != nil {
		path := filepath.Join(dst, filepath.FromSlash(m.File))
		src, err := os.ReadFile(path)
		if err != nil {
			return "", 0, err
		}
		out, err := m.Apply(src)
		if err != nil {
			return "", 0, err
		}
		if err := os.WriteFile(path, out, 0o644); err != nil {
			return "", 0, err
		}
	}
	copyFile := filepath.Join(dst, t.file)
	tf, err := suite.LoadTargetFile(copyFile)
	if err != nil {
		return "", 0, err
	}
	argv, err := suite.SplitCommand(tf.Mutants.Build)
	if err != nil {
		return "", 0, fmt.Errorf("mutants build: %w", err)
	}
	x := t.r.exec(ctx, buildTimeout, dst, dir, argv)
	if x.err != nil || x.timedOut {
		return "", x.dur, fmt.Errorf("build %q: %v\n%s", tf.Mutants.Build, x.failure(), tail(x.out, 2000))
	}
	return copyFile, x.dur, nil
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
