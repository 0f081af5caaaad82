package recorder_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/fixtures/probekind"
	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/mcpparity/mcpparity/recorder"
	"github.com/mcpparity/mcpparity/replay"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// lackVariants are requests a recorded conversation lacks, of each lack
// kind and others of the same family: the probes' own, and not theirs.
var lackVariants = []struct {
	name, body string
	session    bool // sent in an initialized session
}{
	{"unknown method", `{"jsonrpc":"2.0","id":7,"method":"mcpparity/unknown-method","params":{}}`, true},
	{"another unknown method", `{"jsonrpc":"2.0","id":7,"method":"weather/get"}`, true},
	{"unknown tool", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"mcpparity-unknown-tool","arguments":{}}}`, true},
	{"another unknown tool", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ECHO","arguments":{"message":"x"}}}`, true},
	{"missing arguments", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}`, true},
	{"no arguments", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo"}}`, true},
	{"bad params", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":["mcpparity"],"arguments":"x"}}`, true},
	{"a name of another type", `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":5}}`, true},
	{"cursor", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"mcpparity-unknown-cursor"}}`, true},
	{"another cursor", `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"cursor":"abc"}}`, true},
	{"initialize 2024-11-05", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2024-11-05","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"raw","version":"1"}}}`, false},
	{"initialize 2025-06-18", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"raw","version":"1"}}}`, false},
	{"initialize, other capabilities", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`, false},
}

// lackAnswer is what a raw client compares of an answer.
type lackAnswer struct {
	Status  int
	Form    string // json, sse or text
	Code    int    // the JSON-RPC error's code; 0 for a result
	IsError bool   // a result's isError
	Version string // an initialize result's protocolVersion
}

