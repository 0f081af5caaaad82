package mutations

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/mcpparity/mcpparity/internal/fuzz"
	"github.com/mcpparity/mcpparity/internal/verdict"
	"github.com/mcpparity/mcpparity/mutations/schemata"
)

// FuzzConfig adds a phase after the confirmations: each mutant that check
// did not kill (Every: each viable mutant) is fuzzed for Duration against
// the reference (mcpparity fuzz), from Seed.
type FuzzConfig struct {
	Duration time.Duration
	Every    bool
	Seed     uint64
	// Era is the era of every sequence ("" each draws its own).
	Era string
}

// eraArgs are fuzz's arguments for the era of cfg.
func (cfg FuzzConfig) eraArgs() []string {
	if cfg.Era == "" {
		return nil
	}
	return []string{"--era", cfg.Era}
}

// FuzzResult is what the fuzz phase found on a mutant.
type FuzzResult struct {
	Found bool `json:"found"`
	// After is the search's time to its finding; Seed the finding's own
	// seed (mcpparity fuzz --seed S --sequences 1 reproduces it).
	After     Seconds `json:"afterSeconds,omitempty"`
	Seed      uint64  `json:"seed,omitempty"`
	Sequences int     `json:"sequences"`
	Error     string  `json:"error,omitempty"`
	// UnmutatedToo is set when the unmutated target diverges on the
	// finding's sequence as well: the finding is then not the mutant's,
	// and Found is false.
	UnmutatedToo bool `json:"unmutatedToo,omitempty"`
	// NotReproduced is set when the finding's sequence, run alone against
	// the mutant, does not diverge: Found is then false.
	NotReproduced bool `json:"notReproduced,omitempty"`
}

// fuzzTarget is how one mutant is fuzzed: harness runs fuzz with the
// target file, whose own env selects the mutant.
type fuzzTarget struct {
	harness, dir, file string
	env                []string
}

// wants says whether the phase fuzzes a result.
func (c FuzzConfig) wants(res Result) bool {
	if c.Duration <= 0 {
		return false
	}
	switch res.Verdict {
	case verdict.Survived:
		return true
	case verdict.NotViable, verdict.Error:
		return false
	}
	return c.Every
}

// fuzzPhase fuzzes, one after the other, the results of rep that cfg
// wants and target resolves; a finding counts only when the unmutated
// target (base) passes its sequence.
func (r *Runner) fuzzPhase(ctx context.Context, cfg FuzzConfig, rep *Report, scratch string, target func(Result) (fuzzTarget, error), base func() (fuzzTarget, error)) {
	if cfg.Duration <= 0 {
		return
	}
	for i := range rep.Results {
		res := &rep.Results[i]
		if !cfg.wants(*res) || ctx.Err() != nil {
			continue
		}
		ft, err := target(*res)
		if err != nil {
			res.Fuzz = &FuzzResult{Error: err.Error()}
			continue
		}
		dir := filepath.Join(scratch, "fuzz-"+strconv.Itoa(res.Index))
		res.Fuzz = r.fuzzOne(ctx, cfg, ft, dir)
		if res.Fuzz.Found {
			r.tryAlone(ctx, cfg, res.Fuzz, ft, dir)
		}
		if res.Fuzz.Found {
			r.tryUnmutated(ctx, cfg, res.Fuzz, base, dir)
		}
		r.say("fuzz %s: %s", res.ID, res.Fuzz.summary())
	}
}

// fuzzOne runs mcpparity fuzz on one target; its finding goes to scratch.
func (r *Runner) fuzzOne(ctx context.Context, cfg FuzzConfig, ft fuzzTarget, scratch string) *FuzzResult {
	if err := os.MkdirAll(scratch, 0o755); err != nil {
		return &FuzzResult{Error: err.Error()}
	}
	report := filepath.Join(scratch, "fuzz.json")
	argv := []string{ft.harness, "fuzz", "--target-file", ft.file, "--duration", cfg.Duration.String(),
		"--seed", strconv.FormatUint(cfg.Seed, 10), "--json", report, "--suite", filepath.Join(scratch, "finding")}
	argv = append(argv, cfg.eraArgs()...)
	// The search, then its shrinking (bounded by fuzz's own runs), then
	// the time to stop.
	x := r.exec(ctx, cfg.Duration+10*time.Minute, ft.dir, scratch, argv, ft.env...)
	if x.cancelled {
		return &FuzzResult{Error: "cancelled"}
	}
	if code := x.exitCode(); code != 0 && code != 1 {
		return &FuzzResult{Error: fmt.Sprintf("fuzz exit %d (it could not run): %s", code, tail(x.out, 400))}
	}
	var out fuzz.JSON
	data, err := os.ReadFile(report)
	if err == nil {
		err = json.Unmarshal(data, &out)
	}
	if err != nil {
		return &FuzzResult{Error: fmt.Sprintf("fuzz exit %d without a readable JSON report (%v): %s", x.exitCode(), err, tail(x.out, 400))}
	}
	fr := &FuzzResult{Sequences: out.Sequences}
	if f := out.Finding; f != nil {
		after, _ := time.ParseDuration(f.FoundAfter)
		fr.Found, fr.Seed, fr.After = true, f.Seed, secondsOf(after)
	}
	return fr
}

