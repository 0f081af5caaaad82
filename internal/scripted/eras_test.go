package scripted_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/scripted"
	"github.com/mcpparity/mcpparity/recorder"
	"github.com/mcpparity/mcpparity/replay"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// eraOutcome is what a request got, as far as a client acts on it: the HTTP
// status and Allow header, and the JSON-RPC answer's kind ("result") or
// error code.
type eraOutcome struct {
	Status int
	Allow  string
	Answer string
}

// rpcKind reads the kind of a JSON-RPC answer ("" for none).
func rpcKind(data []byte) string {
	var m struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	switch {
	case json.Unmarshal(data, &m) != nil:
		return ""
	case m.Error != nil:
		return fmt.Sprintf("error %d", m.Error.Code)
	case m.Result != nil:
		return "result"
	}
	return ""
}

// modernMeta is the _meta of a request of the revision asking for version
// (only the version with bare).
func modernMeta(version string, bare bool) string {
	if bare {
		return fmt.Sprintf(`{%q:%q}`, fixtures.MetaProtocolVersion, version)
	}
	return fmt.Sprintf(`{%q:%q,"io.modelcontextprotocol/clientInfo":{"name":"x","version":"1"},%q:{"roots":{"listChanged":true}}}`,
		fixtures.MetaProtocolVersion, version, fixtures.MetaClientCapabilities)
}

// eraCase is one request sent to a live server and to its replay.
type eraCase struct {
	name, method string
	headers      map[string]string
	body         string
}

func modernRequest(method, params, meta string) string {
	if meta != "" {
		if params == "" {
			params = `"_meta":` + meta
		} else {
			params += `,"_meta":` + meta
		}
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":%q,"params":{%s}}`, method, params)
}

// eraCases are the requests of both eras a live server answers, right and
// faulty (docs/fixtures.md, probes).
func eraCases() []eraCase {
	v, meta := fixtures.ModernVersion, modernMeta(fixtures.ModernVersion, false)
	echo := `"name":"echo","arguments":{"message":"Bonjour 🙂 — parité"}`
	hdr := func(kv ...string) map[string]string {
		h := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			h[kv[i]] = kv[i+1]
		}
		return h
	}
	return []eraCase{
		{"discover", "POST", hdr("Mcp-Protocol-Version", v, "Mcp-Method", "server/discover"), modernRequest("server/discover", "", meta)},
		{"tools/list", "POST", hdr("Mcp-Protocol-Version", v, "Mcp-Method", "tools/list"), modernRequest("tools/list", "", meta)},
		{"tools/call", "POST", hdr("Mcp-Protocol-Version", v, "Mcp-Method", "tools/call", "Mcp-Name", "echo"), modernRequest("tools/call", echo, meta)},
		{"rpc_error", "POST", hdr("Mcp-Protocol-Version", v, "Mcp-Method", "tools/call", "Mcp-Name", "rpc_error"), modernRequest("tools/call", `"name":"rpc_error","arguments":{}`, meta)},
		{"Mcp-Name of another tool", "POST", hdr("Mcp-Protocol-Version", v, "Mcp-Method", "tools/call", "Mcp-Name", "fail"), modernRequest("tools/call", echo, meta)},
		{"no Mcp-Name", "POST", hdr("Mcp-Protocol-Version", v, "Mcp-Method", "tools/call"), modernRequest("tools/call", echo, meta)},
		{"no Mcp-Method", "POST", hdr("Mcp-Protocol-Version", v), modernRequest("tools/list", "", meta)},
		{"Mcp-Method of another method", "POST", hdr("Mcp-Protocol-Version", v, "Mcp-Method", "tools/call"), modernRequest("tools/list", "", meta)},
		{"an unknown version", "POST", hdr("Mcp-Protocol-Version", "2099-01-01", "Mcp-Method", "tools/list"), modernRequest("tools/list", "", modernMeta("2099-01-01", false))},
		{"a version header of the handshake era", "POST", hdr("Mcp-Protocol-Version", "2025-11-25", "Mcp-Method", "tools/list"), modernRequest("tools/list", "", meta)},
		{"no version header", "POST", hdr("Mcp-Method", "tools/list"), modernRequest("tools/list", "", meta)},
		{"a version header without _meta", "POST", hdr("Mcp-Protocol-Version", v, "Mcp-Method", "tools/list"), modernRequest("tools/list", "", "")},
		{"a _meta without capabilities", "POST", hdr("Mcp-Protocol-Version", v, "Mcp-Method", "tools/list"), modernRequest("tools/list", "", modernMeta(v, true))},
		{"neither _meta nor session nor version", "POST", hdr(), modernRequest("tools/list", "", "")},
		{"initialize", "POST", hdr(), `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"clientInfo":{"name":"x","version":"1"},"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}}}}`},
		{"GET without session", "GET", hdr("Accept", "text/event-stream"), ""},
		{"DELETE without session", "DELETE", hdr(), ""},
	}
}

