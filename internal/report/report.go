// Package report is what a check run tells: the results of its scenarios
// and their writers (text, Markdown, JUnit, the JSON report that mutate and
// fuzz read back), and the matrix of several targets side by side.
package report

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/verdict"
)

// WriteDetails prints what the progress lines of Check do not say: each
// difference with its path and step, each error, the logs of a failed
// target, then the totals.
func WriteDetails(w io.Writer, results []Result) {
	for _, r := range results {
		if r.Verdict == verdict.Error {
			fmt.Fprintf(w, "\n%s: could not run: %s\n", r.Scenario, r.Err)
		}
		for _, d := range r.Diffs {
			tag := "DIFF"
			if d.Accepted {
				tag = "accepted (" + d.Reason + ")"
			}
			fmt.Fprintf(w, "\n%s %s: %s\n%s  want: %s\n  got:  %s\n", r.Scenario, d.Named(), tag, atLine(d, "  at:   %s\n"), d.Want, d.Got)
		}
		if r.Verdict == verdict.Fail && r.Logs != "" {
			fmt.Fprintf(w, "\n%s: target logs:\n%s\n", r.Scenario, indent(r.Logs))
		}
	}
	fmt.Fprintf(w, "\n%s\n", Totals(results))
}

// Totals is the one-line count of verdicts.
func Totals(results []Result) string {
	n := map[verdict.Verdict]int{}
	for _, r := range results {
		n[r.Verdict]++
	}
	t := fmt.Sprintf("%d passed, %d failed, %d accepted, %d errors", n[verdict.Pass], n[verdict.Fail], n[verdict.Accepted], n[verdict.Error])
	if n[verdict.Skipped] > 0 {
		t += fmt.Sprintf(", %d skipped", n[verdict.Skipped])
	}
	return t
}

func counts(r Result) (diffs, accepted int) {
	for _, d := range r.Diffs {
		if d.Accepted {
			accepted++
		} else {
			diffs++
		}
	}
	return diffs, accepted
}

// indent indents a target's logs, which may hold any bytes: invalid
// UTF-8 shows as U+FFFD.
func indent(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return "  " + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n  ")
}

// WriteMarkdown writes the summary for a CI job page.
func WriteMarkdown(w io.Writer, target string, results []Result) {
	fmt.Fprintf(w, "# mcpparity check: `%s`\n\n| scenario | verdict | differences | accepted | time |\n|---|---|---|---|---|\n", target)
	for _, r := range results {
		n, a := counts(r)
		fmt.Fprintf(w, "| %s | %s | %d | %d | %s |\n", r.Scenario, r.Verdict, n, a, r.Duration)
	}
	fmt.Fprintf(w, "\n**%s**\n", Totals(results))
	for _, r := range results {
		if len(r.Diffs) == 0 && r.Err == "" && r.Rerun == "" {
			continue
		}
		fmt.Fprintf(w, "\n## %s\n\n", r.Scenario)
		if r.Rerun != "" {
			fmt.Fprintf(w, "Ran twice: %s.\n\n", mdCode(r.Rerun))
		}
		if r.Err != "" {
			fmt.Fprintf(w, "Could not run: `%s`\n\n", r.Err)
		}
		for _, d := range r.Diffs {
			status := "**divergence**"
			if d.Accepted {
				status = "accepted: " + d.Reason
			}
			fmt.Fprintf(w, "- `%s` (%s)\n%s  - want: `%s`\n  - got: `%s`\n", mdCode(d.Named()), status, atLine(d, "  - at: %s\n"), mdCode(d.Want), mdCode(d.Got))
		}
	}
}

func mdCode(s string) string { return strings.ReplaceAll(s, "`", "'") }

// atLine is format filled with the location of the difference, or ""
// when the values are shown whole.
func atLine(d compare.Diff, format string) string {
	if d.At == "" {
		return ""
	}
	return fmt.Sprintf(format, d.At)
}

// oneLine is the diff's want and got for a one-line cell: the narrow
// windows of a located difference (its windows when read back from JSON),
// else clipped to n runes.
func oneLine(d compare.Diff, n int) (want, got string) {
	switch {
	case d.At == "":
		return compare.Clip(d.Want, n), compare.Clip(d.Got, n)
	case d.Narrow[0] != "":
		return d.Narrow[0], d.Narrow[1]
	}
	return d.Want, d.Got
}

type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Error     *junitMessage `xml:"error,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Body    string `xml:",chardata"`
}

// WriteJUnit writes the results as JUnit XML: one test case per scenario.
func WriteJUnit(w io.Writer, target string, results []Result) error {
	s := junitSuite{Name: "mcpparity " + target, Tests: len(results)}
	for _, r := range results {
		c := junitCase{Name: r.Scenario, Classname: "mcpparity", Time: fmt.Sprintf("%.3f", r.Duration.Seconds())}
		var b strings.Builder
		for _, d := range r.Diffs {
			tag := "divergence"
			if d.Accepted {
				tag = "accepted: " + d.Reason
			}
			fmt.Fprintf(&b, "%s (%s)\n%s  want: %s\n  got:  %s\n", d.Named(), tag, atLine(d, "  at:   %s\n"), d.Want, d.Got)
		}
		switch r.Verdict {
		case verdict.Fail:
			s.Failures++
			n, _ := counts(r)
			c.Failure = &junitMessage{Message: fmt.Sprintf("%d difference(s)", n), Body: b.String()}
			c.SystemOut = r.Logs
		case verdict.Error:
			s.Errors++
			c.Error = &junitMessage{Message: r.Err, Body: r.Logs}
		case verdict.Accepted:
			c.SystemOut = b.String()
		}
		if r.Rerun != "" {
			c.SystemOut = "ran twice: " + r.Rerun + "\n" + c.SystemOut
		}
		s.Cases = append(s.Cases, c)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(junitSuites{Suites: []junitSuite{s}}); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// WriteSideBySide prints differences with the two targets' values in two
// columns.
func WriteSideBySide(w io.Writer, a, b string, diffs []compare.Diff) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  PATH\t%s\t%s\n", a, b)
	for _, d := range diffs {
		want, got := oneLine(d, 60)
		fmt.Fprintf(tw, "  %s%s\t%s\t%s\n", d.Named(), atLine(d, " (at %s)"), want, got)
	}
	tw.Flush()
}

// Report is the machine-readable form of a check (check --json): what
// check writes and what reads a check run as a child (mutate).
type Report struct {
	Target string `json:"target"`
	// Era is the protocol era the target was run in (2025-11-25 or
	// 2026-07-28); absent in reports older than eras.
	Era     string   `json:"era,omitempty"`
	Results []Result `json:"results"`
}

// WriteJSON writes the results of a target run in an era as one JSON
// document.
func WriteJSON(w io.Writer, target, era string, results []Result) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(Report{Target: target, Era: era, Results: results})
}

// ReadJSON reads the report check --json wrote to the file name.
func ReadJSON(name string) (*Report, error) {
	var rep Report
	raw, err := os.ReadFile(name)
	if err == nil {
		err = json.Unmarshal(raw, &rep)
	}
	return &rep, err
}
