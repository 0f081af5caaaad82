package replay

import (
	"fmt"
	"sync"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/fixtures/probekind"
)

// stdioProbe is a recorded stdio probe (fixtures.Probe with lines): what
// a fresh server process wrote to the one request it got.
type stdioProbe struct {
	request string // as reports name it
	refused bool
	reqID   []byte     // the probe request's id, replaced by the client's
	answers []*message // the lines the server wrote
	// lack is a probe of what a conversation lacks: its answer is read
	// when an unrecorded request first needs it.
	lack     *fixtures.Probe
	lackOnce sync.Once
	lackAns  *message
}

// lackAnswer is the line that answered a lack probe's request (nil when
// the server wrote none).
func (sp *stdioProbe) lackAnswer() *message {
	sp.lackOnce.Do(func() {
		if _, answer := sp.lack.LackRequest(); answer != nil {
			sp.lackAns, _ = parseMessage(answer)
		}
	})
	return sp.lackAns
}

func buildStdioProbes(e *engine, probes []fixtures.Probe) (map[string]*stdioProbe, error) {
	out := map[string]*stdioProbe{}
	for i, p := range probes {
		sp := &stdioProbe{request: p.ProbeRequest(), refused: p.Refused()}
		if probekind.IsLack(p.Kind) {
			sp.lack = &probes[i]
			out[probeKey(p)] = sp
			continue
		}
		for j, l := range p.Lines {
			m, ok := rawText(l.Message)
			if !ok {
				var err error
				if m, err = parseMessage(l.Message); err != nil {
					return nil, fmt.Errorf("%s: probes[%d] (%s): lines[%d]: %v", e.name, i, p.Kind, j, err)
				}
			}
			if l.Dir == fixtures.DirSend {
				sp.reqID = m.id
			} else {
				sp.answers = append(sp.answers, m)
			}
		}
		out[p.Kind] = sp
	}
	return out, nil
}

// firstFault is the probe kind of a client's first message that a fresh
// server process refuses ("" for none): a request with neither _meta nor
// handshake (not initialize, not server/discover), a request of the
// 2026-07-28 revision asking for a version the server does not support
// (server/discover excepted), or one whose _meta lacks the client's
// capabilities. Only the first message is checked: a process of the
// revision pins its era at its first message and, the TypeScript SDK's
// at least, checks no later one's version.
func firstFault(in *incoming, versions map[string]bool) string {
	if !in.isRequest() || in.Method == "initialize" {
		return ""
	}
	mv := fixtures.MetaVersion(in.Params)
	switch {
	case mv == "" && in.Method != "server/discover":
		return probekind.NoMetaNoSession
	case mv == "":
		return ""
	case !versions[mv] && in.Method != "server/discover":
		return probekind.UnknownVersion
	case readEraParams(in.Params).Meta[fixtures.MetaClientCapabilities] == nil:
		return probekind.IncompleteMeta
	}
	return ""
}

// refuseFirst answers a first message the server refused as it answered
// the probe of its fault, and reports it; it reports whether it did.
func (s *stdioConn) refuseFirst(in *incoming) (bool, error) {
	sp := s.ix.probes[firstFault(in, s.ix.versions)]
	if sp == nil || !sp.refused {
		return false, nil
	}
	s.e.led.update(func(r *Report) { r.Refused = append(r.Refused, sp.request) })
	for _, m := range sp.answers {
		data := m.raw
		if m.id != nil && string(m.id) == string(sp.reqID) {
			data = m.withID(compactJSON(in.ID))
		}
		if err := s.write(nil, data); err != nil {
			return true, err
		}
	}
	return true, nil
}

// choose picks the recorded processes that may serve this client: those
// whose interactions answer its first message (key, without process), in
// recorded order; the first process when none does (the message is then
// unmatched). Clients with the same first message (a reconnection) are
// told apart by their later messages (see takeFor).
func (s *stdioConn) choose(key string) {
	s.cands = nil
	for p := 1; p <= s.ix.procs; p++ {
		if len(s.e.queues[procKey(p)+key]) > 0 {
			s.cands = append(s.cands, p)
		}
	}
	if len(s.cands) == 0 {
		s.cands = []int{1}
	}
	s.setProc(s.cands[0])
}

// takeFor takes the interaction answering key from the candidate
// processes: those that have one stay candidates, and the first of them
// serves the client (nil when none has one: the candidates stay).
func (s *stdioConn) takeFor(key string) *interaction {
	it, keep := s.e.takeAmong(s.cands, key)
	if it != nil {
		s.cands = keep
		s.setProc(keep[0])
	}
	return it
}

func (s *stdioConn) setProc(p int) {
	s.proc = p
	s.e.serve(p)
}
