package impl

// The status (P16) against real servers: every kind of configured server,
// a failed tools/list (P16.4, P4.3), no server at all (P16.7).

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestP16_StatusOfEveryKindOfServer(t *testing.T) {
	f := newFixture(t)
	srv := f.httpServer(true, testServerOptions{})
	u := srv.URL
	both := f.stdio(nil)
	// Seeded in the store: the API refuses the misconfigured ones.
	f.seedRaw(fmt.Sprintf(`{
		"reach": {"url": %q, "headers": {"X-K": "v"}},
		"missing": {"command": "mcpparity-missing-binary", "args": ["-y", "pkg"]},
		"padded": {"command": "  mcpparity-missing-binary"},
		"off": {"url": %q, "enabled": false, "disabledTools": ["echo"]},
		"off-stdio": {"command": "mcpparity-missing-binary", "enabled": false},
		"both": {"command": %s, "env": %s, "url": %q},
		"neither": {"env": {"K": "V"}},
		"nothing-off": {"enabled": false}
	}`, u, u, jsonString(both.Command), mustJSON(both.Env), u))
	code, raw := f.do("GET", "/api/mcp", "")
	if code != 200 {
		t.Fatalf("GET /api/mcp: %d %s", code, raw)
	}
	want := serversBody{OK: true, Servers: []ServerStatus{
		{Name: "both", Transport: "stdio", Enabled: true, Connected: true, Tools: stdioTools, Disabled: []string{},
			Command: both.Command, Env: both.Env, URL: u},
		{Name: "missing", Transport: "stdio", Enabled: true, Error: textMissing, Tools: []string{}, Disabled: []string{},
			Command: "mcpparity-missing-binary", Args: []string{"-y", "pkg"}},
		{Name: "neither", Transport: "", Enabled: true, Tools: []string{}, Disabled: []string{}, Env: map[string]string{"K": "V"}},
		{Name: "nothing-off", Transport: "", Tools: []string{}, Disabled: []string{}},
		{Name: "off", Transport: "http", Tools: []string{}, Disabled: []string{"echo"}, URL: u},
		{Name: "off-stdio", Transport: "stdio", Tools: []string{}, Disabled: []string{}, Command: "mcpparity-missing-binary"},
		{Name: "padded", Transport: "stdio", Enabled: true, Error: `exec: "  mcpparity-missing-binary": executable file not found in $PATH`,
			Tools: []string{}, Disabled: []string{}, Command: "  mcpparity-missing-binary"},
		{Name: "reach", Transport: "http", Enabled: true, Connected: true, Tools: httpTools, Disabled: []string{}, URL: u,
			Headers: map[string]string{"X-K": "v"}},
	}}
	if diff := cmp.Diff(want, decodeAs(t, raw, serversBody{})); diff != "" {
		t.Errorf("P16 status (-want +got)\n%s", diff)
	}
	checkStatusFields(t, raw)
	// P16.6: "both" ran as a stdio server; only the enabled http one
	// reached the http server.
	if n := srv.inits(); n != 1 {
		t.Errorf("P16: %d sessions opened, want 1 (disabled servers are not tried)", n)
	}
	if n := f.startCount(); n != 1 {
		t.Errorf("P16.6: %d stdio servers started, want 1 (both command and url is stdio)", n)
	}
}

