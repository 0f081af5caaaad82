package fuzz

import "math/rand/v2"

// Choices are the decisions a sequence is generated from: those of its
// header (servers, store, time scale) and those of each unit of steps. The
// generator reads them through a stream; generating from the same choices
// gives the same sequence, and the shrinker simplifies a sequence by
// removing units and lowering values (0 is always the simplest option).
type Choices struct {
	Header []uint64
	Units  [][]uint64
}

// clone copies c deeply.
func (c Choices) clone() Choices {
	out := Choices{Header: append([]uint64(nil), c.Header...)}
	for _, u := range c.Units {
		out.Units = append(out.Units, append([]uint64(nil), u...))
	}
	return out
}

// size is the number of values of c.
func (c Choices) size() int {
	n := len(c.Header)
	for _, u := range c.Units {
		n += len(u)
	}
	return n
}

// stream hands out the values of one part of the choices: recorded ones
// first, then fresh ones from rng (recorded as they are drawn), or 0 when
// there is no rng (a part shortened by the shrinker).
type stream struct {
	vals []uint64
	pos  int
	rng  *rand.Rand
	// bytes, when set, is where values come from instead (a go test
	// -fuzz input shared by every part).
	bytes *byteSource
}

// intn returns a value in [0, n). A choice without alternatives (n <= 1)
// still takes its value, so that a list that shrank to one element does
// not shift the choices after it.
func (s *stream) intn(n int) int {
	n = max(n, 1)
	var v uint64
	switch {
	case s.bytes != nil:
		v = s.bytes.next(uint64(n))
	case s.pos < len(s.vals):
		v = s.vals[s.pos] % uint64(n)
		s.vals[s.pos] = v
	case s.rng != nil:
		v = s.rng.Uint64N(uint64(n))
		s.vals = append(s.vals, v)
	}
	s.pos++
	return int(v)
}

// pick returns an index of weights, drawn in proportion to them; index 0
// is the simplest option.
func (s *stream) pick(weights ...int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	x := s.intn(total)
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	return len(weights) - 1
}

// chance is true with percent probability (false is the simplest).
func (s *stream) chance(percent int) bool { return s.intn(100) >= 100-percent }

// oneOf returns an element of list (the first is the simplest).
func oneOf[T any](s *stream, list []T) T { return list[s.intn(len(list))] }

// fresh1 is a choice between 0 and 1 that a fresh stream makes 1: an
// option generation always takes and shrinking may drop.
func (s *stream) fresh1() int {
	if s.bytes == nil && s.rng != nil && s.pos >= len(s.vals) {
		s.vals = append(s.vals, 1)
		s.pos++
		return 1
	}
	return s.intn(2)
}

// used is the part's values as read (what the shrinker keeps).
func (s *stream) used() []uint64 {
	if s.pos < len(s.vals) {
		return s.vals[:s.pos]
	}
	return s.vals
}

// byteSource reads values from a go test -fuzz input: one byte for a
// choice among at most 256, two otherwise; 0 once the input ends.
type byteSource struct {
	data []byte
	pos  int
}

func (b *byteSource) next(n uint64) uint64 {
	var v uint64
	width := 1
	if n > 256 {
		width = 2
	}
	for i := 0; i < width; i++ {
		v <<= 8
		if b.pos < len(b.data) {
			v |= uint64(b.data[b.pos])
			b.pos++
		}
	}
	return v % n
}

func (b *byteSource) done() bool { return b.pos >= len(b.data) }
