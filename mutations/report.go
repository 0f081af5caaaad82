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
)

// ReportVersion is the version of the JSON report format.
const ReportVersion = 1

// Verdict is a mutant's outcome.
type Verdict string

// Verdicts.
const (
	VerdictKilled   Verdict = "killed"   // a test failed: the suite saw the mutant
	VerdictSurvived Verdict = "survived" // every test passed: a rule is not checked
	VerdictTimeout  Verdict = "timeout"  // killed by the runner's timeout; not counted as killed
	VerdictError    Verdict = "error"    // the mutant could not be built or applied
)

// Seconds is a duration in seconds, rounded to the millisecond in JSON.
type Seconds float64

// SecondsOf converts d.
func SecondsOf(d time.Duration) Seconds { return Seconds(d.Seconds()) }

// MarshalJSON writes the value rounded to the millisecond.
func (s Seconds) MarshalJSON() ([]byte, error) {
	return json.Marshal(math.Round(float64(s)*1000) / 1000)
}

// Duration converts back.
func (s Seconds) Duration() time.Duration { return time.Duration(float64(s) * float64(time.Second)) }

// Result is one mutant's outcome.
type Result struct {
	Index    int     `json:"index"`
	ID       string  `json:"id"`
	Rule     string  `json:"rule"`
	File     string  `json:"file"`
	Line     int     `json:"line"`
	Operator string  `json:"operator,omitempty"`
	Why      string  `json:"why,omitempty"`
	Verdict  Verdict `json:"verdict"`
	// KilledBy is the failing test credited with the kill.
	KilledBy string   `json:"killedBy,omitempty"`
	Failed   []string `json:"failed,omitempty"`
	// Filter is the -run filter of the rule's tests, tried first ("" when
	// no test names the rule); Run is the filter of the last test run
	// ("(all)" for the whole package).
	Filter  string  `json:"filter,omitempty"`
	Run     string  `json:"run,omitempty"`
	Error   string  `json:"error,omitempty"`
	Build   Seconds `json:"buildSeconds"`
	RunTime Seconds `json:"runSeconds"`
	Time    Seconds `json:"seconds"`
}

// Baseline is the measure of one package's unmutated tests.
type Baseline struct {
	Package      string  `json:"package"`
	Build        Seconds `json:"buildSeconds"`
	Run          Seconds `json:"runSeconds"`
	BuildTimeout Seconds `json:"buildTimeoutSeconds"`
	RunTimeout   Seconds `json:"runTimeoutSeconds"`
}

// Summary counts verdicts. Score is killed / (total − errors).
type Summary struct {
	Total    int     `json:"total"`
	Killed   int     `json:"killed"`
	Survived int     `json:"survived"`
	Timeout  int     `json:"timeout"`
	Error    int     `json:"error"`
	Score    float64 `json:"score"`
}

// Report is the outcome of one run (or of merged shards).
type Report struct {
	Version int    `json:"version"`
	Mode    string `json:"mode"` // "rules" or "operators"
	// Shards lists the shards this report covers (empty: not sharded).
	Shards []Shard `json:"shards,omitempty"`
	// Selected is how many mutants the whole selection had, before
	// sharding.
	Selected    int        `json:"selected"`
	Exec        string     `json:"exec"`
	Workers     int        `json:"workers"`
	Started     time.Time  `json:"started"`
	Elapsed     Seconds    `json:"seconds"`
	Baselines   []Baseline `json:"baselines"`
	Interrupted bool       `json:"interrupted,omitempty"`
	// Pending counts the mutants with no verdict (an interrupted run).
	Pending int      `json:"pending,omitempty"`
	Summary Summary  `json:"summary"`
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

// finish recomputes the summary from the results.
func (r *Report) finish() {
	s := Summary{Total: len(r.Results)}
	for _, res := range r.Results {
		switch res.Verdict {
		case VerdictKilled:
			s.Killed++
		case VerdictSurvived:
			s.Survived++
		case VerdictTimeout:
			s.Timeout++
		default:
			s.Error++
		}
	}
	if n := s.Total - s.Error; n > 0 {
		s.Score = math.Round(float64(s.Killed)/float64(n)*10000) / 10000
	}
	r.Summary = s
	if r.Results == nil {
		r.Results = []Result{}
	}
	if r.Baselines == nil {
		r.Baselines = []Baseline{}
	}
}

// ExitCode is the process exit code of a report: 0 when every mutant was
// killed, 1 when one survived or timed out (or, for rule mutants, could not
// be built: a broken catalogue entry), 130 when the run was interrupted.
// For operator mutants, errors (mutants that do not compile) are left out,
// and minScore, when > 0, replaces "all killed" by "score ≥ minScore".
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
		if s.Survived+s.Timeout > 0 {
			return 1
		}
		return 0
	}
	if s.Survived+s.Timeout+s.Error > 0 {
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

// ReadReport reads a JSON report.
func ReadReport(rd io.Reader) (*Report, error) {
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
	r, err := ReadReport(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return r, nil
}

// WriteTable prints one line per mutant and a summary.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tMUTANT\tVERDICT\tKILLED BY\tTIME")
	for _, res := range r.Results {
		by := res.KilledBy
		if by == "" {
			by = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.1fs\n", res.Rule, res.ID, res.Verdict, by, float64(res.Time))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	s := r.Summary
	line := fmt.Sprintf("%d mutants: %d killed, %d survived, %d timeout, %d error", s.Total, s.Killed, s.Survived, s.Timeout, s.Error)
	if r.Mode == ModeOperators {
		line += fmt.Sprintf("; score %.1f%% (killed / (total - errors))", s.Score*100)
	}
	var base []string
	for _, b := range r.Baselines {
		base = append(base, fmt.Sprintf("%s build %.1fs run %.1fs", b.Package, float64(b.Build), float64(b.Run)))
	}
	if len(base) > 0 {
		line += "; baseline " + strings.Join(base, ", ")
	}
	line += fmt.Sprintf("; %.1fs", float64(r.Elapsed))
	fmt.Fprintln(w, line)
	if r.Interrupted {
		fmt.Fprintf(w, "INTERRUPTED: partial report, %d mutant(s) without a verdict\n", r.Pending)
	}
	for _, res := range r.Results {
		if res.Verdict == VerdictKilled && res.Run == "(all)" && r.Mode != ModeOperators {
			if res.Filter == "" {
				fmt.Fprintf(w, "note: %s killed by %s, but no test names rule %s\n", res.ID, res.KilledBy, res.Rule)
			} else {
				fmt.Fprintf(w, "note: %s passed the tests of rule %s, killed only by %s\n", res.ID, res.Rule, res.KilledBy)
			}
		}
	}
	for _, res := range r.Results {
		if res.Verdict == VerdictSurvived || res.Verdict == VerdictTimeout || (res.Verdict == VerdictError && r.Mode != ModeOperators) {
			fmt.Fprintf(w, "%s %s (%s:%d): %s\n", strings.ToUpper(string(res.Verdict)), res.ID, res.File, res.Line, res.Why)
			if res.Error != "" {
				fmt.Fprintf(w, "    %s\n", strings.ReplaceAll(tail(res.Error, 600), "\n", "\n    "))
			}
		}
	}
	return nil
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
		Exec: first.Exec, Workers: first.Workers, Started: first.Started,
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
				missing = append(missing, Shard{k, n}.String())
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