// rerun runs a finding's sequence once more, alone, against t (named
// who in an error): its exit code, 0 (no divergence) or 1 (a divergence);
// ok is false, and f no longer found, when it could not run.
func (r *Runner) rerun(ctx context.Context, cfg FuzzConfig, f *FuzzResult, t fuzzTarget, scratch, name, who string) (code int, ok bool) {
	argv := []string{t.harness, "fuzz", "--target-file", t.file, "--seed", strconv.FormatUint(f.Seed, 10),
		"--sequences", "1", "--parallel", "1", "--duration", "10m", "--suite", filepath.Join(scratch, name)}
	argv = append(argv, cfg.eraArgs()...)
	x := r.exec(ctx, 20*time.Minute, t.dir, scratch, argv, t.env...)
	switch code = x.exitCode(); {
	case x.cancelled:
		f.Found, f.Error = false, "cancelled"
	case code != 0 && code != 1:
		f.Found, f.Error = false, fmt.Sprintf("%s on seed %d: fuzz exit %d: %s", who, f.Seed, code, tail(x.out, 400))
	default:
		return code, true
	}
	return code, false
}

// tryAlone runs a finding's sequence again, alone, against the mutant: a
// divergence that its seed does not reproduce (one that came of the
// search's load, say) is not counted.
func (r *Runner) tryAlone(ctx context.Context, cfg FuzzConfig, f *FuzzResult, ft fuzzTarget, scratch string) {
	if code, ok := r.rerun(ctx, cfg, f, ft, scratch, "alone", "the mutant alone"); ok && code == 0 {
		f.Found, f.NotReproduced = false, true
	}
}

// tryUnmutated runs a finding's sequence against the unmutated target:
// when it diverges there too, the finding is not the mutant's.
func (r *Runner) tryUnmutated(ctx context.Context, cfg FuzzConfig, f *FuzzResult, base func() (fuzzTarget, error), scratch string) {
	bt, err := base()
	if err != nil {
		f.Found, f.Error = false, "the unmutated target: "+err.Error()
		return
	}
	if code, ok := r.rerun(ctx, cfg, f, bt, scratch, "unmutated", "the unmutated target"); ok && code == 1 {
		f.Found, f.UnmutatedToo = false, true
	}
}

func (f *FuzzResult) summary() string {
	switch {
	case f.NotReproduced:
		return fmt.Sprintf("found a divergence (seed %d) that its sequence alone does not reproduce: not counted", f.Seed)
	case f.UnmutatedToo:
		return fmt.Sprintf("found a divergence (seed %d) that the unmutated target has too: not counted", f.Seed)
	case f.Error != "":
		return "could not run: " + f.Error
	case f.Found:
		return fmt.Sprintf("found after %.1fs (seed %d)", float64(f.After), f.Seed)
	}
	return fmt.Sprintf("nothing found in %d sequence(s)", f.Sequences)
}

// refFuzzTarget writes the target file of a rule mutant hosted in the
// schemata: the schemata's reference served as a process, the mutant
// selected in its environment only (the fuzzing harness's own reference,
// the same binary without it, is unmutated). A result's Index -1 and ID
// "" is the schemata without mutant.
func refFuzzTarget(harness, dir string, res Result) (fuzzTarget, error) {
	if res.Build == buildOwn {
		return fuzzTarget{}, fmt.Errorf("built alone: not fuzzed (the schemata host the others)")
	}
	file := filepath.Join(dir, "fuzz-target-"+strconv.Itoa(res.Index)+".json")
	tf := map[string]any{
		"target": "cmd:" + harness + " serve-ref --addr {addr} --state {state} --workspace {workspace}",
		"env":    map[string]string{schemata.MutantEnv: res.ID},
	}
	data, err := json.Marshal(tf)
	if err == nil {
		err = os.WriteFile(file, data, 0o644)
	}
	return fuzzTarget{harness: harness, dir: dir, file: file}, err
}
