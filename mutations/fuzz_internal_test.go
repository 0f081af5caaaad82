package mutations

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/internal/verdict"
)

// TestFuzzFindingTriedUnmutated: a fuzz finding counts only when its
// sequence, run alone, diverges on the mutant again and passes on the
// unmutated target; one the unmutated target shares, or one its sequence
// alone does not reproduce, is said and not counted. The harness is a
// script standing for mcpparity fuzz: it finds a divergence when
// searching (seed 7), and the one-sequence rerun diverges (exit 1) or
// passes (exit 0) as its target's env tells.
func TestFuzzFindingTriedUnmutated(t *testing.T) {
	dir := t.TempDir()
	harness := filepath.Join(dir, "harness")
	script := `#!/bin/sh
json=""; one=""
while [ $# -gt 0 ]; do
	case "$1" in --json) json="$2"; shift;; --sequences) one=1;; esac
	shift
done
if [ -n "$one" ]; then exit "$RERUN_EXIT"; fi
printf '{"sequences":3,"finding":{"seed":7,"foundAfter":"1s"}}' > "$json"
exit 1
`
	if err := os.WriteFile(harness, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(Config{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		alone, unmutated          string
		found, shared, unrepeated bool
	}{{"1", "0", true, false, false}, {"1", "1", false, true, false}, {"0", "0", false, false, true}} {
		mutant := fuzzTarget{harness: harness, dir: dir, file: "t.yaml", env: []string{"RERUN_EXIT=" + c.alone}}
		base := fuzzTarget{harness: harness, dir: dir, file: "t.yaml", env: []string{"RERUN_EXIT=" + c.unmutated}}
		rep := &Report{Results: []Result{{ID: "m", Verdict: verdict.Survived}}}
		r.fuzzPhase(context.Background(), FuzzConfig{Duration: 1}, rep, t.TempDir(),
			func(Result) (fuzzTarget, error) { return mutant, nil }, func() (fuzzTarget, error) { return base, nil })
		f := rep.Results[0].Fuzz
		if f == nil || f.Found != c.found || f.UnmutatedToo != c.shared || f.NotReproduced != c.unrepeated || f.Error != "" {
			t.Errorf("rerun exits %s (mutant), %s (unmutated): %+v, want found %v, shared %v, not reproduced %v",
				c.alone, c.unmutated, f, c.found, c.shared, c.unrepeated)
		}
	}
}

// TestFuzzCouldNotRun: a fuzz that exits 2 (a target that does not
// start) is said with its output, not as a JSON error of the report it
// never wrote.
func TestFuzzCouldNotRun(t *testing.T) {
	dir := t.TempDir()
	harness := filepath.Join(dir, "harness")
	script := "#!/bin/sh\necho 'mcpparity fuzz: target cmd:./port: not started' >&2\nexit 2\n"
	if err := os.WriteFile(harness, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(Config{Root: dir})
	if err != nil {
		t.Fatal(err)
	}
	target := fuzzTarget{harness: harness, dir: dir, file: "t.yaml"}
	f := r.fuzzOne(context.Background(), FuzzConfig{Duration: 1}, target, t.TempDir())
	if f.Error == "" || !strings.Contains(f.Error, "fuzz exit 2 (it could not run)") ||
		!strings.Contains(f.Error, "target cmd:./port: not started") || strings.Contains(f.Error, "JSON") {
		t.Errorf("error %q, want the exit and the harness's own words", f.Error)
	}
}
