package mutations

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpparity/mcpparity/internal/verdict"
	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

// ReportVersion is the version of the JSON report format.
const ReportVersion = 3

// Builds of a mutant.
const (
	buildSchemata = "schemata" // hosted by the one build of all mutants
	buildOwn      = "own"      // built alone (BuildNote says why)
	buildCopy     = "copy"     // a target of its own: a copy of its folder, built
	// BuildSwitch (switch.go): a target of its own, its mutants compiled in.
)

// Seconds is a duration in seconds, rounded to the millisecond in JSON.
type Seconds float64

// secondsOf converts d.
func secondsOf(d time.Duration) Seconds { return Seconds(d.Seconds()) }

// MarshalJSON writes the value rounded to the millisecond.
func (s Seconds) MarshalJSON() ([]byte, error) {
	return json.Marshal(math.Round(float64(s)*1000) / 1000)
}

// Duration converts back.
func (s Seconds) Duration() time.Duration { return time.Duration(float64(s) * float64(time.Second)) }

// Result is one mutant's outcome. Verdict, KilledBy and the fields up to
// CheckTime are the suite's: check run against the mutated reference.
type Result struct {
	Index    int    `json:"index"`
	ID       string `json:"id"`
	Rule     string `json:"rule"`
	File     string `json:"file"`
	Line     int    `json:"line"`
	Operator string `json:"operator,omitempty"`
	Why      string `json:"why,omitempty"`
	// Build is BuildSchemata or BuildOwn.
	Build     string `json:"build"`
	BuildNote string `json:"buildNote,omitempty"`

	Verdict verdict.Verdict `json:"verdict"`
	// Reason is why a mutant is killed with no difference named: "crash:
	// <the panic>" or "timeout" (verdict.go).
	Reason string `json:"reason,omitempty"`
	// KilledBy is "<scenario> <path>" of the first difference check
	// reported; Want and Got are its values.
	KilledBy string `json:"killedBy,omitempty"`
	Scenario string `json:"scenario,omitempty"`
	Path     string `json:"path,omitempty"`
	Want     string `json:"want,omitempty"`
	Got      string `json:"got,omitempty"`
	Error    string `json:"error,omitempty"`
	// Note tells when a kill seen among other runs did not hold alone.
	Note      string  `json:"note,omitempty"`
	CheckTime Seconds `json:"checkSeconds"`

	// Tests is the verdict of the mutated package's own Go tests.
	Tests TestsResult `json:"tests"`
	// Fuzz is what the fuzz phase found (FuzzConfig), when it ran.
	Fuzz *FuzzResult `json:"fuzz,omitempty"`
	// ConfirmTime is the time of the confirmation runs, Time the wall time
	// of every run of the mutant.
	ConfirmTime Seconds `json:"confirmSeconds,omitempty"`
	Time        Seconds `json:"seconds"`
}

// TestsResult is the verdict of a package's Go tests on a mutant.
type TestsResult struct {
	Verdict verdict.Verdict `json:"verdict,omitempty"`
	Reason  string          `json:"reason,omitempty"`
	// KilledBy is the failing test credited with the kill (the first
	// --- FAIL:), Failed every failing test.
	KilledBy string   `json:"killedBy,omitempty"`
	Failed   []string `json:"failed,omitempty"`
	// Filter is the -run filter of the rule's tests, tried first ("" when
	// no test names the rule); Run is the filter of the last test run
	// ("(all)" for the whole package).
	Filter string  `json:"filter,omitempty"`
	Run    string  `json:"run,omitempty"`
	Error  string  `json:"error,omitempty"`
	Note   string  `json:"note,omitempty"`
	Time   Seconds `json:"seconds"`
}

// Baseline is one measure of the unmutated build: "build" (the schemata),
// "check", "tests ./impl".
type Baseline struct {
	Name    string  `json:"name"`
	Seconds Seconds `json:"seconds"`
	Timeout Seconds `json:"timeoutSeconds,omitempty"`
}

// Summary counts verdicts. Score is killed / (total − errors − not
// viable); CoveredScore leaves the mutants not covered out too.
type Summary struct {
	Total        int     `json:"total"`
	Killed       int     `json:"killed"`
	Survived     int     `json:"survived"`
	Timeout      int     `json:"timeout"`
	Error        int     `json:"error"`
	NotCovered   int     `json:"notCovered"`
	NotViable    int     `json:"notViable"`
	Score        float64 `json:"score"`
	CoveredScore float64 `json:"coveredScore"`
}