// send makes one request and reads its eraOutcome (an accepted GET stream is
// not read: it would not end).
func sendCase(t *testing.T, url string, c eraCase) eraOutcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, c.method, url, strings.NewReader(c.body))
	if err != nil {
		t.Fatal(err)
	}
	if c.method == "POST" {
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s: %v", c.name, err)
	}
	defer resp.Body.Close()
	o := eraOutcome{Status: resp.StatusCode, Allow: resp.Header.Get("Allow")}
	if c.method == "GET" {
		return o
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		o.Answer = rpcKind(b)
		return o
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if data, ok := strings.CutPrefix(sc.Text(), "data:"); ok {
			if a := rpcKind([]byte(strings.TrimSpace(data))); a != "" {
				o.Answer = a
				break
			}
		}
	}
	return o
}

// live starts a set's server, skipping (failing in CI) when its packages
// are not installed.
func live(t *testing.T, s scripted.Set) (url, command string) {
	t.Helper()
	scripted.ServersDir = "../../recorder/servers"
	url, command, stop, err := scripted.Live(context.Background(), s, harness(t))
	skipWithoutServers(t, err)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(stop)
	return url, command
}

// skipWithoutServers skips when err says the packages of a server of
// recorder/servers are not installed, except under CI=true, where .ci/run
// installs them.
func skipWithoutServers(t *testing.T, err error) {
	t.Helper()
	if errors.Is(err, scripted.ErrNoServer) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the servers of recorder/servers must be installed in CI: %v", err)
		}
		t.Skip(err)
	}
}

