package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/scripted"
)

func init() {
	register("record", "record the fixtures from the live servers (record-proxy: any server; record-suite: into a suite)", runRecord)
}

// defaultRecordings is the folder of the embedded fixtures.
const defaultRecordings = "fixtures/recordings"

const recordNotes = `
record re-records the fixtures through the reference pool, then refreshes
the golden files; with --drift, it records them into a temporary folder and
compares them with the stored ones instead. A server of one's own:
mcpparity record-proxy (the recorder as a proxy) or mcpparity record-suite
(into a suite folder).`

// recordOldSpelling is the subcommand and arguments a command line of
// record as once spelled runs now, said in one notice: --suite runs
// record-suite, --upstream and --upstream-cmd record-proxy, and --check is
// --drift (record-proxy has none).
func (c *call) recordOldSpelling() (string, []string) {
	name, args := "record", c.args
	var old, now []string
	mode, at := flagAt(args, "suite")
	if mode != "" {
		name, old, now = "record-suite", []string{mode}, []string{mode}
	} else if mode, at = flagAt(args, "upstream", "upstream-cmd"); mode != "" {
		name, old, now = "record-proxy", []string{mode}, []string{mode}
	}
	if given, i := flagAt(args, "check"); given != "" && name != "record-proxy" {
		args = renameFlag(args, "check", "drift")
		old, now = append(old, given), append(now, renamed(given, "check", "drift"))
		if i < at { // as given: --check first
			old[0], old[1], now[0], now[1] = old[1], old[0], now[1], now[0]
		}
	}
	if len(old) > 0 {
		c.notice("record "+strings.Join(old, " "), name+" "+strings.Join(now, " "))
	}
	return name, args
}

// runRecord is `mcpparity record`: the fixtures recorded again (or, with
// --drift, compared with fresh fixtures).
func runRecord(ctx context.Context, c *call) int {
	name, args := c.recordOldSpelling()
	if name != "record" {
		return c.runAs(ctx, name, args)
	}
	c.args = args
	fs := c.flags("[--drift] [--everything] [--modern] [--out DIR] [--golden DIR]", recordNotes)
	out := fs.String("out", defaultRecordings, "the `folder` of the fixtures")
	drift := fs.Bool("drift", false, "record into a temporary folder and fail with a diff when the stored fixtures differ")
	everything := fs.Bool("everything", false, "also record server-everything (npx) into everything/stdio.json and everything/http.json")
	modern := fs.Bool("modern", false, "also record the servers of the 2026-07-28 revision on the TypeScript and Python SDKs into modern/ (recorder/servers: their packages installed)")
	golden := fs.String("golden", "golden", "golden folder rewritten after recording (empty: leave golden files alone)")
	if code, done := c.parse(); done {
		return code
	}
	return c.recordFixtures(ctx, *out, *drift, *everything, *modern, *golden)
}

// recordFixtures records the fixtures' sets into out (into a temporary
// folder compared with out, with drift), then refreshes the golden files.
func (c *call) recordFixtures(ctx context.Context, out string, drift, everything, modern bool, golden string) int {
	exe, err := os.Executable()
	if err != nil {
		return c.fail(2, err)
	}
	sets := append([]scripted.Set{}, scripted.SDKSets...)
	if everything {
		sets = append(sets, scripted.EverythingSets...)
	}
	if modern {
		sets = append(sets, scripted.ModernSets...)
	}
	if drift {
		tmp, err := os.MkdirTemp("", "mcpparity-record-")
		if err != nil {
			return c.fail(2, err)
		}
		defer os.RemoveAll(tmp)
		return c.fixturesDrift(ctx, sets, tmp, out, exe)
	}
	for _, s := range sets {
		path := filepath.Join(out, s.File)
		if err := scripted.Record(ctx, s, path, []string{exe}); err != nil {
			if errors.Is(err, scripted.ErrNoNpx) || errors.Is(err, scripted.ErrNoServer) {
				return c.failf(2, "%s: %v", s.File, err)
			}
			return c.failf(1, "%s: %v", s.File, err)
		}
		fmt.Fprintf(c.stdout, "recorded %s\n", path)
	}
	if golden != "" {
		return c.refreshGolden(ctx, golden, out)
	}
	return 0
}

// fixturesDrift records each set into fresh and compares it with the
// stored one, the volatile fields of its calls aside.
func (c *call) fixturesDrift(ctx context.Context, sets []scripted.Set, fresh, stored, exe string) int {
	var checked []scripted.Checked
	for _, s := range sets {
		ch := scripted.Checked{Name: filepath.Join(stored, s.File)}
		ch.Drift, ch.Err = setDrift(ctx, s, filepath.Join(stored, s.File), filepath.Join(fresh, s.File), exe)
		checked = append(checked, ch)
	}
	accept := "mcpparity record"
	if stored != defaultRecordings {
		accept += " --out " + stored
	}
	return writeDrift(c.stdout, checked, "record --drift", accept)
}

func setDrift(ctx context.Context, s scripted.Set, stored, fresh, exe string) (scripted.Drift, error) {
	a, err := os.ReadFile(stored)
	if err != nil {
		return scripted.Drift{}, err
	}
	if err := scripted.Record(ctx, s, fresh, []string{exe}); err != nil {
		return scripted.Drift{}, fmt.Errorf("recording it again: %w", err)
	}
	calls, err := scripted.Script(s)
	if err != nil {
		return scripted.Drift{}, err
	}
	b, err := os.ReadFile(fresh)
	if err != nil {
		return scripted.Drift{}, err
	}
	return scripted.Compare(a, b, calls)
}

// refreshGolden rewrites the golden files of the source tree's scenarios
// (beside goldenDir: DIR/scenarios and DIR/golden) from the fixtures just
// made in out, as golden does a suite's: the binary's embedded fixtures
// are those of its build, not the new ones.
func (c *call) refreshGolden(ctx context.Context, goldenDir, out string) int {
	goldenDir = filepath.Clean(goldenDir)
	if filepath.Base(goldenDir) != "golden" {
		return c.failf(exitCannotRun, "golden files not refreshed: --golden %s is not a folder named golden beside a scenarios folder", goldenDir)
	}
	scs, changes, err := scenario.LoadSource(filepath.Dir(goldenDir), out)
	if err != nil {
		return c.failf(exitCannotRun, "golden files not refreshed: %v", err)
	}
	exe, err := os.Executable()
	if err != nil {
		return c.fail(exitCannotRun, err)
	}
	return c.makeGolden(ctx, runner.Config{Harness: []string{exe}, Changes: changes}, scs, false)
}