// Report is the outcome of one run (or of merged shards). Summary and the
// exit code are the suite's; Tests summarizes the packages' tests.
type Report struct {
	Version int    `json:"version"`
	Mode    string `json:"mode"` // "rules" or "operators"
	// Shards lists the shards this report covers (empty: not sharded).
	Shards []catalogue.Shard `json:"shards,omitempty"`
	// Selected is how many mutants the whole selection had, before
	// sharding.
	Selected    int        `json:"selected"`
	Workers     int        `json:"workers"`
	Started     time.Time  `json:"started"`
	Elapsed     Seconds    `json:"seconds"`
	Baselines   []Baseline `json:"baselines"`
	Interrupted bool       `json:"interrupted,omitempty"`
	// Pending counts the mutants with no verdict (an interrupted run).
	Pending int      `json:"pending,omitempty"`
	Summary Summary  `json:"summary"`
	Tests   Summary  `json:"tests"`
	Results []Result `json:"results"`
}

func sortResults(rs []Result) {
	sort.SliceStable(rs, func(i, j int) bool {
		if rs[i].Index != rs[j].Index {
			return rs[i].Index < rs[j].Index
		}
		return rs[i].ID < rs[j].ID
	})
}

// finish recomputes the summaries from the results.
func (r *Report) finish() {
	var suite, tests []verdict.Verdict
	for _, res := range r.Results {
		suite = append(suite, res.Verdict)
		if res.Tests.Verdict != "" {
			tests = append(tests, res.Tests.Verdict)
		}
	}
	r.Summary, r.Tests = summarize(suite), summarize(tests)
	if r.Results == nil {
		r.Results = []Result{}
	}
	if r.Baselines == nil {
		r.Baselines = []Baseline{}
	}
}

func summarize(vs []verdict.Verdict) Summary {
	s := Summary{Total: len(vs)}
	for _, v := range vs {
		switch v {
		case verdict.Killed:
			s.Killed++
		case verdict.Survived:
			s.Survived++
		case verdict.Timeout:
			s.Timeout++
		case verdict.NotCovered:
			s.NotCovered++
		case verdict.NotViable:
			s.NotViable++
		default:
			s.Error++
		}
	}
	ratio := func(a, b int) float64 {
		if b <= 0 {
			return 0
		}
		return math.Round(float64(a)/float64(b)*10000) / 10000
	}
	judged := s.Total - s.Error - s.NotViable
	s.Score = ratio(s.Killed, judged)
	s.CoveredScore = ratio(s.Killed, judged-s.NotCovered)
	return s
}

// ExitCode is the process exit code of a report, by the suite's verdicts:
// 0 when the suite killed every mutant, 1 when one survived, was not
// covered or timed out (or, for rule mutants, was not viable or could not
// be judged: a broken catalogue entry), 130 when the run was interrupted.
// For operator mutants, the mutants not viable and the errors are left
// out, and minScore, when > 0, replaces "all killed" by "score ≥
// minScore".
func (r *Report) ExitCode(minScore float64) int {
	if r.Interrupted {
		return 130
	}
	s := r.Summary
	if r.Mode == ModeOperators {
		if minScore > 0 {
			if s.Score >= minScore {
				return 0
			}
			return 1
		}
		if s.Survived+s.Timeout+s.NotCovered > 0 {
			return 1
		}
		return 0
	}
	if s.Survived+s.Timeout+s.Error+s.NotCovered+s.NotViable > 0 {
		return 1
	}
	return 0
}

// Modes of a run.
const (
	ModeRules     = "rules"
	ModeOperators = "operators"
)

// WriteJSON writes the report, indented.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(r)
}

// WriteFile writes the report to a file.
func (r *Report) WriteFile(name string) error {
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		return err
	}
	return os.WriteFile(name, buf.Bytes(), 0o644)
}

// readReport reads a JSON report.
func readReport(rd io.Reader) (*Report, error) {
	dec := json.NewDecoder(rd)
	dec.DisallowUnknownFields()
	var r Report
	if err := dec.Decode(&r); err != nil {
		return nil, err
	}
	if r.Version != ReportVersion {
		return nil, fmt.Errorf("report version %d, want %d", r.Version, ReportVersion)
	}
	return &r, nil
}

