package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
)

// rawPost posts body with the headers a plain client would send.
func (h *harness) rawPost(t testing.TB, session, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequestWithContext(testCtx(t), http.MethodPost, h.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func readAll(t testing.TB, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sseData returns the data of the next SSE event on br.
func sseData(t testing.TB, br *bufio.Reader) string {
	t.Helper()
	var data string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading SSE: %v (data so far %q)", err, data)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case strings.HasPrefix(line, "data: "):
			data = line[len("data: "):]
		case line == "" && data != "":
			return data
		}
	}
}

const rawInit = `{"jsonrpc":"2.0","id":"init-A","method":"initialize","params":{"clientInfo":{"name":"probe-client","version":"7"},"protocolVersion":"2025-11-25","capabilities":{"roots":{"listChanged":true}},"_meta":{"trace":"x"}}}`

// rawConnect initializes without discover and returns the session id.
func (h *harness) rawConnect(t testing.TB) string {
	t.Helper()
	resp := h.rawPost(t, "", rawInit)
	body := readAll(t, resp)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" || strings.Contains(sid, "{") {
		t.Fatalf("initialize: %d %q session %q", resp.StatusCode, body, sid)
	}
	if !strings.Contains(body, `"id":"init-A"`) {
		t.Fatalf("initialize answer keeps the recorded id: %s", body)
	}
	resp = h.rawPost(t, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if readAll(t, resp); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d", resp.StatusCode)
	}
	return sid
}

func TestRawJSONCallIDRewrite(t *testing.T) {
	h := serve(t, load(t, "json.json"), Options{})
	sid := h.rawConnect(t)
	resp := h.rawPost(t, sid, `{"jsonrpc":"2.0","id":"call-42","method":"tools/call","params":{"arguments":{},"name":"test_simple_text"}}`)
	body := readAll(t, resp)
	if resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("content type %q", resp.Header.Get("Content-Type"))
	}
	want := `{"jsonrpc":"2.0","id":"call-42","result":{"content":[{"type":"text","text":"This is a simple text response for testing."}]}}`
	if body != want {
		t.Fatalf("got  %s\nwant %s", body, want)
	}
}

func TestRawSSEPingAnswered(t *testing.T) {
	h := serve(t, load(t, "sse.json"), Options{})
	sid := h.rawConnect(t)
	resp := h.rawPost(t, sid, `{"jsonrpc":"2.0","id":99,"method":"tools/call","params":{"name":"ping_client","arguments":{}}}`)
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("content type %q", ct)
	}
	br := bufio.NewReader(resp.Body)
	var ping struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal([]byte(sseData(t, br)), &ping); err != nil || ping.Method != "ping" {
		t.Fatalf("first event is not a ping: %v %+v", err, ping)
	}
	ans := h.rawPost(t, sid, `{"jsonrpc":"2.0","id":`+string(ping.ID)+`,"result":{}}`)
	if readAll(t, ans); ans.StatusCode != http.StatusAccepted {
		t.Fatalf("answer: %d", ans.StatusCode)
	}
	if got := sseData(t, br); got != `{"jsonrpc":"2.0","id":99,"result":{"content":[{"type":"text","text":"ping err=\u003cnil\u003e"}]}}` {
		t.Fatalf("result %s", got)
	}
	if rep := h.r.Report(); rep.Answers != 1 || !rep.Clean() {
		t.Fatalf("report:\n%s", rep.String())
	}
}