func readLackAnswer(status int, contentType string, body []byte) lackAnswer {
	a := lackAnswer{Status: status, Form: "text"}
	data := body
	switch {
	case strings.HasPrefix(contentType, "text/event-stream"):
		a.Form = "sse"
		data = nil
		for _, line := range strings.Split(string(body), "\n") {
			if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"id"`) {
				data = []byte(d)
			}
		}
	case strings.HasPrefix(contentType, "application/json"):
		a.Form = "json"
	}
	var m struct {
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
		Result struct {
			IsError         bool   `json:"isError"`
			ProtocolVersion string `json:"protocolVersion"`
		} `json:"result"`
	}
	if json.Unmarshal(bytes.TrimSpace(data), &m) == nil {
		if m.Error != nil {
			a.Code = m.Error.Code
		}
		a.IsError, a.Version = m.Result.IsError, m.Result.ProtocolVersion
	}
	return a
}

// rawPost sends one body to an HTTP endpoint, in session sid when given.
func rawPost(t *testing.T, url, sid, body string) (lackAnswer, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return readLackAnswer(resp.StatusCode, resp.Header.Get("Content-Type"), data), resp.Header.Get("Mcp-Session-Id")
}

// rawHTTPAnswers sends each variant to url, those of a session each in a
// session of its own opened with init.
func rawHTTPAnswers(t *testing.T, url string, init []byte) []lackAnswer {
	var out []lackAnswer
	for _, v := range lackVariants {
		sid := ""
		if v.session {
			_, sid = rawPost(t, url, "", string(init))
			rawPost(t, url, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		}
		a, opened := rawPost(t, url, sid, v.body)
		out = append(out, a)
		rawDelete(t, url, sid)
		rawDelete(t, url, opened)
	}
	return out
}

// rawDelete ends a session (none when sid is empty).
func rawDelete(t *testing.T, url, sid string) {
	t.Helper()
	if sid == "" {
		return
	}
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// TestLackAnsweredAsLive: a raw client sends requests the fixture lacks
// to the live server and to the replay of its recording, over SSE, JSON
// and stdio: the same status, body form, error code or result come back,
// and the replay's report lists each request as unmatched.
func TestLackAnsweredAsLive(t *testing.T) {
	for _, jsonMode := range []bool{false, true} {
		name := map[bool]string{false: "sse", true: "json"}[jsonMode]
		t.Run(name, func(t *testing.T) {
			live := httptest.NewServer(sdkserver.Handler(jsonMode))
			defer live.Close()
			fx := recordHTTPLive(t, live.URL+"/mcp")
			rp, err := replay.New(fx, replay.Options{})
			if err != nil {
				t.Fatal(err)
			}
			fake := httptest.NewServer(rp)
			defer fake.Close()
			init := recordedInit(t, fx)
			want := rawHTTPAnswers(t, live.URL+"/mcp", init)
			got := rawHTTPAnswers(t, fake.URL+fx.Endpoint(), init)
			compareLacks(t, want, got)
			_ = rp.Close()
			checkLackReport(t, rp.Report())
		})
	}
	t.Run("stdio", func(t *testing.T) {
		t.Setenv("MCPPARITY_RECORDER_TEST_ROLE", "stdio-server")
		command := os.Args[0] + " -test.run=^$"
		fx := recordStdioLive(t, command)
		init := recordedInit(t, fx)
		var want, got []lackAnswer
		for _, v := range lackVariants {
			lines := []string{v.body}
			if v.session {
				lines = []string{string(init), `{"jsonrpc":"2.0","method":"notifications/initialized"}`, v.body}
			}
			id := map[bool]string{true: `"id":7`, false: `"id":1`}[v.session]
			want = append(want, stdioAnswer(t, liveStdio(t, command, lines), id))
			out, rep := replayStdio(t, fx, lines)
			got = append(got, stdioAnswer(t, out, id))
			if len(rep.Unmatched) != 1 || !strings.Contains(rep.Unmatched[0].Message, "answered as the live server answered") {
				t.Errorf("%s: replay report %+v", v.name, rep.Unmatched)
			}
		}
		compareLacks(t, want, got)
	})
}

func compareLacks(t *testing.T, want, got []lackAnswer) {
	t.Helper()
	for i, v := range lackVariants {
		if d := cmp.Diff(want[i], got[i]); d != "" {
			t.Errorf("%s: replay differs from the live server (-live +replay):\n%s", v.name, d)
		}
	}
}

// checkLackReport: each variant is listed, answered as live answered.
func checkLackReport(t *testing.T, rep replay.Report) {
	t.Helper()
	if len(rep.Unmatched) != len(lackVariants) {
		t.Errorf("report lists %d unmatched, want %d:\n%s", len(rep.Unmatched), len(lackVariants), rep)
	}
	for _, u := range rep.Unmatched {
		if !strings.Contains(u.Message, "answered as the live server answered") {
			t.Errorf("unmatched %q: not answered from a probe", u.Message)
		}
	}
}

// recordHTTPLive records a go-sdk client's conversation with the server at
// endpoint (tools listed, echo called) through a proxy, with its probes.
func recordHTTPLive(t *testing.T, endpoint string) *fixtures.Fixture {
	t.Helper()
	proxy, err := recorder.NewProxy(strings.TrimSuffix(endpoint, "/mcp"), nil)
	if err != nil {
		t.Fatal(err)
	}
	front := httptest.NewServer(proxy)
	ctx := context.Background()
	c := mcp.NewClient(&mcp.Implementation{Name: "rec", Version: "1"}, nil)
	s, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: front.URL + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "x"}}); err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
	if err := proxy.Probe(ctx); err != nil {
		t.Fatal(err)
	}
	front.Close()
	_ = proxy.Close()
	fx, err := recorder.Build(proxy.Recording(), recorder.Config{Name: "lacks"})
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// recordStdioLive records a conversation with a stdio server, and its probes.
func recordStdioLive(t *testing.T, command string) *fixtures.Fixture {
	t.Helper()
	ctx := context.Background()
	lines, err := recorder.Requests(ctx, command,
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"clientInfo":{"name":"rec","version":"1"}}}`),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		[]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`),
		[]byte(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"message":"x"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	probes, err := recorder.ProbeStdio(ctx, command, lines, recorder.ProbeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fx, err := recorder.Build(recorder.Recording{Transport: fixtures.TransportStdio, Lines: lines, Probes: probes}, recorder.Config{Name: "lacks"})
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// liveStdio sends lines to a fresh server process and returns what it wrote.
func liveStdio(t *testing.T, command string, lines []string) []byte {
	t.Helper()
	var raw [][]byte
	for _, l := range lines {
		raw = append(raw, []byte(l))
	}
	got, err := recorder.Requests(context.Background(), command, raw...)
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for _, l := range got {
		if l.Dir == fixtures.DirRecv {
			out.Write(append(l.Message, '\n'))
		}
	}
	return out.Bytes()
}

// replayStdio sends lines to a replay of fx and returns what it wrote.
func replayStdio(t *testing.T, fx *fixtures.Fixture, lines []string) ([]byte, replay.Report) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	rep, err := replay.ServeStdio(ctx, fx, strings.NewReader(strings.Join(lines, "\n")+"\n"), &out, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return out.Bytes(), *rep
}

// stdioAnswer reads the answer of the given id (its member, as written)
// among the lines a server wrote.
func stdioAnswer(t *testing.T, out []byte, id string) lackAnswer {
	t.Helper()
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if bytes.Contains(sc.Bytes(), []byte(id+",")) {
			return readLackAnswer(0, "", sc.Bytes())
		}
	}
	t.Errorf("no answer with %s among:\n%s", id, out)
	return lackAnswer{}
}

// recordedInit is the body of the fixture's first initialize.
func recordedInit(t *testing.T, fx *fixtures.Fixture) []byte {
	t.Helper()
	var bodies []json.RawMessage
	for _, ex := range fx.HTTP {
		bodies = append(bodies, ex.Request.Body)
	}
	for _, l := range fx.Stdio {
		bodies = append(bodies, l.Message)
	}
	for _, b := range bodies {
		if bytes.Contains(b, []byte(`"method":"initialize"`)) {
			return b
		}
	}
	t.Fatal("the fixture holds no initialize")
	return nil
}

// TestNoToolProbes: left out, the tool probe is not sent (the tool's
// handler never runs), and the replay says what it could not learn.
func TestNoToolProbes(t *testing.T) {
	t.Setenv("MCPPARITY_RECORDER_TEST_ROLE", "stdio-server")
	command := os.Args[0] + " -test.run=^$"
	ctx := context.Background()
	lines, err := recorder.Requests(ctx, command,
		[]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"rec","version":"1"}}}`),
		[]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`),
		[]byte(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`))
	if err != nil {
		t.Fatal(err)
	}
	probes, err := recorder.ProbeStdio(ctx, command, lines, recorder.ProbeOptions{NoToolCalls: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range probes {
		if p.Kind == probekind.MissingArguments {
			t.Fatalf("a %s probe was sent", p.Kind)
		}
	}
	fx, err := recorder.Build(recorder.Recording{Transport: fixtures.TransportStdio, Lines: lines, Probes: probes}, recorder.Config{Name: "no-tool-probes"})
	if err != nil {
		t.Fatal(err)
	}
	init := string(recordedInit(t, fx))
	out, rep := replayStdio(t, fx, []string{init, `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{}}}`})
	if a := stdioAnswer(t, out, `"id":7`); a.Code != replay.CodeUnmatched {
		t.Errorf("answer %+v, want the replay's own error %d", a, replay.CodeUnmatched)
	}
	if len(rep.Unmatched) != 1 || !strings.HasSuffix(rep.Unmatched[0].Message,
		"; the fixture holds no answer of the live server to a tools/call without the arguments its tool requires (recorded without that probe)") {
		t.Errorf("report: %+v", rep.Unmatched)
	}
}
