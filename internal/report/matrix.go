package report

import (
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/mcpparity/mcpparity/internal/compare"
	"github.com/mcpparity/mcpparity/internal/verdict"
)

// Column is one implementation's results in a matrix, in scenario order.
type Column struct {
	Name   string `json:"name"`
	Target string `json:"target"`
	// Era is the protocol era the implementation was run in.
	Era     string   `json:"era,omitempty"`
	Results []Result `json:"results,omitempty"`
	// Err is set when the implementation could not be run at all.
	Err string `json:"error,omitempty"`
}

// Matrix is the scenarios × implementations table of `mcpparity matrix`.
type Matrix struct {
	Scenarios []string `json:"scenarios"`
	Columns   []Column `json:"columns"`
}

// Cell is what one implementation did in one scenario.
type Cell struct {
	Verdict verdict.Verdict // "" not run
	// Short is one line: the first difference, the reasons of the accepted
	// ones, or the error.
	Short string
	// Details are every difference, for the page.
	Details []string
}

// Cell returns the cell of column c for scenario s.
func (m *Matrix) Cell(c Column, s string) Cell {
	if c.Err != "" {
		return Cell{Verdict: verdict.Error} // the column's error is said once
	}
	for _, r := range c.Results {
		if r.Scenario != s {
			continue
		}
		cell := Cell{Verdict: r.Verdict}
		var reasons []string
		for _, d := range r.Diffs {
			name := d.Named() + atLine(d, " (at %s)")
			line := fmt.Sprintf("%s: want %s, got %s", name, d.Want, d.Got)
			if d.Accepted {
				line = fmt.Sprintf("%s: accepted (%s): want %s, got %s", name, d.Reason, d.Want, d.Got)
				if !slices.Contains(reasons, d.Reason) {
					reasons = append(reasons, d.Reason)
				}
			} else if cell.Short == "" {
				cell.Short = compare.Clip(line, 160)
				if d.At != "" {
					// Narrow windows, bounded already: clipped, the line
					// would lose got.
					want, got := oneLine(d, 160)
					cell.Short = fmt.Sprintf("%s: want %s, got %s", name, want, got)
				}
			}
			cell.Details = append(cell.Details, line)
		}
		switch r.Verdict {
		case verdict.Accepted:
			cell.Short = strings.Join(reasons, "; ")
		case verdict.Error:
			cell.Short = compare.Clip(r.Err, 160)
			cell.Details = append(cell.Details, r.Err)
		}
		return cell
	}
	return Cell{}
}

// Counts returns, for column c, how many scenarios got each verdict.
func (m *Matrix) Counts(c Column) map[verdict.Verdict]int {
	n := map[verdict.Verdict]int{}
	for _, s := range m.Scenarios {
		n[m.Cell(c, s).Verdict]++
	}
	return n
}

// Failed reports whether any implementation diverged, and whether any
// could not run.
func (m *Matrix) Failed() (diverged, errored bool) {
	for _, c := range m.Columns {
		if c.Err != "" {
			errored = true
		}
		d, e := Failed(c.Results)
		diverged, errored = diverged || d, errored || e
	}
	return diverged, errored
}