// ReadReportFile reads a JSON report file.
func ReadReportFile(name string) (*Report, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := readReport(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

// tableReason is the width of a kill's reason in the table (the JSON has it
// whole).
const tableReason = 32

// WriteTable prints one line per mutant, the summaries, and the mutants
// the suite missed.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tMUTANT\tSUITE\tKILLED BY (SCENARIO PATH)\tIMPL TESTS\tTIME")
	for _, res := range r.Results {
		id := res.ID
		if res.Build == buildOwn {
			id += " [own build]"
		}
		tests := res.Tests
		tests.Reason = clipRunes(tests.Reason, tableReason)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1fs\n", res.Rule, id, verdictText(res.Verdict, clipRunes(res.Reason, tableReason)),
			dash(res.KilledBy), tests.short(), float64(res.Time))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	r.writeSummaries(w)
	if r.Interrupted {
		fmt.Fprintf(w, "INTERRUPTED: partial report, %d mutant(s) without a verdict\n", r.Pending)
	}
	if r.Mode != ModeOperators {
		r.writeTestNotes(w)
	}
	r.writeMissed(w)
	r.writeFuzz(w)
	for _, res := range r.Results {
		for _, n := range []string{res.Note, res.Tests.Note} {
			if n != "" {
				fmt.Fprintf(w, "note: %s: %s\n", res.ID, n)
			}
		}
	}
	return nil
}

// writeSummaries prints the suite's and the tests' counts (and scores, for
// operator mutants), then the builds and the baselines.
func (r *Report) writeSummaries(w io.Writer) {
	var suiteHow, testsHow []string
	for _, res := range r.Results {
		suiteHow = append(suiteHow, res.Reason)
		testsHow = append(testsHow, res.Tests.Reason)
	}
	fmt.Fprintf(w, "%d mutants; suite: %s%s\n", r.Summary.Total, r.Summary.counts(suiteHow), r.score(r.Summary))
	if t := r.Tests; t.Total > 0 {
		fmt.Fprintf(w, "impl tests: %s%s\n", t.counts(testsHow), r.score(t))
	}
	own := 0
	for _, res := range r.Results {
		if res.Build == buildOwn {
			own++
		}
	}
	var base []string
	for _, b := range r.Baselines {
		base = append(base, fmt.Sprintf("%s %.1fs", b.Name, float64(b.Seconds)))
	}
	line := fmt.Sprintf("builds: %d in the schemata, %d own", len(r.Results)-own, own)
	if r.Mode == modeTarget {
		line = fmt.Sprintf("builds: %d copies of the target", len(r.Results))
		if len(r.Results) > 0 && r.Results[0].Build == catalogue.BuildSwitch {
			line = "builds: none, the target's own build (mutants compiled in, selected by its switch)"
		}
	}
	if len(base) > 0 {
		line += "; baseline " + strings.Join(base, ", ")
	}
	fmt.Fprintf(w, "%s; %.1fs\n", line, float64(r.Elapsed))
}

// score is "; score X%" for operator mutants ("" otherwise).
func (r *Report) score(s Summary) string {
	if r.Mode != ModeOperators {
		return ""
	}
	out := fmt.Sprintf("; score %.1f%%", s.Score*100)
	if s.NotCovered > 0 {
		out += fmt.Sprintf(" (%.1f%% of the covered)", s.CoveredScore*100)
	}
	return out
}

// writeTestNotes says which kills by the tests came from no test of the
// rule.
func (r *Report) writeTestNotes(w io.Writer) {
	for _, res := range r.Results {
		if res.Tests.Verdict != verdict.Killed || res.Tests.KilledBy == "" || res.Tests.Run != "(all)" {
			continue
		}
		if res.Tests.Filter == "" {
			fmt.Fprintf(w, "note: %s killed by %s, but no test names rule %s\n", res.ID, res.Tests.KilledBy, res.Rule)
		} else {
			fmt.Fprintf(w, "note: %s passed the tests of rule %s, killed only by %s\n", res.ID, res.Rule, res.Tests.KilledBy)
		}
	}
}

// writeMissed lists every mutant the suite did not kill (for operator
// mutants, those not viable are only counted).
func (r *Report) writeMissed(w io.Writer) {
	for _, res := range r.Results {
		v := res.Verdict
		if v == verdict.Killed || v == verdict.NotViable && r.Mode == ModeOperators {
			continue
		}
		fmt.Fprintf(w, "%s %s (%s:%d): %s\n", strings.ToUpper(string(v)), res.ID, res.File, res.Line, res.Why)
		if res.Error != "" {
			fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(tail(res.Error, 600), "\n", "\n    "))
		}
		if res.Tests.Verdict == verdict.Killed {
			fmt.Fprintf(w, "    impl tests: killed by %s (only the Go reference is protected)\n", dash(res.Tests.KilledBy))
		}
	}
}

// writeFuzz says what the fuzz phase found, mutant by mutant, then the
// mutants the suite missed that it found.
func (r *Report) writeFuzz(w io.Writer) {
	fuzzed, found, missed, caught := 0, 0, 0, 0
	for _, res := range r.Results {
		if res.Fuzz == nil {
			continue
		}
		fuzzed++
		if res.Fuzz.Found {
			found++
		}
		if res.Verdict == verdict.Survived {
			missed++
			if res.Fuzz.Found {
				caught++
			}
		}
		fmt.Fprintf(w, "fuzz %s (suite: %s): %s\n", res.ID, res.Verdict, res.Fuzz.summary())
	}
	if fuzzed > 0 {
		fmt.Fprintf(w, "fuzz: %d mutant(s) fuzzed, %d found; of the %d the suite did not kill, %d found\n", fuzzed, found, missed, caught)
	}
}

