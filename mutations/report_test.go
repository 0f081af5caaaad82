package mutations

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/internal/verdict"
	"github.com/mcpparity/mcpparity/mutations/catalogue"
)

func syntheticMutants(n int) []catalogue.Mutant {
	ms := make([]catalogue.Mutant, n)
	for i := range ms {
		ms[i] = catalogue.Mutant{ID: fmt.Sprintf("m%02d", i), Rule: catalogue.Rules()[i%len(catalogue.Rules())]}
	}
	Number(ms)
	return ms
}

func TestShardSplitDisjointAndComplete(t *testing.T) {
	for _, total := range []int{0, 1, 5, 91} {
		ms := syntheticMutants(total)
		for n := 1; n <= 7; n++ {
			seen := map[string]int{}
			sizes := []int{}
			for k := 1; k <= n; k++ {
				part := catalogue.Shard{K: k, N: n}.Split(ms)
				again := catalogue.Shard{K: k, N: n}.Split(ms)
				if !reflect.DeepEqual(part, again) {
					t.Fatalf("%d/%d not deterministic", k, n)
				}
				sizes = append(sizes, len(part))
				for _, m := range part {
					seen[m.ID]++
				}
			}
			for _, m := range ms {
				if seen[m.ID] != 1 {
					t.Errorf("total %d, n %d: %s in %d shards", total, n, m.ID, seen[m.ID])
				}
			}
			if len(seen) != total {
				t.Errorf("total %d, n %d: %d mutants in the shards", total, n, len(seen))
			}
			for _, s := range sizes {
				if s < total/n || s > total/n+1 {
					t.Errorf("total %d, n %d: unbalanced sizes %v", total, n, sizes)
					break
				}
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	if s, err := catalogue.ParseShard("2/3"); err != nil || s != (catalogue.Shard{K: 2, N: 3}) || s.String() != "2/3" {
		t.Errorf("ParseShard(2/3) = %v, %v", s, err)
	}
	for _, bad := range []string{"", "1", "0/3", "4/3", "1/0", "a/b", "-1/2"} {
		if _, err := catalogue.ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
}

func sampleReport() *Report {
	r := &Report{
		Version: ReportVersion, Mode: ModeRules, Selected: 8, Workers: 6,
		Started: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), Elapsed: 42.5,
		Baselines: []Baseline{{Name: "build", Seconds: 3.2}, {Name: "check", Seconds: 1.5, Timeout: 34.5}, {Name: "tests ./impl", Seconds: 2.5, Timeout: 37.5}},
		Results: []Result{
			{Index: 0, ID: "P7-no-trim", Rule: "P7", File: "impl/names.go", Line: 16, Why: "trim", Build: buildSchemata, Verdict: verdict.Killed,
				KilledBy: "01-pure [0].body.tools[0].name", Scenario: "01-pure", Path: "[0].body.tools[0].name", Want: `"mcp__My_Server__audio"`, Got: `"mcp__My_Server___audio"`,
				CheckTime: 1.1, Tests: TestsResult{Verdict: verdict.Killed, KilledBy: "TestP7_Names/P7_sanitize/__x__", Failed: []string{"TestP7_Names", "TestP7_Names/P7_sanitize/__x__"},
					Filter: "^(TestP7_Names)$", Run: "^(TestP7_Names)$", Time: 0.4}, Time: 1.2},
			{Index: 1, ID: "C1-enabled-omitempty", Rule: "C1", File: "impl/config.go", Line: 22, Why: "omitempty", Build: buildOwn, BuildNote: "in a type declaration",
				Verdict: verdict.Survived, CheckTime: 1.5, Tests: TestsResult{Verdict: verdict.Killed, KilledBy: "TestC1_X", Filter: "^(TestC1_Y)$", Run: "(all)", Time: 3}, Time: 6.5},
			{Index: 2, ID: "P10-unbounded", Rule: "P10", File: "impl/call.go", Line: 37, Why: "bounded", Build: buildSchemata, Verdict: verdict.Timeout,
				Error: "past its bound of 35s, and so was the unmutated run", CheckTime: 35, Tests: TestsResult{Verdict: verdict.Killed, KilledBy: "TestP10_CallBounded", Time: 0.5}, Time: 35},
			{Index: 3, ID: "P12-min", Rule: "P12", File: "impl/flatten.go", Line: 55, Why: "min", Build: buildSchemata, Verdict: verdict.NotViable,
				Error: "does not compile: x", Tests: TestsResult{Verdict: verdict.NotViable, Error: "does not compile: x"}},
			{Index: 4, ID: "P14-unsorted", Rule: "P14", File: "impl/tools.go", Line: 91, Why: "sorted", Build: buildSchemata, Verdict: verdict.NotCovered,
				Tests: TestsResult{Verdict: verdict.Survived, Time: 2}, Time: 2},
			{Index: 5, ID: "P3-unlock", Rule: "P3", File: "impl/pool.go", Line: 12, Why: "unlock", Build: buildSchemata, Verdict: verdict.Killed,
				Reason: "crash: fatal error: sync: unlock of unlocked mutex", CheckTime: 0.5,
				Tests: TestsResult{Verdict: verdict.Killed, Reason: "crash: fatal error: sync: unlock of unlocked mutex", Time: 0.3}, Time: 0.8},
			{Index: 6, ID: "P4-spin", Rule: "P4", File: "impl/pool.go", Line: 40, Why: "spin", Build: buildSchemata, Verdict: verdict.Killed,
				Reason: reasonTimeout, CheckTime: 40, Tests: TestsResult{Verdict: verdict.Killed, Reason: reasonTimeout, Time: 40}, Time: 80},
			{Index: 7, ID: "P5-port", Rule: "P5", File: "impl/pool.go", Line: 50, Why: "port", Build: buildSchemata, Verdict: verdict.Error,
				Error: "check could not run (exit 2): 05-calls: address in use", CheckTime: 1, Tests: TestsResult{Verdict: verdict.Survived, Time: 2}, Time: 3},
		},
	}
	r.finish()
	return r
}

func TestReportJSONRoundTrip(t *testing.T) {
	r := sampleReport()
	var buf bytes.Buffer
	if err := r.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	back, err := readReport(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, back) {
		t.Errorf("round trip changed the report:\n%+v\n%+v", r, back)
	}
	for _, want := range []string{
		`"killedBy": "01-pure [0].body.tools[0].name"`, `"verdict": "not covered"`, `"build": "own"`,
		`"seconds": 42.5`, `"score": 0.5`, `"verdict": "not viable"`, `"reason": "crash: fatal error: sync: unlock of unlocked mutex"`, `"reason": "timeout"`, `"tests": {`, `"killedBy": "TestP7_Names/P7_sanitize/__x__"`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, buf.String())
		}
	}
	if _, err := readReport(strings.NewReader(`{"version":99}`)); err == nil {
		t.Error("version 99 accepted")
	}
	if _, err := readReport(strings.NewReader(`{"version":2}`)); err == nil {
		t.Error("version 2 accepted: its error verdicts mixed mutants that do not compile with crashes")
	}
	if _, err := readReport(strings.NewReader(`{"version":3,"extra":1}`)); err == nil {
		t.Error("unknown field accepted")
	}
}

func TestSummaryAndExitCode(t *testing.T) {
	r := sampleReport()
	// Errors and mutants not viable are left out of the scores.
	if want := (Summary{Total: 8, Killed: 3, Survived: 1, Timeout: 1, Error: 1, NotCovered: 1, NotViable: 1, Score: 0.5, CoveredScore: 0.6}); r.Summary != want {
		t.Errorf("suite summary %+v, want %+v", r.Summary, want)
	}
	if want := (Summary{Total: 8, Killed: 5, Survived: 2, NotViable: 1, Score: 0.7143, CoveredScore: 0.7143}); r.Tests != want {
		t.Errorf("tests summary %+v, want %+v", r.Tests, want)
	}
	if c := r.ExitCode(0); c != 1 {
		t.Errorf("exit %d with a survivor", c)
	}
	// Killed by impl's tests only is a survivor of the suite.
	r.Results = r.Results[:2]
	r.finish()
	if c := r.ExitCode(0); c != 1 || r.Tests.Killed != 2 {
		t.Errorf("exit %d with a mutant only impl's tests kill", c)
	}
	r.Results = r.Results[:1]
	r.finish()
	if c := r.ExitCode(0); c != 0 {
		t.Errorf("exit %d with all killed", c)
	}
	for _, v := range []verdict.Verdict{verdict.NotCovered, verdict.NotViable, verdict.Error, verdict.Timeout} {
		r.Results = append(r.Results[:1], Result{ID: "n", Verdict: v})
		r.finish()
		if c := r.ExitCode(0); c != 1 {
			t.Errorf("exit %d with a rule mutant %s", c, v)
		}
	}
	r.Interrupted = true
	if c := r.ExitCode(0); c != 130 {
		t.Errorf("exit %d when interrupted", c)
	}
	op := &Report{Mode: ModeOperators, Results: []Result{{ID: "a", Verdict: verdict.Killed}, {ID: "b", Verdict: verdict.Error},
		{ID: "c", Verdict: verdict.Survived}, {ID: "d", Verdict: verdict.NotViable}}}
	op.finish()
	if op.Summary.Score != 0.5 {
		t.Errorf("operator score %v, want 0.5 (errors and mutants not viable left out)", op.Summary.Score)
	}
	if op.ExitCode(0) != 1 || op.ExitCode(0.5) != 0 || op.ExitCode(0.6) != 1 {
		t.Errorf("operator exit codes %d %d %d", op.ExitCode(0), op.ExitCode(0.5), op.ExitCode(0.6))
	}
}

func TestTableFormat(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleReport().WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	want := `RULE  MUTANT                            SUITE                                      KILLED BY (SCENARIO PATH)       IMPL TESTS                                 TIME
P7    P7-no-trim                        killed                                     01-pure [0].body.tools[0].name  killed TestP7_Names/P7_sanitize/__x__      1.2s
C1    C1-enabled-omitempty [own build]  survived                                   -                               killed TestC1_X                            6.5s
P10   P10-unbounded                     timeout                                    -                               killed TestP10_CallBounded                 35.0s
P12   P12-min                           not viable                                 -                               not viable                                 0.0s
P14   P14-unsorted                      not covered                                -                               survived                                   2.0s
P3    P3-unlock                         killed (crash: fatal error: sync: unloc…)  -                               killed (crash: fatal error: sync: unloc…)  0.8s
P4    P4-spin                           killed (timeout)                           -                               killed (timeout)                           80.0s
P5    P5-port                           error                                      -                               survived                                   3.0s
8 mutants; suite: 3 killed (1 by a crash, 1 by a timeout), 1 survived, 1 timeout, 1 error, 1 not covered, 1 not viable
impl tests: 5 killed (1 by a crash, 1 by a timeout), 2 survived, 0 timeout, 0 error, 1 not viable
builds: 7 in the schemata, 1 own; baseline build 3.2s, check 1.5s, tests ./impl 2.5s; 42.5s
note: C1-enabled-omitempty passed the tests of rule C1, killed only by TestC1_X
SURVIVED C1-enabled-omitempty (impl/config.go:22): omitempty
    impl tests: killed by TestC1_X (only the Go reference is protected)
TIMEOUT P10-unbounded (impl/call.go:37): bounded
    past its bound of 35s, and so was the unmutated run
    impl tests: killed by TestP10_CallBounded (only the Go reference is protected)
NOT VIABLE P12-min (impl/flatten.go:55): min
    does not compile: x
NOT COVERED P14-unsorted (impl/tools.go:91): sorted
ERROR P5-port (impl/pool.go:50): port
    check could not run (exit 2): 05-calls: address in use
`
	if got := buf.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}

	op := sampleReport()
	op.Mode = ModeOperators
	buf.Reset()
	_ = op.WriteTable(&buf)
	for _, line := range []string{
		"8 mutants; suite: 3 killed (1 by a crash, 1 by a timeout), 1 survived, 1 timeout, 1 error, 1 not covered, 1 not viable; score 50.0% (60.0% of the covered)\n",
		"impl tests: 5 killed (1 by a crash, 1 by a timeout), 2 survived, 0 timeout, 0 error, 1 not viable; score 71.4%\n",
		"ERROR P5-port (impl/pool.go:50): port\n",
	} {
		if !strings.Contains(buf.String(), line) {
			t.Errorf("operator table lacks %q:\n%s", line, buf.String())
		}
	}
	if strings.Contains(buf.String(), "P12-min (") || strings.Contains(buf.String(), "note:") {
		t.Errorf("operator table lists a mutant not viable or notes:\n%s", buf.String())
	}
}

