// Package catalogue is what a mutation run applies: rule mutants read
// from rules/*.json and batches, a target's own catalogue and its switch
// catalogue, operator mutants generated from Go syntax, the selection of
// mutants by rule, id or changed files, and shards.
package catalogue

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/mcpparity/mcpparity/docs"
	"github.com/mcpparity/mcpparity/internal/scenario"
)

// Mutant is one change of one file. Rule mutants come from the catalogue
// (Original must occur exactly once in File); operator mutants are generated
// with their position already known.
type Mutant struct {
	// ID is unique within a run, e.g. "C1-default-false".
	ID string `json:"id"`
	// Rule is the rule id (C1…C8, P1…P17) for rule mutants; for operator
	// mutants, the enclosing function.
	Rule string `json:"rule"`
	// File is relative to the module root, slash-separated.
	File        string `json:"file"`
	Original    string `json:"original"`
	Replacement string `json:"replacement"`
	Why         string `json:"why"`
	// Run, if set, is the -run filter to try first (instead of the tests
	// found naming the rule).
	Run string `json:"run,omitempty"`

	// Offset is the byte offset of Original in File, set by Resolve (or by
	// the operator generator); Line is its 1-based line.
	Offset int `json:"-"`
	Line   int `json:"-"`
	// Operator is the kind of an operator mutant ("" for rule mutants).
	Operator string `json:"-"`
	// Index is the mutant's place in the whole selection (before sharding),
	// so that shard reports merge back in order.
	Index int `json:"-"`
}

// ruleFile is the on-disk form of one catalogue file.
type ruleFile struct {
	Rule    string   `json:"rule"`
	Summary string   `json:"summary"`
	Mutants []Mutant `json:"mutants"`
}

// Rules lists the rules of the configuration (C) and of the pool (P), in
// the order docs/rules.md defines them: the rules the catalogue's mutants
// cover. A rule added there with its clauses is one of them.
func Rules() []string {
	var out []string
	for _, r := range docs.Rules() {
		if r[0] == 'C' || r[0] == 'P' {
			out = append(out, r)
		}
	}
	return out
}

// ValidRule reports whether id is a rule of the specification: one of
// Rules, or a rule of the JSON forms, time, shutdown or the contract (J1,
// T1, S1, H1…H4), which a catalogue may also break.
func ValidRule(id string) bool { return scenario.IsSpecRule(id) }

// RuleRank orders rule ids as the specification defines them (C1…C8,
// P1…P17, …); unknown ids go last, by name.
func RuleRank(id string) int {
	if i := slices.Index(docs.Rules(), id); i >= 0 {
		return i
	}
	return 1000
}

// LoadCatalogue reads every *.json file of dir (in fsys) and returns the
// mutants ordered by rule (C1…C8, P1…P17), then as listed. It checks the
// data itself (ids, rules, fields); Resolve checks it against the sources.
func LoadCatalogue(fsys fs.FS, dir string) ([]Mutant, error) { return loadCatalogue(fsys, dir, true) }

// LoadTargetCatalogue reads the catalogue of a target of its own (a port
// in another language): files of any kind, relative to the target file's
// folder.
func LoadTargetCatalogue(fsys fs.FS, dir string) ([]Mutant, error) {
	return loadCatalogue(fsys, dir, false)
}

