package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/record"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
)

func init() {
	register("record", "record the fixtures from the live servers (or proxy any server with --upstream/--upstream-cmd)", runRecord)
}

// defaultRecordings is the folder of the fixtures' recordings.
const defaultRecordings = "fixtures/recordings"

const recordSynopsis = `[--check] [--everything] [--modern] [--out DIR] [--golden DIR]
       mcpparity record (--upstream URL | --upstream-cmd CMD) --out FILE [flags]
       mcpparity record --suite DIR [--name NAME] [--upstream URL | --upstream-cmd CMD] [--check] [--secret S]... [--secret-env NAME]... [--secret-pattern RE]...`

const recordNotes = `
Without --upstream or --upstream-cmd, record re-records the fixtures through
the reference pool, then refreshes the golden files. With one of them, it is
the recorder as a standalone proxy for any client and server; the fixture is
written when the client ends its session (HTTP DELETE, stdin EOF) or on
interrupt. With --suite, record drives the reference pool against a server
into a suite folder (suite:): with --upstream or --upstream-cmd and --name, it
records DIR/fixtures/NAME/, writes its call script scenarios/calls-NAME.json
(add calls there, then record again) and a starting scenario that lists and
calls the tools; without them, it records again each recording of the suite
(or NAME) from its call script; --check compares those with the stored
fixtures instead. Then: mcpparity golden --suite DIR. A flag of one form
(fixtures:, proxy:, suite:) does not go with another. Secrets (--secret,
the value of each --secret-env variable, every match of each
--secret-pattern, and in a suite its call script's secretEnv and
secretPatterns) are written as ` + fixtures.SecretPlaceholder + ` wherever they occur, in
any encoding; record says how many values it replaced, never which.`

// The flags of each form of record.
var (
	fixturesOnly = []string{"check", "everything", "modern", "golden"}
	proxyOnly    = []string{"listen", "name", "sdk-module", "sdk-version", "secret", "secret-env", "secret-pattern", "header", "out-dir", "no-tool-probes"}
	notWithSuite = []string{"out", "everything", "modern", "golden", "listen", "header", "out-dir", "no-tool-probes"}
)

func runRecord(ctx context.Context, c *call) int {
	fs := c.flags(recordSynopsis, recordNotes)
	out := fs.String("out", "", "fixtures: the folder of the recordings (default "+defaultRecordings+"); proxy: the fixture file to write, required")
	check := fs.Bool("check", false, "fixtures: record into a temporary folder and fail with a diff when the stored fixtures differ")
	everything := fs.Bool("everything", false, "fixtures: also record server-everything (npx) into everything/stdio.json and everything/http.json")
	modern := fs.Bool("modern", false, "fixtures: also record the servers of the 2026-07-28 revision on the TypeScript and Python SDKs into modern/ (recorder/servers: their packages installed)")
	golden := fs.String("golden", "golden", "fixtures: golden folder rewritten after recording (empty: leave golden files alone)")
	suiteDir := fs.String("suite", "", "suite: the suite `folder` to record into (fixtures/NAME/, scenarios/calls-NAME.json, a starting scenario); --check: its fixtures")
	pf := declareProxyFlags(fs)
	if code, done := c.parse(); done {
		return code
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if set["suite"] {
		if n := firstSet(set, notWithSuite); n != "" {
			return c.badUsage("--%s does not go with --suite", n)
		}
		return c.recordSuite(ctx, *suiteDir, pf, *check)
	}
	if set["upstream"] || set["upstream-cmd"] {
		if n := firstSet(set, fixturesOnly); n != "" {
			return c.badUsage("--%s records the fixtures: it does not go with --upstream or --upstream-cmd", n)
		}
		return c.recordProxy(ctx, pf, *out)
	}
	if n := firstSet(set, proxyOnly); n != "" {
		return c.badUsage("--%s is a flag of the proxy: it needs --upstream or --upstream-cmd", n)
	}
	if *out == "" {
		*out = defaultRecordings
	}
	return c.recordFixtures(ctx, *out, *check, *everything, *modern, *golden)
}

// firstSet returns the first of names that is set, or "".
func firstSet(set map[string]bool, names []string) string {
	for _, n := range names {
		if set[n] {
			return n
		}
	}
	return ""
}

// recordFixtures records the fixtures' sets into out (into a temporary
// folder compared with out, with check), then refreshes the golden files.
func (c *call) recordFixtures(ctx context.Context, out string, check, everything, modern bool, golden string) int {
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
	dir := out
	if check {
		tmp, err := os.MkdirTemp("", "mcpparity-record-")
		if err != nil {
			return c.fail(2, err)
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	if check {
		return c.checkFixtures(ctx, sets, dir, out, exe)
	}
	for _, s := range sets {
		path := filepath.Join(dir, s.File)
		if err := record.Record(ctx, s, path, []string{exe}); err != nil {
			if errors.Is(err, record.ErrNoNpx) || errors.Is(err, record.ErrNoServer) {
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

// checkFixtures records each set into fresh and compares it with the
// stored one, the volatile fields of its calls aside.
func (c *call) checkFixtures(ctx context.Context, sets []record.Set, fresh, stored, exe string) int {
	var checked []record.Checked
	for _, s := range sets {
		ch := record.Checked{Name: filepath.Join(stored, s.File)}
		ch.Drift, ch.Err = checkSet(ctx, s, filepath.Join(stored, s.File), filepath.Join(fresh, s.File), exe)
		checked = append(checked, ch)
	}
	accept := "mcpparity record"
	if stored != defaultRecordings {
		accept += " --out " + stored
	}
	return writeDrift(c.stdout, checked, accept)
}

func checkSet(ctx context.Context, s record.Set, stored, fresh, exe string) (record.Drift, error) {
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

// refreshGolden rewrites the golden files of the source tree's scenarios
// (beside goldenDir: DIR/scenarios and DIR/golden) from the recordings just
// made in out, as golden does a suite's: the binary's embedded recordings
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
