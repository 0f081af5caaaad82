package sdkserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// TestPingClientIsBounded: ping_client against a client that never answers
// the ping ends with a tool error once its bound passes, instead of
// holding the call (and the server) forever.
func TestPingClientIsBounded(t *testing.T) {
	defer func(d time.Duration) { pingTimeout = d }(pingTimeout)
	pingTimeout = 200 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- ServeStdio(ctx, inR, outW)
		outW.Close()
	}()
	send := func(line string) {
		if _, err := io.WriteString(inW, line+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	defer func() {
		inW.Close()
		<-done
		for range lines {
		}
	}()
	next := func() map[string]any {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the server ended")
			}
			var m map[string]any
			if err := json.Unmarshal([]byte(l), &m); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
			return m
		case <-ctx.Done():
			t.Fatal("no answer: the call is not bounded")
		}
		return nil
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	next()
	send(`{"jsonrpc":"2.0","method":"notifications/initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"ping_client","arguments":{}}}`)
	for {
		m := next()
		if m["method"] == "ping" {
			continue // never answered
		}
		if m["id"] != float64(2) {
			continue
		}
		out, _ := json.Marshal(m["result"])
		if !strings.Contains(string(out), `"isError":true`) || !strings.Contains(string(out), "ping failed") {
			t.Fatalf("result: %s", out)
		}
		return
	}
}