// counts is the summary in words; reasons, the kills' reasons, tells how
// many kills were crashes, timeouts and checks that could not run.
func (s Summary) counts(reasons []string) string {
	n := map[string]int{}
	for _, r := range reasons {
		switch {
		case r == reasonTimeout:
			n["by a timeout"]++
		case strings.HasPrefix(r, reasonCrash):
			n["by a crash"]++
		case strings.HasPrefix(r, reasonCannotRun):
			n["by a check that could not run"]++
		}
	}
	var how []string
	for _, k := range []string{"by a crash", "by a timeout", "by a check that could not run"} {
		if n[k] > 0 {
			how = append(how, fmt.Sprintf("%d %s", n[k], k))
		}
	}
	killed := fmt.Sprintf("%d killed", s.Killed)
	if len(how) > 0 {
		killed += " (" + strings.Join(how, ", ") + ")"
	}
	line := fmt.Sprintf("%s, %d survived, %d timeout, %d error", killed, s.Survived, s.Timeout, s.Error)
	if s.NotCovered > 0 {
		line += fmt.Sprintf(", %d not covered", s.NotCovered)
	}
	if s.NotViable > 0 {
		line += fmt.Sprintf(", %d not viable", s.NotViable)
	}
	return line
}

// summary is the suite's verdict in words: "killed by 01-pure [0].x".
func (r *Result) summary() string {
	v := verdictText(r.Verdict, r.Reason)
	switch {
	case r.KilledBy != "":
		return v + " by " + r.KilledBy
	case r.Error != "":
		return v + " (" + firstLine(r.Error) + ")"
	}
	return v
}

func (t TestsResult) short() string {
	v := verdictText(t.Verdict, t.Reason)
	switch {
	case t.Verdict == "":
		return "-"
	case t.KilledBy != "":
		return v + " " + t.KilledBy
	}
	return v
}

// clipRunes shortens s to n runes, "…" included.
func clipRunes(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// Merge joins shard reports into one, as if one run had made them. The
// reports must be of the same mode and selection, their shards of the same
// N and not repeated; a mutant in two reports is an error. Missing shards
// are reported in the returned error together with the merged report (so
// that it can still be printed).
func Merge(reports ...*Report) (*Report, error) {
	if len(reports) == 0 {
		return nil, errors.New("merge: no report")
	}
	first := reports[0]
	out := &Report{
		Version: ReportVersion, Mode: first.Mode, Selected: first.Selected,
		Workers: first.Workers, Started: first.Started,
	}
	seenShard := map[int]bool{}
	seenID := map[string]bool{}
	n := 0
	for i, r := range reports {
		if r.Mode != first.Mode {
			return nil, fmt.Errorf("merge: report %d is of mode %q, report 1 of %q", i+1, r.Mode, first.Mode)
		}
		if r.Selected != first.Selected {
			return nil, fmt.Errorf("merge: report %d selected %d mutants, report 1 %d", i+1, r.Selected, first.Selected)
		}
		for _, s := range r.Shards {
			if n == 0 {
				n = s.N
			}
			if s.N != n {
				return nil, fmt.Errorf("merge: report %d is shard %s, another is of %d shards", i+1, s, n)
			}
			if seenShard[s.K] {
				return nil, fmt.Errorf("merge: shard %s given twice", s)
			}
			seenShard[s.K] = true
			out.Shards = append(out.Shards, s)
		}
		for _, res := range r.Results {
			if seenID[res.ID] {
				return nil, fmt.Errorf("merge: mutant %s is in two reports", res.ID)
			}
			seenID[res.ID] = true
			out.Results = append(out.Results, res)
		}
		if r.Started.Before(out.Started) {
			out.Started = r.Started
		}
		// Shards run side by side: the merged run lasts as long as the
		// longest.
		out.Elapsed = max(out.Elapsed, r.Elapsed)
		out.Baselines = append(out.Baselines, r.Baselines...)
		out.Interrupted = out.Interrupted || r.Interrupted
		out.Pending += r.Pending
	}
	sort.Slice(out.Shards, func(i, j int) bool { return out.Shards[i].K < out.Shards[j].K })
	sortResults(out.Results)
	out.finish()
	var missing []string
	if n > 0 {
		for k := 1; k <= n; k++ {
			if !seenShard[k] {
				missing = append(missing, catalogue.Shard{K: k, N: n}.String())
			}
		}
	}
	if len(missing) > 0 {
		return out, fmt.Errorf("merge: missing shard(s) %s", strings.Join(missing, ", "))
	}
	if !out.Interrupted && len(out.Results) != out.Selected {
		return out, fmt.Errorf("merge: %d results for %d selected mutants", len(out.Results), out.Selected)
	}
	return out, nil
}