func TestRawPingMissingAnswer(t *testing.T) {
	h := serve(t, load(t, "json.json"), Options{AnswerTimeout: 20 * time.Millisecond})
	sid := h.rawConnect(t)
	// In JSON mode the ping travels on the GET stream; nobody answers it.
	resp := h.rawPost(t, sid, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"ping_client","arguments":{}}}`)
	if body := readAll(t, resp); !strings.Contains(body, "ping err=") {
		t.Fatalf("the call is answered after the deadline: %s", body)
	}
	rep := h.r.Report()
	if len(rep.MissingAnswers) != 1 || rep.MissingAnswers[0].Method != "ping" || rep.MissingAnswers[0].Seq != 3 || rep.Clean() {
		t.Fatalf("report:\n%s", rep.String())
	}
}

func TestRawGETStream(t *testing.T) {
	h := serve(t, load(t, "json.json"), Options{})
	sid := h.rawConnect(t)
	req, _ := http.NewRequestWithContext(testCtx(t), http.MethodGet, h.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	get, err := h.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer get.Body.Close()
	br := bufio.NewReader(get.Body)
	if line, _ := br.ReadString('\n'); line != ": ok\n" {
		t.Fatalf("first line %q", line)
	}
	done := make(chan string, 1)
	go func() {
		done <- readAll(t, h.rawPost(t, sid, `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"ping_client","arguments":{}}}`))
	}()
	data := sseData(t, br)
	if data != `{"jsonrpc":"2.0","id":1,"method":"ping"}` {
		t.Fatalf("GET event %s", data)
	}
	readAll(t, h.rawPost(t, sid, `{"jsonrpc":"2.0","id":1,"result":{}}`))
	if body := <-done; !strings.HasPrefix(body, `{"jsonrpc":"2.0","id":8,`) {
		t.Fatalf("call %s", body)
	}
	// The detached ping follows the first answer.
	if data := sseData(t, br); data != `{"jsonrpc":"2.0","id":2,"method":"ping"}` {
		t.Fatalf("GET event %s", data)
	}
	readAll(t, h.rawPost(t, sid, `{"jsonrpc":"2.0","id":2,"result":{}}`))
	waitFor(t, "two answers", func() bool { return h.r.Report().Answers == 2 })
	// Close ends the open GET stream.
	h.r.Close()
	if _, err := io.ReadAll(br); err != nil {
		t.Fatalf("GET stream after Close: %v", err)
	}
}

func TestRawSessionNotFound(t *testing.T) {
	h := serve(t, load(t, "sse.json"), Options{})
	resp := h.rawPost(t, "NOSUCHSESSION", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
	body := readAll(t, resp)
	if resp.StatusCode != 404 || body != "session not found\n" || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("%d %q %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	// DELETE ends a session: 204, then 404.
	sid := h.rawConnect(t)
	del := func() int {
		req, _ := http.NewRequest(http.MethodDelete, h.url, nil)
		req.Header.Set("Mcp-Session-Id", sid)
		resp, err := h.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		readAll(t, resp)
		return resp.StatusCode
	}
	if got := del(); got != http.StatusNoContent {
		t.Fatalf("DELETE: %d", got)
	}
	if got := del(); got != http.StatusNotFound {
		t.Fatalf("second DELETE: %d", got)
	}
	if resp := h.rawPost(t, "", `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`); resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("no session: %d", resp.StatusCode)
	} else {
		readAll(t, resp)
	}
}

func TestRawUnmatched(t *testing.T) {
	h := serve(t, load(t, "json.json"), Options{})
	sid := h.rawConnect(t)
	resp := h.rawPost(t, sid, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"test_simple_text","arguments":{"x":1}}}`)
	var got struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal([]byte(readAll(t, resp)), &got); err != nil {
		t.Fatal(err)
	}
	want := `replay: unmatched tools/call "test_simple_text": closest recorded interaction is #6 tools/call "test_simple_text", differing at params.arguments.x`
	if got.ID != 5 || got.Error.Code != CodeUnmatched || got.Error.Message != want {
		t.Fatalf("got %+v\nwant %s", got, want)
	}
	resp = h.rawPost(t, sid, `{"jsonrpc":"2.0","id":6,"method":"resources/list"}`)
	if body := readAll(t, resp); !strings.Contains(body, `replay: no recorded resources/list request (recorded: initialize, notifications/initialized, server/discover, tools/call, tools/list)`) {
		t.Fatalf("%s", body)
	}
	rep := h.r.Report()
	if len(rep.Unmatched) != 2 || rep.Unmatched[0].Message != want || rep.Clean() {
		t.Fatalf("report:\n%s", rep.String())
	}
}

