// Package compare finds where two observations differ: paths, compare
// modes, located windows of long values, line diffs, and the deviations a
// target declares.
package compare

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/google/go-cmp/cmp"
)

// Diff is one difference between the expected and the observed, named by
// its path in the observations, e.g. `[2].body.servers[0].error`.
type Diff struct {
	Path string `json:"path"`
	// Step is the name of the step the path starts in.
	Step string `json:"step,omitempty"`
	// At locates the first difference of two long values, when Want and Got
	// are windows around it (see locate): "rune N, line L, column C" for two
	// strings, counted in the decoded strings; "rune N of the JSON text"
	// otherwise.
	At       string `json:"at,omitempty"`
	Want     string `json:"want"`
	Got      string `json:"got"`
	Accepted bool   `json:"accepted,omitempty"`
	Reason   string `json:"reason,omitempty"`
	// got is the observed value itself (Got is its shortened JSON).
	got any
	// Narrow are narrower windows of want and got, for one-line cells
	// (set with At; not in the JSON report).
	Narrow [2]string `json:"-"`
}

// Deviation is an accepted difference declared by a target: the scenario
// and the path (globs where * matches anything) where it may differ, and,
// when Got is set, a regular expression the observed value must match (a
// string as is, anything else as JSON), so that the deviation accepts a
// text of the target's stack and nothing else.
type Deviation struct {
	Scenario string `json:"scenario" yaml:"scenario"`
	Path     string `json:"path" yaml:"path"`
	Reason   string `json:"reason" yaml:"reason"`
	Got      string `json:"got,omitempty" yaml:"got,omitempty"`
	// Era, when set, is the only era whose runs the deviation accepts
	// in (2025-11-25 or 2026-07-28).
	Era string `json:"era,omitempty" yaml:"era,omitempty"`

	got *regexp.Regexp
}

// DeviationsIn are those of ds that accept in era: of no era, or of
// that era.
func DeviationsIn(ds []Deviation, era string) []Deviation {
	var out []Deviation
	for _, d := range ds {
		if d.Era == "" || d.Era == era {
			out = append(out, d)
		}
	}
	return out
}

// Compile checks the deviation's Got expression.
func (d *Deviation) Compile() error {
	if d.Got == "" {
		return nil
	}
	re, err := regexp.Compile(d.Got)
	if err != nil {
		return fmt.Errorf("got %q: %w", d.Got, err)
	}
	d.got = re
	return nil
}

// Named is the diff's path with the step named: `[3 call cut twice].body`.
func (d Diff) Named() string {
	if d.Step == "" || !strings.HasPrefix(d.Path, "[") {
		return d.Path
	}
	i := strings.Index(d.Path, "]")
	return d.Path[:i] + " " + d.Step + d.Path[i:]
}

// byName is the diff's path with the step's name instead of its index:
// `[call cut twice].body`.
func (d Diff) byName() string {
	if d.Step == "" || !strings.HasPrefix(d.Path, "[") {
		return d.Path
	}
	return "[" + d.Step + d.Path[strings.Index(d.Path, "]"):]
}

// Matches reports whether the deviation accepts diff: its path given with
// the step's index or with its name.
func (d Deviation) Matches(scenario string, diff Diff) bool {
	if !GlobMatch(d.Scenario, scenario) || !GlobMatch(d.Path, diff.Path) && !GlobMatch(d.Path, diff.byName()) {
		return false
	}
	if d.Got == "" {
		return true
	}
	re := d.got
	if re == nil {
		var err error
		if re, err = regexp.Compile(d.Got); err != nil {
			return false
		}
	}
	s, ok := diff.got.(string)
	if !ok {
		raw, err := json.Marshal(diff.got)
		if err != nil {
			return false
		}
		s = string(raw)
	}
	return re.MatchString(s)
}

// Compare returns the differences between want and got (any JSON-shaped
// values), found by go-cmp and named by path.
func Compare(want, got any) []Diff {
	w, g := Generic(want), Generic(got)
	var r diffReporter
	cmp.Equal(w, g, byIndex, cmp.Reporter(&r))
	return r.diffs
}

// byIndex makes go-cmp compare arrays element by element (an element that
// changed is named by its index, not reported as removed and inserted).
var byIndex = cmp.Transformer("byIndex", func(s []any) map[int]any {
	m := make(map[int]any, len(s))
	for i, v := range s {
		m[i] = v
	}
	return m
})

var identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Generic turns a value into plain JSON types (map[string]any, []any, …).
func Generic(v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("unencodable: %v", err)
	}
	var out any
	_ = json.Unmarshal(raw, &out)
	return out
}

type diffReporter struct {
	path  cmp.Path
	diffs []Diff
}

func (r *diffReporter) PushStep(ps cmp.PathStep) { r.path = append(r.path, ps) }
func (r *diffReporter) PopStep()                 { r.path = r.path[:len(r.path)-1] }

func (r *diffReporter) Report(rs cmp.Result) {
	if rs.Equal() {
		return
	}
	vx, vy := r.path.Last().Values()
	var got any
	if vy.IsValid() {
		got = vy.Interface()
	}
	d := Diff{Path: pathString(r.path), Want: show(vx), Got: show(vy), got: got}
	if vx.IsValid() && vy.IsValid() {
		locate(&d, vx.Interface(), vy.Interface())
	}
	r.diffs = append(r.diffs, d)
}

func pathString(p cmp.Path) string {
	var b strings.Builder
	for _, s := range p {
		switch s := s.(type) {
		case cmp.MapIndex:
			if i, ok := s.Key().Interface().(int); ok {
				fmt.Fprintf(&b, "[%d]", i)
				continue
			}
			k := fmt.Sprint(s.Key().Interface())
			if identifier.MatchString(k) {
				b.WriteString("." + k)
			} else {
				b.WriteString("[" + strconv.Quote(k) + "]")
			}
		case cmp.SliceIndex:
			if k := s.Key(); k >= 0 {
				fmt.Fprintf(&b, "[%d]", k)
			} else {
				x, y := s.SplitKeys()
				fmt.Fprintf(&b, "[%d→%d]", x, y)
			}
		}
	}
	return strings.TrimPrefix(b.String(), ".")
}

func show(v reflect.Value) string {
	if !v.IsValid() {
		return "(absent)"
	}
	raw, err := json.Marshal(v.Interface())
	if err != nil {
		return fmt.Sprint(v.Interface())
	}
	return Clip(string(raw), clipRunes)
}

// Clip cuts s after n runes, followed by "…", never inside a character.
func Clip(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}
