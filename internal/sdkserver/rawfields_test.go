package sdkserver_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/internal/sdkserver"
)

const (
	rawInit   = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
	rawReady  = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	rawCall   = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gen","arguments":{"blocks":[{"type":"text","text":"t","rawAnnotations":"{\"priority\":0.5,\"x\":[1],\"audience\":[\"user\"]}"},{"type":"resource_link","uri":"u","name":"n","rawMembers":" {\"data\":\"AA\",\"text\":\"t\"} "}]}}}`
	rawWanted = `"annotations":{"priority":0.5,"x":[1],"audience":["user"]}},{"type":"resource_link","uri":"u","name":"n","data":"AA","text":"t"}`
)

// TestGenRawFieldsStdio: over stdio, a block's rawAnnotations are
// written as given, key order and unknown keys kept, and its rawMembers
// in place of its annotations.
func TestGenRawFieldsStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inW, outR, done := serveOverPipes(ctx, sdkserver.ServeGenStdio)
	lines := bufio.NewScanner(outR)
	lines.Buffer(nil, 1<<20)
	var got string
	for _, msg := range []string{rawInit, rawReady, rawCall} {
		if _, err := io.WriteString(inW, msg+"\n"); err != nil {
			t.Fatal(err)
		}
		if msg == rawReady {
			continue
		}
		if !lines.Scan() {
			t.Fatalf("no answer to %s: %v", msg, lines.Err())
		}
		got = lines.Text()
	}
	inW.Close()
	if err := <-done; err != nil && ctx.Err() != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, rawWanted) {
		t.Errorf("answer %s, want it to hold %s", got, rawWanted)
	}
}

// TestGenRawFieldsHTTP: the same over Streamable HTTP, JSON and SSE.
func TestGenRawFieldsHTTP(t *testing.T) {
	for _, jsonResponse := range []bool{true, false} {
		srv := httptest.NewServer(sdkserver.GenHandler(jsonResponse))
		session := ""
		var got string
		for _, msg := range []string{rawInit, rawReady, rawCall} {
			got, session = send(t, http.MethodPost, srv.URL, session, msg)
		}
		send(t, http.MethodDelete, srv.URL, session, "")
		srv.Close()
		if !strings.Contains(got, rawWanted) {
			t.Errorf("json %v: answer %s, want it to hold %s", jsonResponse, got, rawWanted)
		}
	}
}

// send makes one request of a session (none yet: session ""); it gives
// the answer's body and the session.
func send(t *testing.T, method, url, session, msg string) (body, sessionID string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, method, url, bytes.NewBufferString(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-06-18")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		session = id
	}
	return string(raw), session
}

// TestGenRawResultTwice: a gen call's rawResultBefore is written as an
// earlier result member of the same answer, then its rawResult.
func TestGenRawResultTwice(t *testing.T) {
	srv := httptest.NewServer(sdkserver.GenHandler(true))
	defer srv.Close()
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"gen","arguments":{"rawResult":"{\"content\":[]}","rawResultBefore":"{\"content\":[{\"type\":\"text\",\"text\":\"first\"}]}"}}}`
	var got, session string
	for _, msg := range []string{rawInit, rawReady, call} {
		got, session = send(t, http.MethodPost, srv.URL, session, msg)
	}
	send(t, http.MethodDelete, srv.URL, session, "")
	want := `"result":{"content":[{"type":"text","text":"first"}]},"result":{"content":[]}}`
	if !strings.HasSuffix(strings.TrimSpace(got), want) {
		t.Errorf("answer %s, want it to end with %s", got, want)
	}
}
