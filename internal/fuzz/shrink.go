package fuzz

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// shrinker reduces a program that diverges to a smaller one that still
// does: fewer units, then simpler values (each lowered to 0, then
// halved), as long as its budget of runs lasts. It runs candidates one at
// a time, in a fixed order, so that the same divergence shrinks the same
// way.
type shrinker struct {
	ctx    context.Context
	judge  Judge
	name   string
	budget int
	runs   int
	best   *Program
	out    Outcome
	seen   map[string]bool
}

// shrink returns the smallest program found that still diverges, its
// outcome and the number of runs it took.
func shrink(ctx context.Context, j Judge, p *Program, out Outcome, budget int) (*Program, Outcome, int, error) {
	s := &shrinker{ctx: ctx, judge: j, name: p.Scenario.Name, budget: budget, best: p, out: out, seen: map[string]bool{}}
	s.seen[key(p)] = true
	if err := s.truncate(); err != nil {
		return nil, Outcome{}, s.runs, err
	}
	for improved := true; improved && s.runs < s.budget; {
		improved = false
		for _, pass := range []func() (bool, error){s.dropUnits, s.lowerValues} {
			ok, err := pass()
			if err != nil {
				return nil, Outcome{}, s.runs, err
			}
			improved = improved || ok
		}
	}
	return s.best, s.out, s.runs, nil
}

// try generates c and keeps it when it still diverges.
func (s *shrinker) try(c Choices) (bool, error) {
	if s.runs >= s.budget {
		return false, nil
	}
	p, err := fromChoices(c, s.name)
	if err != nil {
		return false, err
	}
	p.Era = s.best.Era
	k := key(p)
	if s.seen[k] {
		return false, nil
	}
	s.seen[k] = true
	s.runs++
	out, err := s.judge.Run(s.ctx, p.Scenario, p.Era)
	if err != nil {
		return false, err
	}
	if !out.Diverged() {
		return false, nil
	}
	s.best, s.out = p, out
	return true, nil
}

// truncate drops the units after the one whose step differs first (the
// final replays observation stays, as the header says).
func (s *shrinker) truncate() error {
	first := firstStep(s.out)
	if first < 0 {
		return nil
	}
	n, steps := 0, s.best.prelude
	for n < len(s.best.unitSteps) && steps <= first {
		steps += s.best.unitSteps[n]
		n++
	}
	if n >= len(s.best.Choices.Units) {
		return nil
	}
	c := s.best.Choices.clone()
	c.Units = c.Units[:n]
	_, err := s.try(c)
	return err
}

// firstStep is the index of the first step a difference names, -1 if none.
func firstStep(out Outcome) int {
	first := -1
	for _, d := range out.Differences() {
		rest, ok := strings.CutPrefix(d.Path, "[")
		if !ok {
			continue
		}
		i, err := strconv.Atoi(rest[:strings.IndexByte(rest, ']')])
		if err == nil && (first < 0 || i < first) {
			first = i
		}
	}
	return first
}

// dropUnits removes runs of units, halving their length down to one.
func (s *shrinker) dropUnits() (bool, error) {
	improved := false
	for size := len(s.best.Choices.Units) / 2; size >= 1; size /= 2 {
		for start := len(s.best.Choices.Units) - size; start >= 0; start -= size {
			c := s.best.Choices.clone()
			if start+size > len(c.Units) {
				continue
			}
			c.Units = append(c.Units[:start], c.Units[start+size:]...)
			ok, err := s.try(c)
			if err != nil {
				return improved, err
			}
			improved = improved || ok
		}
	}
	return improved, nil
}

// lowerValues tries each value at 0, then at half, header first.
func (s *shrinker) lowerValues() (bool, error) {
	improved := false
	parts := func() int { return len(s.best.Choices.Units) + 1 }
	for part := 0; part < parts(); part++ {
		for i := 0; i < len(s.values(part)); i++ {
			for _, lower := range []func(uint64) uint64{func(uint64) uint64 { return 0 }, func(v uint64) uint64 { return v / 2 }} {
				vals := s.values(part)
				if i >= len(vals) || vals[i] == 0 || lower(vals[i]) == vals[i] {
					break
				}
				c := s.best.Choices.clone()
				c.part(part)[i] = lower(vals[i])
				ok, err := s.try(c)
				if err != nil {
					return improved, err
				}
				if ok {
					improved = true
					break
				}
			}
		}
	}
	return improved, nil
}

// values are the best program's values of a part (0 the header, i+1
// unit i).
func (s *shrinker) values(part int) []uint64 {
	if part >= len(s.best.Choices.Units)+1 {
		return nil
	}
	return s.best.Choices.part(part)
}

func (c Choices) part(i int) []uint64 {
	if i == 0 {
		return c.Header
	}
	return c.Units[i-1]
}

// key identifies what a program runs: its scenario's servers, store,
// environment and steps.
func key(p *Program) string {
	sc := *p.Scenario
	sc.Description = ""
	raw, err := json.Marshal(sc)
	if err != nil {
		return fmt.Sprint(p.Choices)
	}
	return string(raw)
}
