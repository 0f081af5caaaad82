package mutations

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

// Config tunes a Runner. Zero values give the defaults (scheduler.go).
type Config struct {
	// Root is the module root (the folder of go.mod). Required.
	Root string
	// Workers is the number of runs in flight (a check or a test binary
	// each); 0 means DefaultWorkers.
	Workers int
	// Floor and Multiplier set each run's timeout: Floor + Multiplier ×
	// the baseline's time. 0 means DefaultFloor (CoveredFloor with
	// Coverage) and DefaultFactor.
	Floor      time.Duration
	Multiplier float64
	// Go is the go command; "" means "go".
	Go string
	// TempDir is where the run's temporary folder is made; "" means the
	// system's.
	TempDir string
	// Progress receives one line per finished mutant (nil: none).
	Progress io.Writer
	// NoFilter skips the rule-named first test run: the package's tests
	// run whole for every mutant.
	NoFilter bool
	// Harness is the package of the harness binary ("" means
	// ./cmd/mcpparity); CheckArgs its arguments for a check (nil means
	// "check"), to which --json FILE is added, and --failfast when the
	// harness's check offers it.
	Harness   string
	CheckArgs []string
	// OwnBuilds builds each mutant alone instead of hosting it in the
	// schemata (slower; a cross-check of the schemata).
	OwnBuilds bool
	// Coverage builds with coverage and runs the baselines with it: a
	// mutant that the baseline never reaches is "not covered" and not run.
	Coverage bool
	// NoTests skips the packages' tests (the suite's verdict only).
	NoTests bool
	// BuildTimeout bounds each go command (0: 10 minutes).
	BuildTimeout time.Duration
	// ConfirmWorkers is the number of mutants at once when the verdicts
	// seen among Workers runs are confirmed, each with up to two runs, its
	// scenario and its test (0: DefaultConfirmWorkers).
	ConfirmWorkers int
	// Fuzz, when its Duration is set, fuzzes the mutants check did not
	// kill (or all) after the confirmations.
	Fuzz FuzzConfig
}

// Runner runs mutants: each is judged by the conformance check (the suite)
// and by its package's tests.
type Runner struct {
	cfg Config
	lim limits
	// inProcess: the mutated code runs inside check's process (the
	// embedded reference), so that a Go crash of check is the mutant's.
	inProcess bool
}

// NewRunner checks cfg and fills its defaults.
func NewRunner(cfg Config) (*Runner, error) {
	if cfg.Root == "" {
		return nil, errors.New("mutations: no module root")
	}
	root, err := filepath.Abs(cfg.Root)
	if err != nil {
		return nil, err
	}
	cfg.Root = root
	lim := newLimits(cfg.Workers, cfg.ConfirmWorkers, cfg.Floor, cfg.Multiplier, cfg.Coverage)
	cfg.Workers, cfg.ConfirmWorkers, cfg.Floor, cfg.Multiplier = lim.workers, lim.confirmWorkers, lim.floor, lim.factor
	if cfg.Go == "" {
		cfg.Go = "go"
	}
	if cfg.Harness == "" {
		cfg.Harness = "./cmd/mcpparity"
	}
	if cfg.CheckArgs == nil {
		cfg.CheckArgs = []string{"check"}
	}
	if cfg.BuildTimeout <= 0 {
		cfg.BuildTimeout = 10 * time.Minute
	}
	return &Runner{cfg: cfg, lim: lim, inProcess: true}, nil
}

