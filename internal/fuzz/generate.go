package fuzz

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/mcpparity/mcpparity/internal/scenario"
)

// Program is a generated sequence: the scenario it makes and the choices
// it was made from, with the number of steps each unit made (the header's
// prelude first).
type Program struct {
	Scenario *scenario.Scenario
	Choices  Choices
	// Era is the era both sides run it in.
	Era string
	// Seed is the seed the choices were drawn from (0 when they were
	// given: a shrunk program).
	Seed      uint64
	unitSteps []int
	prelude   int
}

// generator builds one scenario from its choices.
type generator struct {
	sc   *scenario.Scenario
	m    *model
	mode int
	// faulty are the scenario servers with faults on their calls.
	faulty map[string]bool
}

// fromSeed generates a sequence of units (groups of steps) from seed.
func fromSeed(seed uint64, units int, name string) (*Program, error) {
	rng := rand.New(rand.NewPCG(seed, 0x6d637070617269)) // "mcppari"
	fresh := func(int) *stream { return &stream{rng: rng} }
	p, err := generate(fresh, units, name)
	if p != nil {
		p.Seed = seed
	}
	return p, err
}

// fromChoices generates the sequence that choices describe.
func fromChoices(c Choices, name string) (*Program, error) {
	c = c.clone()
	parts := func(i int) *stream {
		if i < 0 {
			return &stream{vals: c.Header}
		}
		return &stream{vals: c.Units[i]}
	}
	return generate(parts, len(c.Units), name)
}

// FromBytes generates a sequence of at most units units from a go test
// -fuzz input: its first 8 bytes seed the header (servers, store), the
// rest drives the units, so that a mutation of the input changes steps
// more often than servers.
func FromBytes(data []byte, units int, name string) (*Program, error) {
	var seed [8]byte
	n := copy(seed[:], data)
	rng := rand.New(rand.NewPCG(binary.BigEndian.Uint64(seed[:]), 0x6d637070617269))
	src := &byteSource{data: data[n:]}
	parts := func(i int) *stream {
		if i < 0 {
			return &stream{rng: rng}
		}
		return &stream{bytes: src}
	}
	return generate(parts, units, name)
}

// generate reads the header from part(-1) and unit i from part(i).
func generate(part func(int) *stream, units int, name string) (*Program, error) {
	ks, err := kinds()
	if err != nil {
		return nil, err
	}
	g := &generator{sc: &scenario.Scenario{Name: name, Servers: map[string]scenario.ServerSpec{}}, faulty: map[string]bool{}}
	g.m = newModel(map[string]*kind{})
	p := &Program{Scenario: g.sc}
	h := part(-1)
	g.header(h, ks)
	p.prelude = len(g.sc.Steps)
	for i := 0; i < units; i++ {
		s := part(i)
		if s.bytes != nil && s.bytes.done() {
			break
		}
		before := len(g.sc.Steps)
		g.unit(s, i)
		p.Choices.Units = append(p.Choices.Units, s.used())
		p.unitSteps = append(p.unitSteps, len(g.sc.Steps)-before)
	}
	if g.observesReplays() && h.fresh1() == 1 {
		g.add(scenario.Step{Name: "replays", Kind: scenario.KindReplays, Rules: []string{"P1.1", "P2.5", "S1.1"}})
	}
	p.Choices.Header = h.used()
	g.describe()
	return p, nil
}

// add appends steps, each named after its index.
func (g *generator) add(steps ...scenario.Step) {
	for _, st := range steps {
		st.Name = strconv.Itoa(len(g.sc.Steps)+1) + " " + st.Name
		slices.Sort(st.Rules)
		st.Rules = slices.Compact(st.Rules)
		g.sc.Steps = append(g.sc.Steps, st)
	}
}

// observesReplays reports whether the scenario has replays to observe:
// HTTP ones always; stdio ones only where no time scale makes the close
// grace too short for a replay to write its report.
func (g *generator) observesReplays() bool {
	for _, sv := range g.sc.Servers {
		if sv.Replay != "" && (!sv.Stdio || g.mode == untimed) {
			return true
		}
	}
	return false
}

func (g *generator) describe() {
	g.sc.Description = fmt.Sprintf("A generated sequence of %d steps over %d servers (mcpparity fuzz).", len(g.sc.Steps), len(g.sc.Servers))
}
