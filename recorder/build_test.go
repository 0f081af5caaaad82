package recorder_test

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/recorder"
)

func rpc(s string) json.RawMessage { return json.RawMessage(s) }

func TestBuildNormalizes(t *testing.T) {
	const tricky = `se"cr<et>` // needs escaping inside JSON strings
	rec := recorder.Recording{Transport: fixtures.TransportHTTP, Exchanges: []fixtures.Exchange{
		{Seq: 1, Request: fixtures.Request{Method: "POST", Path: "/mcp",
			Headers: map[string]string{"content-type": "application/json", "User-Agent": "x", "Authorization": "Bearer tok-123456", "X-Custom": "v-abcdef"},
			Body:    rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"k":"se\"cr\u003cet\u003e"}}`)},
			Response: fixtures.Response{Status: 200, ContentType: "application/json",
				Headers: map[string]string{"Mcp-Session-Id": "SID-A", "Date": "now"},
				Body:    rpc(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","serverInfo":{"name":"n","version":"v"},"echo":"tok-123456"}}`)}},
		// Never answered: dropped, and the event positions move along.
		{Seq: 2, Request: fixtures.Request{Method: "GET", Path: "/mcp"}},
		{Seq: 3, Request: fixtures.Request{Method: "GET", Path: "/mcp", Headers: map[string]string{"Mcp-Session-Id": "SID-A"}},
			Response: fixtures.Response{Status: 200, ContentType: "text/event-stream", Events: []fixtures.Event{
				{After: 3, Comment: "ok"}, {After: 4, Event: "message", Data: rpc(`{"jsonrpc":"2.0","id":1,"method":"ping"}`)}}}},
		{Seq: 4, Request: fixtures.Request{Method: "POST", Path: "/mcp?s=SID-B", Headers: map[string]string{"Mcp-Session-Id": "SID-B"}},
			Response: fixtures.Response{Status: 404, ContentType: "text/plain; charset=utf-8", Text: "session SID-B not found\n"}},
	}}
	f, err := recorder.Build(rec, recorder.Config{Name: "n", Headers: []string{"x-custom"}, Secrets: []string{tricky}})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.HTTP) != 3 || f.HTTP[1].Seq != 2 || f.HTTP[2].Seq != 3 {
		t.Fatalf("exchanges not renumbered: %+v", f.HTTP)
	}
	// Events are placed after the last request of their own session: the
	// ping read after SID-B's request belongs to SID-A's stream (seq 2).
	if got := []int{f.HTTP[1].Response.Events[0].After, f.HTTP[1].Response.Events[1].After}; !cmp.Equal(got, []int{2, 2}) {
		t.Errorf("event positions %v, want [2 2]", got)
	}
	wantHeaders := map[string]string{"Authorization": "{secret}", "Content-Type": "application/json", "X-Custom": "{secret}"}
	if diff := cmp.Diff(wantHeaders, f.HTTP[0].Request.Headers); diff != "" {
		t.Errorf("request headers (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(map[string]string{"Mcp-Session-Id": "{session-1}"}, f.HTTP[0].Response.Headers); diff != "" {
		t.Errorf("response headers (-want +got):\n%s", diff)
	}
	if got := f.HTTP[2].Request.Path; got != "/mcp?s={session-2}" {
		t.Errorf("path %q", got)
	}
	if got := f.HTTP[2].Response.Text; got != "session {session-2} not found\n" {
		t.Errorf("text %q", got)
	}
	data, err := fixtures.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, leak := range []string{"tok-123456", "v-abcdef", "SID-A", "SID-B", `cr\u003cet`, "User-Agent", "Date"} {
		if strings.Contains(string(data), leak) {
			t.Errorf("%q reached the fixture", leak)
		}
	}
	if f.Manifest.Server != "n/v" || f.Manifest.ProtocolVersion != "2025-11-25" || f.Manifest.ResponseMode != "json" {
		t.Errorf("manifest %+v", f.Manifest)
	}
	if f.Manifest.Tools == nil {
		t.Error("tools must encode as [] when no tools/list was recorded")
	}
}

func TestBuildRefuses(t *testing.T) {
	ok := recorder.Recording{Transport: fixtures.TransportStdio, Lines: []fixtures.Line{
		{Dir: "send", Message: rpc(`{"jsonrpc":"2.0","id":1,"method":"initialize"}`)},
		{Dir: "recv", Message: rpc(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"p","serverInfo":{"name":"n"}}}`)},
	}}
	if _, err := recorder.Build(ok, recorder.Config{}); err == nil {
		t.Error("a recording without a name was built")
	}
	if _, err := recorder.Build(recorder.Recording{Transport: "http"}, recorder.Config{Name: "x"}); err == nil {
		t.Error("an empty recording was built")
	}
	noInit := recorder.Recording{Transport: "stdio", Lines: ok.Lines[1:]}
	if _, err := recorder.Build(noInit, recorder.Config{Name: "x"}); err == nil || !strings.Contains(err.Error(), "initialize") {
		t.Errorf("no initialize: %v", err)
	}
	f, err := recorder.Build(ok, recorder.Config{Name: "x"})
	if err != nil || f.Manifest.Server != "n" {
		t.Errorf("minimal stdio recording: %v %+v", err, f)
	}
}

func TestGoSDKFallbackMatchesGoMod(t *testing.T) {
	data, err := os.ReadFile("../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	var version string
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "require"))
		if len(fields) >= 2 && fields[0] == recorder.GoSDKModule {
			version = fields[1]
		}
	}
	if version != recorder.GoSDKFallbackVersion {
		t.Errorf("go.mod requires %s %q, GoSDKFallbackVersion is %q", recorder.GoSDKModule, version, recorder.GoSDKFallbackVersion)
	}
	if module, v := recorder.GoSDK(); module != recorder.GoSDKModule || v != version {
		t.Errorf("GoSDK() = %s %s, want %s", module, v, version)
	}
}