// Run resolves ms against the sources (a stale mutant is an error before
// anything runs), then goes through its phases: build the schemata, run
// the baselines, plan every mutant's trial, run them, confirm the unsure
// verdicts, report. Mutants keep their Index if set (shards), else get
// their place in ms. When ctx is cancelled the running processes are
// killed, the temporary files removed, and the partial report is returned
// with Interrupted set, together with ctx's error.
func (r *Runner) Run(ctx context.Context, ms []catalogue.Mutant) (*Report, error) {
	start := time.Now()
	if err := catalogue.Resolve(r.cfg.Root, ms); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(r.cfg.TempDir, "mcpparity-mutate-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	numberUnset(ms)
	s := &session{tmp: tmp, reporter: reporter{r: r, n: len(ms),
		rep: &Report{Version: ReportVersion, Workers: r.cfg.Workers, Started: start.UTC().Truncate(time.Second)}}}
	bs, cov, err := r.build(ctx, tmp, ms)
	if err == nil {
		s.bins = &bs.built
		s.rep.Baselines = append(s.rep.Baselines, Baseline{Name: "build", Seconds: secondsOf(bs.dur)})
		s.base, err = r.baseline(ctx, tmp, s.bins, cov, ms)
	}
	if err != nil {
		if ctx.Err() != nil {
			return s.report(ctx, start)
		}
		return nil, err
	}
	s.recordBaseline()
	sch := &scheduler{lim: r.lim}
	unsure := sch.run(ctx, s.plan(bs, ms))
	r.confirm(ctx, sch, unsure, start)
	r.fuzzPhase(ctx, r.cfg.Fuzz, s.rep, tmp, func(res Result) (fuzzTarget, error) {
		return refFuzzTarget(s.bins.harness, tmp, res)
	}, func() (fuzzTarget, error) {
		return refFuzzTarget(s.bins.harness, tmp, Result{Index: -1})
	})
	return s.report(ctx, start)
}

// build builds the schemata of ms and, with coverage, the unmutated
// sources instrumented, side by side.
func (r *Runner) build(ctx context.Context, tmp string, ms []catalogue.Mutant) (*schemataBuild, *built, error) {
	var cov *built
	var covErr error
	var wg sync.WaitGroup
	if r.cfg.Coverage {
		wg.Go(func() { cov, covErr = r.buildCover(ctx, filepath.Join(tmp, "cover-build"), ms) })
	}
	bs, err := r.buildSchemata(ctx, filepath.Join(tmp, "schemata"), ms, false)
	wg.Wait()
	if err == nil {
		err = covErr
	}
	if err != nil {
		return nil, nil, err
	}
	r.say("schemata: %d mutant(s) in one build, %d built alone, %d do not compile; %d round(s), %.1fs",
		len(bs.s.IDs), len(bs.own), len(bs.broken), bs.rounds, bs.dur.Seconds())
	return bs, cov, nil
}

// confirm is the scheduler's confirmation phase, said.
func (r *Runner) confirm(ctx context.Context, sch *scheduler, unsure []*pending, start time.Time) {
	if len(unsure) == 0 || ctx.Err() != nil {
		return
	}
	cstart := time.Now()
	r.say("main runs done in %.1fs; confirming %d mutant(s), %d at once", time.Since(start).Seconds(), len(unsure), sch.lim.confirmWorkers)
	sch.confirm(ctx, unsure)
	if ctx.Err() == nil {
		r.say("confirmed in %.1fs", time.Since(cstart).Seconds())
	}
}

// reporter gathers the final results of a run's n mutants into rep.
type reporter struct {
	r   *Runner
	rep *Report
	n   int
}

// emit adds a mutant's final result and says it (under the scheduler's
// lock).
func (p *reporter) emit(res Result) {
	p.rep.Results = append(p.rep.Results, res)
	p.r.progress(len(p.rep.Results), p.n, res)
}

// report finishes the run's report: partial, with ctx's error, when ctx
// was cancelled.
func (p *reporter) report(ctx context.Context, start time.Time) (*Report, error) {
	rep := p.rep
	rep.Elapsed = secondsOf(time.Since(start))
	sortResults(rep.Results)
	if ctx.Err() != nil {
		rep.Interrupted = true
		rep.Pending = p.n - len(rep.Results)
		rep.finish()
		return rep, ctx.Err()
	}
	rep.finish()
	return rep, nil
}

// Number sets each mutant's Index to its place in ms (call it on the whole
// selection, before Shard.Split).
func Number(ms []catalogue.Mutant) {
	for i := range ms {
		ms[i].Index = i
	}
}

// numberUnset numbers ms unless some mutant has an Index already (a shard).
func numberUnset(ms []catalogue.Mutant) {
	for _, m := range ms {
		if m.Index != 0 {
			return
		}
	}
	Number(ms)
}

func (r *Runner) say(format string, args ...any) {
	if r.cfg.Progress != nil {
		fmt.Fprintf(r.cfg.Progress, format+"\n", args...)
	}
}

// progress is the line of a mutant with its final verdicts.
func (r *Runner) progress(done, total int, res Result) {
	if r.cfg.Progress == nil {
		return
	}
	w := len(fmt.Sprint(total))
	by := ""
	switch {
	case res.KilledBy != "":
		by = " by " + res.KilledBy
	case res.Error != "":
		by = ": " + firstLine(res.Error)
	}
	tests := ""
	if res.Tests.Verdict != "" {
		tests = "; impl tests " + verdictText(res.Tests.Verdict, res.Tests.Reason)
		if res.Tests.KilledBy != "" {
			tests += " by " + res.Tests.KilledBy
		}
	}
	own := ""
	if res.Build == buildOwn {
		own = " [own build: " + firstLine(res.BuildNote) + "]"
	}
	fmt.Fprintf(r.cfg.Progress, "[%*d/%d] %-8s %-5s %s%s%s%s (%.1fs)\n", w, done, total,
		verdictText(res.Verdict, res.Reason), res.Rule, res.ID, by, tests, own, float64(res.Time))
}

// CompileResult is the outcome of compiling mutants without running them.
type CompileResult struct {
	// Broken maps each mutant that does not compile to the error.
	Broken map[string]string
	// Own maps each mutant built alone to why.
	Own map[string]string
	// Hosted counts the mutants of the schemata build.
	Hosted int
}

// Compile compiles the mutated packages (no link, no run): the schemata, and
// each mutant it cannot host alone. A quick check of a catalogue.
func (r *Runner) Compile(ctx context.Context, ms []catalogue.Mutant) (*CompileResult, error) {
	if err := catalogue.Resolve(r.cfg.Root, ms); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(r.cfg.TempDir, "mcpparity-mutate-check-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bs, err := r.buildSchemata(ctx, filepath.Join(tmp, "schemata"), ms, true)
	if err != nil {
		return nil, err
	}
	res := &CompileResult{Broken: bs.broken, Own: bs.own, Hosted: len(bs.s.IDs)}
	var own []catalogue.Mutant
	for _, m := range ms {
		if _, ok := bs.own[m.ID]; ok {
			own = append(own, m)
		}
	}
	broken := make([]string, len(own))
	errs := make([]error, len(own))
	pool(ctx, r.lim.workers, len(own), func(i int) {
		dir, err := os.MkdirTemp(tmp, "own-")
		if err == nil {
			_, broken[i], err = r.buildOwn(ctx, dir, own[i], true)
			_ = os.RemoveAll(dir)
		}
		errs[i] = err
	})
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	for i, m := range own {
		if broken[i] != "" {
			res.Broken[m.ID] = broken[i]
		}
	}
	return res, errors.Join(errs...)
}

// Build builds the schemata of ms into dir, to run mutants by hand:
// dir/mcpparity (the harness) and dir/<package>.test, with MutantEnv
// naming the mutant. It returns what Check returns; the mutants built
// alone are not in dir.
func (r *Runner) Build(ctx context.Context, ms []catalogue.Mutant, dir string) (*CompileResult, error) {
	if err := catalogue.Resolve(r.cfg.Root, ms); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp(r.cfg.TempDir, "mcpparity-mutate-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	bs, err := r.buildSchemata(ctx, tmp, ms, false)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	moves := map[string]string{bs.harness: filepath.Join(dir, filepath.Base(r.cfg.Harness))}
	for _, bin := range bs.tests {
		moves[bin] = filepath.Join(dir, filepath.Base(bin))
	}
	for from, to := range moves {
		if err := os.Rename(from, to); err != nil {
			return nil, err
		}
	}
	return &CompileResult{Broken: bs.broken, Own: bs.own, Hosted: len(bs.s.IDs)}, nil
}
