package recorder

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"slices"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/fixtures/probekind"
)

// stdioProbeTimeout bounds one stdio probe. The process starts first: an
// interpreted server on a loaded machine takes seconds to, and a probe cut
// before the answer would record a server that never answers.
const stdioProbeTimeout = time.Minute

// ProbeStdio sends the stdio probes to fresh processes of a server, one
// each: a request with neither _meta nor handshake before it, and, when
// the fixture holds a client of the 2026-07-28 revision (lines), a
// request of that revision asking for a version the server does not
// support and, when it supports the client's, one whose _meta lacks the
// client's capabilities. Each process gets one line and is ended once it
// answered (at most stdioProbeTimeout); what it wrote is kept. Then, when
// the fixture holds a handshake, the requests of the lack kinds
// (probekind.IsLack), each to a process of its own. Only a server that
// cannot be started is an error.
func ProbeStdio(ctx context.Context, command string, lines []fixtures.Line, opts ProbeOptions) ([]fixtures.Probe, error) {
	type stdioProbe struct {
		kind string
		line []byte
	}
	probes := []stdioProbe{{probekind.NoMetaNoSession, []byte(probeList)}}
	if t := findModernLines(lines); t != nil && !t.accepted {
		probes = append(probes, stdioProbe{probekind.UnknownVersion, t.body("tools/list", nil, t.version)})
	} else if t != nil {
		probes = append(probes,
			stdioProbe{probekind.UnknownVersion, t.body("tools/list", nil, probeVersion)},
			stdioProbe{probekind.IncompleteMeta, request("tools/list", nil, versionOnly(t.version))})
	}
	var out []fixtures.Probe
	for _, p := range probes {
		got, err := OneRequest(ctx, command, p.line)
		if err != nil {
			return nil, err
		}
		out = append(out, fixtures.Probe{Kind: p.kind, Lines: got})
	}
	lack, err := stdioLackProbes(ctx, command, lines, opts)
	return append(out, lack...), err
}

// findModernLines reads the template of the revision's probes from stdio
// lines: the first client request whose _meta carries a version, and
// whether a server/discover result listed it.
func findModernLines(lines []fixtures.Line) *modernTemplate {
	var t *modernTemplate
	asked := map[string]string{} // request id -> method
	for _, l := range lines {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Meta map[string]json.RawMessage `json:"_meta"`
			} `json:"params"`
			Result json.RawMessage `json:"result"`
		}
		if json.Unmarshal(l.Message, &m) != nil {
			continue
		}
		if l.Dir == fixtures.DirSend {
			v := fixtures.MetaVersion(paramsOf(l.Message))
			if v != "" && t == nil {
				t = &modernTemplate{meta: m.Params.Meta, version: v}
			}
			if m.Method != "" && len(m.ID) > 0 {
				asked[string(m.ID)] = m.Method
			}
			continue
		}
		if t != nil && asked[string(m.ID)] == "server/discover" && m.Result != nil &&
			slices.Contains(fixtures.SupportedVersions(fixtures.Response{Body: l.Message}), t.version) {
			t.accepted = true
		}
	}
	return t
}

// OneRequest starts a stdio server, writes line to it and records what it
// writes until it answers (a message with an id and no method), ends, or
// stdioProbeTimeout passes; then it ends the server. Only a server that cannot
// be started is an error.
func OneRequest(ctx context.Context, command string, line []byte) ([]fixtures.Line, error) {
	return Requests(ctx, command, line)
}

// Requests is OneRequest for several lines, written in turn: after a
// request, the next line waits for its answer (a handshake, then a
// request).
func Requests(ctx context.Context, command string, lines ...[]byte) ([]fixtures.Line, error) {
	cmd, err := ServerCommand(command)
	if err != nil {
		return nil, err
	}
	s := NewStdio(cmd)
	s.StopTimeout = time.Second
	ctx, cancel := context.WithTimeout(ctx, stdioProbeTimeout)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := s.Run(ctx, inR, outW)
		outW.Close()
		done <- err
	}()
	sc := bufio.NewScanner(outR)
	sc.Buffer(nil, maxLineBytes)
	go func() {
		<-ctx.Done()
		outR.Close() // a server that never answers ends the scan
	}()
	// One writer, in order: a line after a request waits for its answer
	// (a server that never reads blocks the writer only).
	answered := make(chan struct{}, len(lines))
	go func() {
		for _, line := range lines {
			if _, err := inW.Write(append(line, '\n')); err != nil {
				return
			}
			if isRequest(line) {
				select {
				case <-answered:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	for _, line := range lines {
		if !isRequest(line) {
			continue
		}
		for sc.Scan() && !isAnswer(sc.Bytes()) {
		}
		answered <- struct{}{}
	}
	inW.Close()
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	if err := <-done; cmd.Process == nil {
		return nil, err // never started
	}
	return s.Recording().Lines, nil
}

// isAnswer reports whether a line is a JSON-RPC response (an id, no
// method).
func isAnswer(line []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	return json.Unmarshal(line, &m) == nil && m.Method == "" && len(m.ID) > 0
}
