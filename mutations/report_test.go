package mutations

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

func syntheticMutants(n int) []Mutant {
	ms := make([]Mutant, n)
	for i := range ms {
		ms[i] = Mutant{ID: fmt.Sprintf("m%02d", i), Rule: Rules()[i%len(Rules())]}
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
				part := Shard{K: k, N: n}.Split(ms)
				again := Shard{K: k, N: n}.Split(ms)
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
	if s, err := ParseShard("2/3"); err != nil || s != (Shard{2, 3}) || s.String() != "2/3" {
		t.Errorf("ParseShard(2/3) = %v, %v", s, err)
	}
	for _, bad := range []string{"", "1", "0/3", "4/3", "1/0", "a/b", "-1/2"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
}

func sampleReport() *Report {
	r := &Report{
		Version: ReportVersion, Mode: ModeRules, Selected: 4, Exec: ExecBinary, Workers: 2,
		Started: time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC), Elapsed: 42.5,
		Baselines: []Baseline{{Package: "./impl", Build: 3.2, Run: 6.1, BuildTimeout: 39.6, RunTimeout: 48.3}},
		Results: []Result{
			{Index: 0, ID: "C1-default-false", Rule: "C1", File: "impl/config.go", Line: 30, Why: "default", Verdict: VerdictKilled,
				KilledBy: "TestC1_EnabledDefaultsToTrue/absent", Failed: []string{"TestC1_EnabledDefaultsToTrue", "TestC1_EnabledDefaultsToTrue/absent"},
				Run: "^(TestC1_EnabledDefaultsToTrue)$", Build: 2.5, RunTime: 0.4, Time: 2.9},
			{Index: 1, ID: "C1-key-ignored", Rule: "C1", File: "impl/config.go", Line: 34, Why: "key ignored", Verdict: VerdictSurvived,
				Run: "(all)", Build: 2.5, RunTime: 7, Time: 9.5},
			{Index: 2, ID: "P10-no-retry", Rule: "P10", File: "impl/call.go", Line: 51, Why: "retry", Verdict: VerdictTimeout,
				Error: "tests timed out", Run: "^(TestP10_X)$", Build: 2.5, RunTime: 48.3, Time: 50.8},
			{Index: 3, ID: "P12-min", Rule: "P12", File: "impl/flatten.go", Line: 55, Why: "min", Verdict: VerdictError,
				Error: "build failed: x", Build: 1, Time: 1},
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
	back, err := ReadReport(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, back) {
		t.Errorf("round trip changed the report:\n%+v\n%+v", r, back)
	}
	for _, want := range []string{`"killedBy": "TestC1_EnabledDefaultsToTrue/absent"`, `"verdict": "timeout"`, `"seconds": 42.5`, `"score": 0.3333`} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("JSON lacks %s:\n%s", want, buf.String())
		}
	}
	if _, err := ReadReport(strings.NewReader(`{"version":99}`)); err == nil {
		t.Error("version 99 accepted")
	}
	if _, err := ReadReport(strings.NewReader(`{"version":1,"extra":1}`)); err == nil {
		t.Error("unknown field accepted")
	}
}

func TestSummaryAndExitCode(t *testing.T) {
	r := sampleReport()
	if want := (Summary{Total: 4, Killed: 1, Survived: 1, Timeout: 1, Error: 1, Score: 0.3333}); r.Summary != want {
		t.Errorf("summary %+v, want %+v", r.Summary, want)
	}
	if c := r.ExitCode(0); c != 1 {
		t.Errorf("exit %d with a survivor", c)
	}
	r.Results = r.Results[:1]
	r.finish()
	if c := r.ExitCode(0); c != 0 {
		t.Errorf("exit %d with all killed", c)
	}
	r.Results = append(r.Results, Result{ID: "t", Verdict: VerdictTimeout})
	r.finish()
	if c := r.ExitCode(0); c != 1 {
		t.Errorf("exit %d with a timeout", c)
	}
	r.Interrupted = true
	if c := r.ExitCode(0); c != 130 {
		t.Errorf("exit %d when interrupted", c)
	}
	op := &Report{Mode: ModeOperators, Results: []Result{{ID: "a", Verdict: VerdictKilled}, {ID: "b", Verdict: VerdictError}, {ID: "c", Verdict: VerdictSurvived}}}
	op.finish()
	if op.Summary.Score != 0.5 {
		t.Errorf("operator score %v, want 0.5 (errors left out)", op.Summary.Score)
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
	want := `RULE  MUTANT            VERDICT   KILLED BY                            TIME
C1    C1-default-false  killed    TestC1_EnabledDefaultsToTrue/absent  2.9s
C1    C1-key-ignored    survived  -                                    9.5s
P10   P10-no-retry      timeout   -                                    50.8s
P12   P12-min           error     -                                    1.0s
4 mutants: 1 killed, 1 survived, 1 timeout, 1 error; baseline ./impl build 3.2s run 6.1s; 42.5s
SURVIVED C1-key-ignored (impl/config.go:34): key ignored
TIMEOUT P10-no-retry (impl/call.go:51): retry
    tests timed out
ERROR P12-min (impl/flatten.go:55): min
    build failed: x
`
	if got := buf.String(); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}

	// A kill outside the rule's own tests is noted: that rule's tests are weak.
	r := &Report{Mode: ModeRules, Results: []Result{
		{ID: "a", Rule: "C1", Verdict: VerdictKilled, KilledBy: "TestP10_X", Filter: "^(TestC1_Y)$", Run: "(all)"},
		{ID: "b", Rule: "C2", Verdict: VerdictKilled, KilledBy: "TestZ", Run: "(all)"},
		{ID: "c", Rule: "C3", Verdict: VerdictKilled, KilledBy: "TestC3_Y", Filter: "^(TestC3_Y)$", Run: "^(TestC3_Y)$"},
	}}
	r.finish()
	buf.Reset()
	_ = r.WriteTable(&buf)
	for _, line := range []string{
		"note: a passed the tests of rule C1, killed only by TestP10_X\n",
		"note: b killed by TestZ, but no test names rule C2\n",
	} {
		if !strings.Contains(buf.String(), line) {
			t.Errorf("table lacks %q:\n%s", line, buf.String())
		}
	}
	if strings.Contains(buf.String(), "note: c") {
		t.Errorf("c was killed by its rule's tests:\n%s", buf.String())
	}
}

func TestMerge(t *testing.T) {
	whole := sampleReport()
	var parts []*Report
	for k := 1; k <= 3; k++ {
		sh := Shard{K: k, N: 3}
		p := &Report{Version: ReportVersion, Mode: ModeRules, Selected: whole.Selected, Exec: whole.Exec, Workers: 2,
			Started: whole.Started.Add(time.Duration(k) * time.Second), Elapsed: Seconds(10 * k),
			Baselines: whole.Baselines, Shards: []Shard{sh}}
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
	if !reflect.DeepEqual(m.Results, whole.Results) || m.Summary != whole.Summary {
		t.Errorf("merged results differ:\n%+v\n%+v", m.Results, whole.Results)
	}
	if m.ExitCode(0) != whole.ExitCode(0) || !m.Started.Equal(whole.Started.Add(time.Second)) || m.Elapsed != 30 {
		t.Errorf("merged exit %d started %v elapsed %v", m.ExitCode(0), m.Started, m.Elapsed)
	}
	if len(m.Shards) != 3 || m.Shards[0].K != 1 {
		t.Errorf("shards %v", m.Shards)
	}
	var a, b bytes.Buffer
	_ = m.WriteTable(&a)
	_ = whole.WriteTable(&b)
	if strings.Count(a.String(), "\n") != strings.Count(b.String(), "\n") {
		t.Errorf("merged table:\n%s\nwhole:\n%s", a.String(), b.String())
	}

	if m, err := Merge(parts[0], parts[1]); err == nil || m == nil || !strings.Contains(err.Error(), "missing shard(s) 3/3") {
		t.Errorf("missing shard: %v", err)
	}
	if _, err := Merge(parts[0], parts[0]); err == nil {
		t.Error("a shard given twice was merged")
	}
	other := *parts[1]
	other.Shards = []Shard{{K: 2, N: 4}}
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