// WriteMatrixText prints the table for a terminal, then each failure.
func WriteMatrixText(w io.Writer, m *Matrix) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "SCENARIO")
	for _, c := range m.Columns {
		fmt.Fprintf(tw, "\t%s", c.Name)
	}
	fmt.Fprintln(tw)
	for _, s := range m.Scenarios {
		fmt.Fprint(tw, s)
		for _, c := range m.Columns {
			v := m.Cell(c, s).Verdict
			if v == "" {
				v = "-"
			}
			fmt.Fprintf(tw, "\t%s", v)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	for _, c := range m.Columns {
		if c.Err != "" {
			fmt.Fprintf(w, "\n%s could not run: %s\n", c.Name, c.Err)
			continue
		}
		for _, s := range m.Scenarios {
			if cell := m.Cell(c, s); cell.Verdict == verdict.Fail || cell.Verdict == verdict.Error || cell.Verdict == verdict.Accepted {
				fmt.Fprintf(w, "\n%s, %s: %s: %s\n", c.Name, s, cell.Verdict, cell.Short)
			}
		}
	}
	for _, c := range m.Columns {
		if c.Err == "" {
			fmt.Fprintf(w, "\n%s (%s): %s", c.Name, c.Target, Totals(c.Results))
		}
	}
	fmt.Fprintln(w)
}

// WriteMatrixMarkdown writes the table as Markdown.
func WriteMatrixMarkdown(w io.Writer, m *Matrix) {
	fmt.Fprint(w, "# mcpparity matrix\n\n| scenario |")
	for _, c := range m.Columns {
		fmt.Fprintf(w, " %s |", c.Name)
	}
	fmt.Fprint(w, "\n|---|")
	for range m.Columns {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	mark := map[verdict.Verdict]string{verdict.Pass: "✅ pass", verdict.Accepted: "🟡 accepted", verdict.Fail: "❌ fail", verdict.Error: "⚠️ error", verdict.Skipped: "⏭ skipped", "": "—"}
	for _, s := range m.Scenarios {
		fmt.Fprintf(w, "| `%s` |", s)
		for _, c := range m.Columns {
			cell := m.Cell(c, s)
			text := mark[cell.Verdict]
			if cell.Short != "" {
				text += ": " + mdCell(cell.Short)
			}
			fmt.Fprintf(w, " %s |", text)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w)
	for _, c := range m.Columns {
		if c.Err != "" {
			fmt.Fprintf(w, "- **%s** (`%s`): could not run: %s\n", c.Name, mdCell(c.Target), mdCell(c.Err))
			continue
		}
		fmt.Fprintf(w, "- **%s** (`%s`): %s\n", c.Name, mdCell(c.Target), Totals(c.Results))
	}
}

func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "`", "'").Replace(s)
}

// WriteMatrixHTML writes the table as one self-contained HTML page.
func WriteMatrixHTML(w io.Writer, m *Matrix) error {
	type cellView struct {
		Cell
		Class string
		Label string
	}
	type rowView struct {
		Scenario string
		Cells    []cellView
	}
	type colView struct {
		Column
		Counts map[string]int // by verdict, for the page's template
	}
	label := map[verdict.Verdict]string{verdict.Pass: "✓", verdict.Accepted: "≈", verdict.Fail: "✗", verdict.Error: "!", verdict.Skipped: "–", "": "–"}
	var rows []rowView
	for _, s := range m.Scenarios {
		row := rowView{Scenario: s}
		for _, c := range m.Columns {
			cell := m.Cell(c, s)
			class := string(cell.Verdict)
			if class == "" {
				class = "none"
			}
			row.Cells = append(row.Cells, cellView{Cell: cell, Class: class, Label: label[cell.Verdict]})
		}
		rows = append(rows, row)
	}
	var cols []colView
	for _, c := range m.Columns {
		counts := map[string]int{}
		for v, n := range m.Counts(c) {
			counts[string(v)] = n
		}
		cols = append(cols, colView{Column: c, Counts: counts})
	}
	return matrixPage().Execute(w, map[string]any{"Rows": rows, "Columns": cols, "Scenarios": len(m.Scenarios), "Located": located(m)})
}

// located reports whether a difference of the matrix is a long value shown
// around its first difference.
func located(m *Matrix) bool {
	for _, c := range m.Columns {
		for _, r := range c.Results {
			for _, d := range r.Diffs {
				if d.At != "" {
					return true
				}
			}
		}
	}
	return false
}

var matrixPage = sync.OnceValue(func() *template.Template { return template.Must(template.New("matrix").Parse(matrixHTML)) })

const matrixHTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>mcpparity matrix</title>
<style>
:root { --pass:#1a7f37; --accepted:#9a6700; --fail:#cf222e; --error:#6e7781; --bg:#f6f8fa; --line:#d0d7de; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1f2328; background: #fff; }
header { padding: 20px 28px 12px; border-bottom: 1px solid var(--line); background: var(--bg); }
h1 { font-size: 20px; margin: 0 0 4px; }
header p { margin: 0; color: #59636e; }
main { padding: 20px 28px 40px; }
.summary { display: flex; gap: 14px; flex-wrap: wrap; margin-bottom: 20px; }
.impl { border: 1px solid var(--line); border-radius: 8px; padding: 10px 14px; min-width: 220px; }
.impl h2 { font-size: 15px; margin: 0 0 2px; }
.impl code { font-size: 12px; color: #59636e; word-break: break-all; }
.impl .counts { margin-top: 6px; display: flex; gap: 10px; font-variant-numeric: tabular-nums; }
.count.pass { color: var(--pass); } .count.accepted { color: var(--accepted); }
.count.fail { color: var(--fail); } .count.error { color: var(--error); }
table { border-collapse: collapse; width: 100%; }
th, td { border: 1px solid var(--line); padding: 6px 10px; vertical-align: top; }
thead th { background: var(--bg); position: sticky; top: 0; text-align: left; }
td.scenario { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; white-space: nowrap; }
td.verdict { min-width: 200px; }
.badge { display: inline-block; min-width: 22px; padding: 0 6px; border-radius: 11px; color: #fff; text-align: center; font-weight: 600; margin-right: 6px; }
.pass .badge { background: var(--pass); } .accepted .badge { background: var(--accepted); }
.fail .badge { background: var(--fail); } .error .badge, .skipped .badge, .none .badge { background: var(--error); }
td.fail { background: #ffebe9; } td.accepted { background: #fff8c5; } td.error { background: #eaeef2; }
.short { font-size: 12px; color: #424a53; word-break: break-word; }
details { margin-top: 4px; font-size: 12px; }
details pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0 0; font-size: 11px; background: #fff; border: 1px solid var(--line); border-radius: 4px; padding: 6px; max-height: 260px; overflow: auto; }
</style>
</head>
<body>
<header>
<h1>mcpparity matrix</h1>
<p>{{.Scenarios}} scenarios against {{len .Columns}} implementations: each cell is the verdict of <code>mcpparity check</code> for that scenario.
✓ same observations as the reference · ≈ differs only where the implementation declared an accepted deviation · ✗ diverges.</p>
{{if .Located}}<p>A long value is shown around its first difference, and “at” says where: in text, the number of runes before it, then its line and column (from 1, the column in runes); in other values, the number of runes before it in their JSON.</p>
{{end}}</header>
<main>
<section class="summary">
{{range .Columns}}<div class="impl"><h2>{{.Name}}</h2><code>{{.Target}}</code>
{{if .Err}}<div class="counts"><span class="count error">could not run: {{.Err}}</span></div>{{else}}
<div class="counts"><span class="count pass">✓ {{index .Counts "pass"}} pass</span><span class="count accepted">≈ {{index .Counts "accepted"}} accepted</span><span class="count fail">✗ {{index .Counts "fail"}} fail</span><span class="count error">! {{index .Counts "error"}} error</span></div>{{end}}
</div>
{{end}}</section>
<table>
<thead><tr><th>scenario</th>{{range .Columns}}<th>{{.Name}}</th>{{end}}</tr></thead>
<tbody>
{{range .Rows}}<tr><td class="scenario">{{.Scenario}}</td>{{range .Cells}}<td class="verdict {{.Class}}"><span class="badge">{{.Label}}</span>{{if .Verdict}}{{.Verdict}}{{else}}not run{{end}}{{if .Short}}<div class="short">{{.Short}}</div>{{end}}{{if .Details}}<details><summary>{{len .Details}} difference(s)</summary><pre>{{range .Details}}{{.}}
{{end}}</pre></details>{{end}}</td>{{end}}</tr>
{{end}}</tbody>
</table>
</main>
</body>
</html>
`