func TestMerge(t *testing.T) {
	whole := sampleReport()
	var parts []*Report
	for k := 1; k <= 3; k++ {
		sh := catalogue.Shard{K: k, N: 3}
		p := &Report{Version: ReportVersion, Mode: ModeRules, Selected: whole.Selected, Workers: 6,
			Started: whole.Started.Add(time.Duration(k) * time.Second), Elapsed: Seconds(10 * k),
			Baselines: whole.Baselines, Shards: []catalogue.Shard{sh}}
		for _, res := range whole.Results {
			if res.Index%3 == k-1 {
				p.Results = append(p.Results, res)
			}
		}
		p.finish()
		parts = append(parts, p)
	}
	// Given in any order, the merge is the whole run.
	m, err := Merge(parts[2], parts[0], parts[1])
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Results, whole.Results) || m.Summary != whole.Summary || m.Tests != whole.Tests {
		t.Errorf("merged results differ:\n%+v\n%+v", m.Results, whole.Results)
	}
	if m.ExitCode(0) != whole.ExitCode(0) || !m.Started.Equal(whole.Started.Add(time.Second)) || m.Elapsed != 30 {
		t.Errorf("merged exit %d started %v elapsed %v", m.ExitCode(0), m.Started, m.Elapsed)
	}
	if len(m.Shards) != 3 || m.Shards[0].K != 1 {
		t.Errorf("shards %v", m.Shards)
	}
	if m, err := Merge(parts[0], parts[1]); err == nil || m == nil || !strings.Contains(err.Error(), "missing shard(s) 3/3") {
		t.Errorf("missing shard: %v", err)
	}
	if _, err := Merge(parts[0], parts[0]); err == nil {
		t.Error("a shard given twice was merged")
	}
	other := *parts[1]
	other.Shards = []catalogue.Shard{{K: 2, N: 4}}
	if _, err := Merge(parts[0], &other); err == nil {
		t.Error("shards of different N merged")
	}
	ops := *parts[1]
	ops.Mode = ModeOperators
	if _, err := Merge(parts[0], &ops); err == nil {
		t.Error("modes mixed")
	}
	if _, err := Merge(); err == nil {
		t.Error("empty merge")
	}
}
