package compare

import (
	"fmt"
	"strings"
)

// diffContext is the number of unchanged lines shown around a change.
const diffContext = 3

// maxDiffCells bounds the table of the longest common subsequence; a
// larger change is shown as its old lines removed, then its new lines.
const maxDiffCells = 4 << 20

// LineDiff is a unified diff of old and new ("" when they are equal),
// with the headers "--- oldName" and "+++ newName".
func LineDiff(oldName, newName string, old, new []byte) string {
	if string(old) == string(new) {
		return ""
	}
	a, b := splitLines(old), splitLines(new)
	ops := lineOps(a, b)
	var out strings.Builder
	fmt.Fprintf(&out, "--- %s\n+++ %s\n", oldName, newName)
	for start := 0; start < len(ops); {
		if ops[start].kind == ' ' {
			start++
			continue
		}
		// A hunk: from diffContext lines before this change to
		// diffContext lines after the last change closer than 2×diffContext.
		end := start
		for i := start; i < len(ops); i++ {
			if ops[i].kind != ' ' {
				end = i
			} else if i-end > 2*diffContext {
				break
			}
		}
		lo, hi := max(0, start-diffContext), min(len(ops), end+diffContext+1)
		writeHunk(&out, ops[lo:hi])
		start = hi
	}
	return out.String()
}

type lineOp struct {
	kind         byte // ' ', '-', '+'
	text         string
	aLine, bLine int // 1-based line numbers in a and b (of the next line for an absent side)
}

func writeHunk(out *strings.Builder, ops []lineOp) {
	var na, nb int
	for _, op := range ops {
		if op.kind != '+' {
			na++
		}
		if op.kind != '-' {
			nb++
		}
	}
	a, b := ops[0].aLine, ops[0].bLine
	if na == 0 {
		a-- // an empty range starts at the line before it
	}
	if nb == 0 {
		b--
	}
	fmt.Fprintf(out, "@@ -%d,%d +%d,%d @@\n", a, na, b, nb)
	for _, op := range ops {
		fmt.Fprintf(out, "%c%s\n", op.kind, op.text)
	}
}

func splitLines(data []byte) []string {
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// lineOps is the edit script from a to b: a common prefix and suffix, and
// between them the longest common subsequence (or, when too large, every
// old line removed and every new line added).
func lineOps(a, b []string) []lineOp {
	p := 0
	for p < len(a) && p < len(b) && a[p] == b[p] {
		p++
	}
	s := 0
	for s < len(a)-p && s < len(b)-p && a[len(a)-1-s] == b[len(b)-1-s] {
		s++
	}
	var ops []lineOp
	for i := 0; i < p; i++ {
		ops = append(ops, lineOp{' ', a[i], i + 1, i + 1})
	}
	ops = append(ops, middleOps(a[p:len(a)-s], b[p:len(b)-s], p)...)
	for k := s; k > 0; k-- {
		i, j := len(a)-k, len(b)-k
		ops = append(ops, lineOp{' ', a[i], i + 1, j + 1})
	}
	return ops
}

// middleOps diffs the changed middle of two files, whose first lines are
// line off+1 of each.
func middleOps(a, b []string, off int) []lineOp {
	n, m := len(a), len(b)
	var ops []lineOp
	if n*m > maxDiffCells {
		for i := range a {
			ops = append(ops, lineOp{'-', a[i], off + i + 1, off + 1})
		}
		for j := range b {
			ops = append(ops, lineOp{'+', b[j], off + n + 1, off + j + 1})
		}
		return ops
	}
	// lcs[i][j]: the longest common subsequence of a[i:] and b[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, lineOp{' ', a[i], off + i + 1, off + j + 1})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			ops = append(ops, lineOp{'-', a[i], off + i + 1, off + j + 1})
			i++
		default:
			ops = append(ops, lineOp{'+', b[j], off + i + 1, off + j + 1})
			j++
		}
	}
	return ops
}