func TestRawIgnorePaths(t *testing.T) {
	// With nothing ignored, the clientInfo.version and _meta of rawInit differ.
	h := serve(t, load(t, "json.json"), Options{IgnorePaths: []string{}})
	body := readAll(t, h.rawPost(t, "", rawInit))
	if !strings.Contains(body, "differing at params._meta, params.clientInfo.version") {
		t.Fatalf("%s", body)
	}
	if _, err := New(load(t, "json.json"), Options{IgnorePaths: []string{"clientInfo"}}); err == nil {
		t.Fatal("a path outside params accepted")
	}
}

func TestRawRepeatLast(t *testing.T) {
	h := serve(t, load(t, "json.json"), Options{})
	sid := h.rawConnect(t)
	for i := 0; i < 3; i++ {
		body := readAll(t, h.rawPost(t, sid, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		if !strings.Contains(body, `"ping_client"`) {
			t.Fatalf("%d: %s", i, body)
		}
	}
	if rep := h.r.Report(); rep.Repeated != 2 || !rep.Clean() {
		t.Fatalf("report:\n%s", rep.String())
	}
}

func TestRawBadBody(t *testing.T) {
	h := serve(t, load(t, "json.json"), Options{})
	resp := h.rawPost(t, "", `{"jsonrpc":`)
	if body := readAll(t, resp); resp.StatusCode != 400 || !bytes.Contains([]byte(body), []byte(`-32700`)) {
		t.Fatalf("%d %s", resp.StatusCode, body)
	}
	if h.r.Report().Clean() {
		t.Fatal("a bad body is not reported")
	}
}

// TestRecordedQueryIgnored: a recording made at /mcp?api_key=… (the value
// redacted) serves a client that sends its own key.
func TestRecordedQueryIgnored(t *testing.T) {
	fx := withoutDiscover(load(t, "json.json"))
	for i := range fx.HTTP {
		fx.HTTP[i].Request.Path = "/mcp?api_key={secret}"
	}
	h := serve(t, fx, Options{})
	h.url += "?api_key=real-key"
	h.rawConnect(t)
	if rep := h.r.Report(); !rep.Clean() {
		t.Fatalf("report:\n%s", rep.String())
	}
}

// A server's error answer with "id": null (to a request it could not
// read) is replayed as it came, its null id kept.
func TestRawNullIDErrorAnswer(t *testing.T) {
	fx := load(t, "json.json")
	fx.HTTP[0].Response = fixtures.Response{Status: http.StatusBadRequest, ContentType: "application/json",
		Body: json.RawMessage(`{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Unsupported protocol version"},"id":null}`)}
	h := serve(t, fx, Options{})
	resp := h.rawPost(t, "", string(fx.HTTP[0].Request.Body))
	body := readAll(t, resp)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(body, `"id":null`) || !strings.Contains(body, `Unsupported protocol version`) {
		t.Fatalf("got %d %s", resp.StatusCode, body)
	}
}

// A server that quotes its session id (a tool's text here) is recorded
// with the placeholder; the replay puts the id it handed out in its place.
func TestRawSessionIDInAnswer(t *testing.T) {
	fx := load(t, "json.json")
	fx.HTTP[5].Response.Body = json.RawMessage(strings.Replace(string(fx.HTTP[5].Response.Body),
		`This is a simple text r`, `session {session-1}: This is a simple text r`, 1))
	h := serve(t, fx, Options{})
	sid := h.rawConnect(t)
	var m struct {
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(fx.HTTP[5].Request.Body, &m); err != nil {
		t.Fatal(err)
	}
	body := readAll(t, h.rawPost(t, sid, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":`+string(m.Params)+`}`))
	if !strings.Contains(body, "session "+sid+": ") || strings.Contains(body, "{session-1}") {
		t.Fatalf("answer %s does not quote the live session id %s", body, sid)
	}
}