// checkStatusFields checks field presence as the UI reads it: tools and
// disabled are arrays, never null; error and the configuration are omitted
// when empty (P16.1, P16.5).
func checkStatusFields(t *testing.T, raw string) {
	t.Helper()
	var servers struct {
		Servers []map[string]json.RawMessage `json:"servers"`
	}
	if err := json.Unmarshal([]byte(raw), &servers); err != nil {
		t.Fatal(err)
	}
	for _, s := range servers.Servers {
		for _, k := range []string{"tools", "disabled"} {
			if !bytes.HasPrefix(s[k], []byte("[")) {
				t.Errorf("P16 %s: %q = %s, want an array", s["name"], k, s[k])
			}
		}
		var keys []string
		for k := range s {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		wantKeys := map[string][]string{
			`"off"`:         {"connected", "disabled", "enabled", "name", "tools", "transport", "url"},
			`"nothing-off"`: {"connected", "disabled", "enabled", "name", "tools", "transport"},
		}[string(s["name"])]
		if wantKeys != nil {
			if diff := cmp.Diff(wantKeys, keys); diff != "" {
				t.Errorf("P16 keys of %s (-want +got)\n%s", s["name"], diff)
			}
		}
	}
	if !strings.Contains(raw, `"tools":[],"disabled":[]`) {
		t.Errorf("P16: empty tools/disabled not written as []: %s", raw)
	}
}

func TestP16_7_NoServerIsNull(t *testing.T) {
	f := newFixture(t)
	if code, raw := f.do("GET", "/api/mcp", ""); code != 200 || raw != `{"ok":true,"servers":null}`+"\n" {
		t.Errorf("P16.7 status of no server: %d %s", code, raw)
	}
	f.seedRaw(`{}`)
	if got := f.Pool().Status(ctx(t)); got != nil {
		t.Errorf("P16.7 Status of an empty store = %#v, want nil", got)
	}
}

// TestP16_4_ListToolsFailureKeepsTheSession: initialize succeeded, the first
// tools/list failed: connected, with the failure and no tools, kept until
// the server is invalidated; it announces nothing and its tools are unknown.
func TestP16_4_ListToolsFailureKeepsTheSession(t *testing.T) {
	f := newFixture(t)
	var lists atomic.Int32
	srv := f.httpServer(false, testServerOptions{BeforeListTools: func(context.Context) error {
		if lists.Add(1) == 1 {
			return errors.New("no tools today")
		}
		return nil
	}})
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
	p := f.Pool()
	const text = `calling "tools/list": no tools today`
	for i := range 2 {
		st := p.Status(ctx(t))
		wantSt := []ServerStatus{{Name: "h", Transport: "http", Enabled: true, Connected: true, Error: text,
			Tools: []string{}, Disabled: []string{}, URL: srv.URL}}
		if diff := cmp.Diff(wantSt, st); diff != "" {
			t.Fatalf("P16.4 status %d (-want +got)\n%s", i, diff)
		}
	}
	tools, prompt := p.Tools(ctx(t))
	if len(tools) != 0 || prompt != "" {
		t.Errorf("P8.2 P14.1: a session without tools announced %v, prompt %q", tools, prompt)
	}
	if got := p.Call(ctx(t), "mcp__h__echo", map[string]any{"text": "x"}, 0).Output; got != textUnknown+"mcp__h__echo" {
		t.Errorf("P9.1 call after a failed tools/list: %q", got)
	}
	if n, l := srv.inits(), lists.Load(); n != 1 || l != 1 {
		t.Errorf("P16.4: %d sessions and %d tools/list, want 1 and 1 (the session is kept)", n, l)
	}
	p.Test("h")
	if st := p.Status(ctx(t)); !st[0].Connected || st[0].Error != "" || len(st[0].Tools) != len(httpTools) {
		t.Errorf("after the test: %+v, want connected with its tools", st[0])
	}
	if n := srv.inits(); n != 2 {
		t.Errorf("%d sessions after the test, want 2", n)
	}
}

// TestP4_3_ListToolsDeadlineNotWorded: a deadline passing during the first
// tools/list is shown as the raw error, not as P4's text, and the session
// is connected (P16.4).
func TestP4_3_ListToolsDeadlineNotWorded(t *testing.T) {
	// A deadline an in-process initialize cannot miss, even on a loaded
	// machine; the first tools/list never answers.
	f := newFixture(t, func(o *Options) { o.ConnectTimeout = func(string) time.Duration { return time.Second } })
	srv := f.httpServer(false, testServerOptions{BeforeListTools: func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	}})
	f.seed(map[string]MCPServerConfig{"h": {URL: srv.URL, Enabled: true}})
	st := f.Pool().Status(ctx(t))
	if len(st) != 1 || !st[0].Connected || len(st[0].Tools) != 0 {
		t.Fatalf("P16.4 status: %+v, want connected without tools", st)
	}
	if st[0].Error != "context deadline exceeded" {
		t.Errorf("P4.3 error = %q, want the raw deadline", st[0].Error)
	}
}

// TestC2_4_StoredCommandRunAsStored: a seeded command is run and shown as
// stored, white space included (only a save trims).
func TestC2_4_StoredCommandRunAsStored(t *testing.T) {
	f := newFixture(t)
	f.seedRaw(`{"padded":{"command":"  mcpparity-missing-binary "}}`)
	st := f.status()
	want := []ServerStatus{{Name: "padded", Transport: "stdio", Enabled: true, Tools: []string{}, Disabled: []string{},
		Error:   `exec: "  mcpparity-missing-binary ": executable file not found in $PATH`,
		Command: "  mcpparity-missing-binary "}}
	if diff := cmp.Diff(want, st); diff != "" {
		t.Errorf("C2.4 status (-want +got)\n%s", diff)
	}
}