func loadCatalogue(fsys fs.FS, dir string, goFiles bool) ([]Mutant, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("catalogue %s: no *.json file", dir)
	}
	sort.Strings(names)
	var all []Mutant
	var errs []error
	seen := map[string]string{}
	for _, name := range names {
		raw, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		var rf ruleFile
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&rf); err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if !ValidRule(rf.Rule) {
			errs = append(errs, fmt.Errorf("%s: unknown rule %q", name, rf.Rule))
			continue
		}
		for i, m := range rf.Mutants {
			where := fmt.Sprintf("%s: mutant #%d (%s)", name, i+1, m.ID)
			if m.Rule == "" {
				m.Rule = rf.Rule
			}
			switch {
			case m.ID == "":
				errs = append(errs, fmt.Errorf("%s: no id", where))
			case seen[m.ID] != "":
				errs = append(errs, fmt.Errorf("%s: id already used in %s", where, seen[m.ID]))
			case m.Rule != rf.Rule:
				errs = append(errs, fmt.Errorf("%s: rule %s in the file of %s", where, m.Rule, rf.Rule))
			case m.File == "" || path.IsAbs(m.File) || strings.Contains(m.File, "..") || strings.Contains(m.File, `\`):
				errs = append(errs, fmt.Errorf("%s: file %q must be relative to the module root, slash-separated", where, m.File))
			case goFiles && (!strings.HasSuffix(m.File, ".go") || strings.HasSuffix(m.File, "_test.go")):
				errs = append(errs, fmt.Errorf("%s: file %q is not a non-test Go file", where, m.File))
			case m.Original == "":
				errs = append(errs, fmt.Errorf("%s: empty original", where))
			case m.Original == m.Replacement:
				errs = append(errs, fmt.Errorf("%s: replacement equals the original", where))
			case strings.TrimSpace(m.Why) == "":
				errs = append(errs, fmt.Errorf("%s: no why", where))
			}
			if m.Run != "" {
				if _, err := regexp.Compile(m.Run); err != nil {
					errs = append(errs, fmt.Errorf("%s: run: %w", where, err))
				}
			}
			seen[m.ID] = name
			m.Offset = -1
			all = append(all, m)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	sort.SliceStable(all, func(i, j int) bool { return RuleRank(all[i].Rule) < RuleRank(all[j].Rule) })
	return all, nil
}

// StaleError lists the mutants whose original snippet is not found exactly
// once in their file.
type StaleError struct {
	Stale []StaleMutant
}

// StaleMutant is one stale mutant: Count is how many times its snippet was
// found (0 or more than 1), or -1 when the file cannot be read.
type StaleMutant struct {
	ID, File string
	Count    int
	Err      error
}

func (e *StaleError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d stale mutant(s):", len(e.Stale))
	for _, s := range e.Stale {
		switch {
		case s.Err != nil:
			fmt.Fprintf(&b, "\n  %s: %s: %v", s.ID, s.File, s.Err)
		case s.Count == 0:
			fmt.Fprintf(&b, "\n  %s: %s: original snippet not found", s.ID, s.File)
		default:
			fmt.Fprintf(&b, "\n  %s: %s: original snippet found %d times (must be exactly once)", s.ID, s.File, s.Count)
		}
	}
	return b.String()
}

// Resolve finds each mutant's snippet in its file under root and sets its
// Offset and Line. Every mutant is checked; the stale ones are returned
// together as a *StaleError. Mutants that already have an offset (operator
// mutants) are checked to still match.
func Resolve(root string, ms []Mutant) error {
	cache := map[string][]byte{}
	var stale []StaleMutant
	for i := range ms {
		m := &ms[i]
		src, ok := cache[m.File]
		if !ok {
			b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(m.File)))
			if err != nil {
				stale = append(stale, StaleMutant{ID: m.ID, File: m.File, Count: -1, Err: err})
				continue
			}
			src, cache[m.File] = b, b
		}
		if m.Offset >= 0 && m.Operator != "" {
			if m.Offset+len(m.Original) > len(src) || string(src[m.Offset:m.Offset+len(m.Original)]) != m.Original {
				stale = append(stale, StaleMutant{ID: m.ID, File: m.File, Count: 0})
			}
			continue
		}
		n, at := countOccurrences(src, []byte(m.Original))
		if n != 1 {
			stale = append(stale, StaleMutant{ID: m.ID, File: m.File, Count: n})
			continue
		}
		m.Offset = at
		m.Line = 1 + bytes.Count(src[:at], []byte("\n"))
	}
	if len(stale) > 0 {
		return &StaleError{Stale: stale}
	}
	return nil
}

// countOccurrences counts occurrences of sub in s, overlapping ones
// included, and returns the offset of the first.
func countOccurrences(s, sub []byte) (n, first int) {
	first = -1
	for from := 0; ; {
		i := bytes.Index(s[from:], sub)
		if i < 0 {
			return n, first
		}
		if n == 0 {
			first = from + i
		}
		n++
		from += i + 1
	}
}

// Apply returns src with the mutant applied (m must be resolved).
func (m Mutant) Apply(src []byte) ([]byte, error) {
	end := m.Offset + len(m.Original)
	if m.Offset < 0 || end > len(src) || string(src[m.Offset:end]) != m.Original {
		return nil, fmt.Errorf("mutant %s: original snippet not at offset %d of %s", m.ID, m.Offset, m.File)
	}
	out := make([]byte, 0, len(src)-len(m.Original)+len(m.Replacement))
	out = append(out, src[:m.Offset]...)
	out = append(out, m.Replacement...)
	out = append(out, src[end:]...)
	return out, nil
}

// Select keeps the mutants whose rule or id is in ids (all when ids is
// empty). An id that matches nothing is an error.
func Select(ms []Mutant, ids []string) ([]Mutant, error) {
	if len(ids) == 0 {
		return ms, nil
	}
	want := map[string]bool{}
	for _, id := range ids {
		want[id] = true
	}
	used := map[string]bool{}
	var out []Mutant
	for _, m := range ms {
		if want[m.Rule] || want[m.ID] {
			used[m.Rule], used[m.ID] = true, true
			out = append(out, m)
		}
	}
	var missing []string
	for _, id := range ids {
		if !used[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("no mutant for %s", strings.Join(missing, ", "))
	}
	return out, nil
}

// Shard is the K-th (1-based) of N deterministic slices of a selection.
type Shard struct {
	K int `json:"k"`
	N int `json:"n"`
}

// ParseShard parses "K/N" with 1 ≤ K ≤ N.
func ParseShard(s string) (Shard, error) {
	k, n, ok := strings.Cut(s, "/")
	if ok {
		ki, err1 := strconv.Atoi(strings.TrimSpace(k))
		ni, err2 := strconv.Atoi(strings.TrimSpace(n))
		if err1 == nil && err2 == nil && ni >= 1 && ki >= 1 && ki <= ni {
			return Shard{K: ki, N: ni}, nil
		}
	}
	return Shard{}, fmt.Errorf("shard %q: want K/N with 1 <= K <= N", s)
}

func (s Shard) String() string { return fmt.Sprintf("%d/%d", s.K, s.N) }

// Split returns the mutants of shard s: the i-th mutant (0-based, in the
// order given) belongs to shard i mod N + 1, so shards are disjoint, their
// union is the whole, and each rule spreads over the shards.
func (s Shard) Split(ms []Mutant) []Mutant {
	if s.N <= 1 {
		return ms
	}
	var out []Mutant
	for i, m := range ms {
		if i%s.N == s.K-1 {
			out = append(out, m)
		}
	}
	return out
}