// serveReplay serves the embedded fixture file on a loopback server
// (closed with the test) and returns its endpoint.
func serveReplay(t *testing.T, file string) string {
	t.Helper()
	fx, err := fixtures.Embedded(file)
	if err != nil {
		t.Fatal(err)
	}
	rp, err := replay.New(fx, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(func() { srv.Close(); rp.Close() })
	return srv.URL + "/mcp"
}

// TestReplayAsStrictAsLiveHTTP sends the requests of both eras, right and
// faulty, to each live HTTP server of the 2026-07-28 revision and to the
// replay of its committed recording, in fresh sessions: each gets the
// same status, Allow and answer from both.
func TestReplayAsStrictAsLiveHTTP(t *testing.T) {
	for _, s := range append([]scripted.Set{scripted.SDKSets[4]}, scripted.ModernSets...) {
		if !strings.HasSuffix(s.Name(), "-http") {
			continue
		}
		t.Run(s.File, func(t *testing.T) {
			url, _ := live(t, s)
			fx, err := fixtures.Embedded(s.File)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range eraCases() {
				rp, err := replay.New(fx, replay.Options{})
				if err != nil {
					t.Fatal(err)
				}
				srv := httptest.NewServer(rp)
				want, got := sendCase(t, url, c), sendCase(t, srv.URL+"/mcp", c)
				srv.Close()
				rp.Close()
				if want != got {
					t.Errorf("%s: live %+v, replay %+v", c.name, want, got)
				}
			}
		})
	}
}

// TestReplayAsStrictAsLiveStdio sends each first message a stdio server of
// the 2026-07-28 revision pins its era with, right and faulty, to a fresh
// live process and to a fresh replay process of its committed recording:
// each answers alike.
func TestReplayAsStrictAsLiveStdio(t *testing.T) {
	firsts := map[string]string{}
	for _, c := range eraCases() {
		if c.method == "POST" && !strings.Contains(c.name, "header") && !strings.Contains(c.name, "Mcp-") {
			firsts[c.name] = c.body
		}
	}
	for _, s := range scripted.ModernSets {
		if !strings.HasSuffix(s.Name(), "-stdio") {
			continue
		}
		t.Run(s.File, func(t *testing.T) {
			_, command := live(t, s)
			replayCmd := strings.Join(append(harness(t), "replay", "--stdio", "--fixture", filepath.Join(committed, s.File)), " ")
			for name, line := range firsts {
				want, got := firstAnswer(t, command, line), firstAnswer(t, replayCmd, line)
				if want != got {
					t.Errorf("%s: live %q, replay %q", name, want, got)
				}
			}
		})
	}
}

// firstAnswer starts a server command, sends it line, and returns the
// kind of its answer ("" when it wrote none).
func firstAnswer(t *testing.T, command, line string) string {
	t.Helper()
	lines, err := recorder.OneRequest(context.Background(), command, []byte(line))
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range lines {
		if k := rpcKind(l.Message); k != "" && l.Dir == fixtures.DirRecv {
			return k
		}
	}
	return ""
}

// clientView is what a go-sdk client gets from a server: its connection's
// error, the tools, and each call's result or error.
func clientView(t *testing.T, tr func() mcp.Transport, opts *mcp.ClientSessionOptions, calls []scripted.Call) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "view", Version: "1"}, nil).Connect(ctx, tr(), opts)
	if err != nil {
		return []string{"connect: " + err.Error()}
	}
	defer cs.Close()
	var out []string
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return append(out, "tools/list: "+err.Error())
	}
	for _, tool := range res.Tools {
		out = append(out, "tool "+tool.Name)
	}
	for _, c := range calls {
		r, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: c.Tool, Arguments: c.Args})
		if err != nil {
			out = append(out, c.Tool+": "+err.Error())
			continue
		}
		b, _ := json.Marshal(r)
		out = append(out, c.Tool+": "+string(b))
	}
	return out
}

// TestReplayServesBothErasAsLive: a go-sdk client pinned to the handshake
// era (as the reference pool) and one with its default negotiation (the
// 2026-07-28 revision) each get from the replay of a server's recording
// what they get from the live server: the same connection outcome, tools
// and call results.
func TestReplayServesBothErasAsLive(t *testing.T) {
	for _, s := range append(append([]scripted.Set{}, scripted.SDKSets...), scripted.ModernSets...) {
		t.Run(s.File, func(t *testing.T) {
			url, command := live(t, s)
			calls, err := scripted.Script(s)
			if err != nil {
				t.Fatal(err)
			}
			var liveT, replayT func() mcp.Transport
			if url != "" {
				endpoint := serveReplay(t, s.File)
				liveT = func() mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: url} }
				replayT = func() mcp.Transport { return &mcp.StreamableClientTransport{Endpoint: endpoint} }
			} else {
				replayCmd := strings.Join(append(harness(t), "replay", "--stdio", "--fixture", filepath.Join(committed, s.File)), " ")
				liveT = func() mcp.Transport { return commandTransport(t, command) }
				replayT = func() mcp.Transport { return commandTransport(t, replayCmd) }
			}
			for _, opts := range []*mcp.ClientSessionOptions{{ProtocolVersion: "2025-11-25"}, nil} {
				want, got := clientView(t, liveT, opts, calls), clientView(t, replayT, opts, calls)
				if d := cmp.Diff(want, got); d != "" {
					t.Errorf("era of %+v: the replay differs from the live server (-live +replay):\n%s", opts, d)
				}
			}
		})
	}
}

func commandTransport(t *testing.T, command string) mcp.Transport {
	t.Helper()
	cmd, err := recorder.ServerCommand(command)
	if err != nil {
		t.Fatal(err)
	}
	return &mcp.CommandTransport{Command: cmd}
}
