package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcpparity/mcpparity/internal/record"
)

func init() {
	register("record", "record the fixtures from the live servers (record-proxy: any server; record-suite: into a suite)", runRecord)
}

// defaultRecordings is the folder of the fixtures' recordings.
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
// --drift, compared with fresh recordings).
func runRecord(ctx context.Context, c *call) int {
	name, args := c.recordOldSpelling()
	if name != "record" {
		return c.runAs(ctx, name, args)
	}
	c.args = args
	fs := c.flags("[--drift] [--everything] [--modern] [--out DIR] [--golden DIR]", recordNotes)
	out := fs.String("out", defaultRecordings, "the `folder` of the recordings")
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
	sets := append([]record.Set{}, record.SDKSets...)
	if everything {
		sets = append(sets, record.EverythingSets...)
	}
	if modern {
		sets = append(sets, record.ModernSets...)
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
		if err := record.Record(ctx, s, path, []string{exe}); err != nil {
			if errors.Is(err, record.ErrNoNpx) || errors.Is(err, record.ErrNoServer) {
				return c.failf(2, "%s: %v", s.File, err)
			}
			return c.failf(1, "%s: %v", s.File, err)
		}
		fmt.Fprintf(c.stdout, "recorded %s\n", path)
	}
	if golden != "" {
		return c.refreshGolden(ctx, golden)
	}
	return 0
}

// fixturesDrift records each set into fresh and compares it with the
// stored one, the volatile fields of its calls aside.
func (c *call) fixturesDrift(ctx context.Context, sets []record.Set, fresh, stored, exe string) int {
	var checked []record.Checked
	for _, s := range sets {
		ch := record.Checked{Name: filepath.Join(stored, s.File)}
		ch.Drift, ch.Err = setDrift(ctx, s, filepath.Join(stored, s.File), filepath.Join(fresh, s.File), exe)
		checked = append(checked, ch)
	}
	accept := "mcpparity record"
	if stored != defaultRecordings {
		accept += " --out " + stored
	}
	return writeDrift(c.stdout, checked, "record --drift", accept)
}

func setDrift(ctx context.Context, s record.Set, stored, fresh, exe string) (record.Drift, error) {
	a, err := os.ReadFile(stored)
	if err != nil {
		return record.Drift{}, err
	}
	if err := record.Record(ctx, s, fresh, []string{exe}); err != nil {
		return record.Drift{}, fmt.Errorf("recording it again: %w", err)
	}
	calls, err := record.Script(s)
	if err != nil {
		return record.Drift{}, err
	}
	b, err := os.ReadFile(fresh)
	if err != nil {
		return record.Drift{}, err
	}
	return record.Compare(a, b, calls)
}

// refreshGolden rewrites the golden files from the new recordings. The
// recordings are embedded at build time, so this runs the suite from the
// source tree (`go test ./internal/suite -update`), in the module root.
func (c *call) refreshGolden(ctx context.Context, dir string) int {
	root := filepath.Dir(filepath.Clean(dir))
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		return c.failf(1, "golden files not refreshed: %s is not in a source tree (run go test ./internal/suite -run TestScenarios -update there)", dir)
	}
	cmd := exec.CommandContext(ctx, "go", "test", "./internal/suite", "-run", "TestScenarios", "-count=1", "-update")
	cmd.Dir = root
	cmd.Stdout, cmd.Stderr = c.stdout, c.stderr
	if err := cmd.Run(); err != nil {
		return c.failf(1, "refreshing golden files: %v", err)
	}
	fmt.Fprintf(c.stdout, "refreshed %s (read the diff: git diff %s)\n", dir, dir)
	return 0
}
