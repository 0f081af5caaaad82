package replaytest_test

import (
	"context"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/mcpparity/mcpparity/replay/replaytest"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeT records what a replay makes of a test: its failures and cleanups.
type fakeT struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	cleanups []func()
}

func (f *fakeT) Helper()           {}
func (f *fakeT) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }
func (f *fakeT) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}
func (f *fakeT) Fatalf(format string, args ...any) {
	f.Errorf(format, args...)
	runtime.Goexit()
}

// end runs the cleanups as testing does when a test ends, last first.
func (f *fakeT) end() {
	for i := len(f.cleanups) - 1; i >= 0; i-- {
		f.cleanups[i]()
	}
}

// run calls body with f as its test, in a goroutine of its own (Fatalf
// ends it), then the cleanups; it returns the failures.
func (f *fakeT) run(body func(t testing.TB)) []string {
	done := make(chan struct{})
	go func() {
		defer close(done)
		body(f)
	}()
	<-done
	f.end()
	return f.errs
}

func connect(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "replaytest", Version: "1"}, nil)
	s, err := c.Connect(context.Background(), tr, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	return s
}

func echo(t *testing.T, s *mcp.ClientSession) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "Bonjour 🙂 — parité"}})
	if err != nil {
		t.Fatalf("echo: %v", err)
	}
	if got := res.Content[0].(*mcp.TextContent).Text; got != "Bonjour 🙂 — parité" {
		t.Fatalf("echo answered %q", got)
	}
}

func TestServerClean(t *testing.T) {
	srv := replaytest.NewServer(t, "sdk/json.json")
	s := connect(t, &mcp.StreamableClientTransport{Endpoint: srv.URL})
	defer s.Close()
	echo(t, s)
}

func TestStdioClean(t *testing.T) {
	st := replaytest.NewStdio(t, "sdk/stdio.json")
	s := connect(t, st.Transport())
	defer s.Close()
	echo(t, s)
}

// An unrecorded request fails the test at its end, naming the request.
func TestUnrecordedFails(t *testing.T) {
	for _, tc := range []struct {
		name string
		tr   func(tb testing.TB) mcp.Transport
	}{
		{"http", func(tb testing.TB) mcp.Transport {
			return &mcp.StreamableClientTransport{Endpoint: replaytest.NewServer(tb, "sdk/json.json").URL}
		}},
		{"stdio", func(tb testing.TB) mcp.Transport { return replaytest.NewStdio(tb, "sdk/stdio.json").Transport() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeT{}
			errs := f.run(func(tb testing.TB) {
				s := connect(t, tc.tr(tb))
				defer s.Close()
				if _, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "nope", Arguments: map[string]any{}}); err == nil {
					t.Error("a call the fixture lacks was answered as a success")
				}
			})
			if len(errs) != 1 || !strings.Contains(errs[0], "unmatched") || !strings.Contains(errs[0], `"nope"`) {
				t.Fatalf("failures = %q, want one naming the unmatched call of \"nope\"", errs)
			}
		})
	}
}

// A fixture of the other transport, or none, stops the test with its name.
func TestBadFixture(t *testing.T) {
	for _, tc := range []struct {
		body func(tb testing.TB)
		want string
	}{
		{func(tb testing.TB) { replaytest.NewServer(tb, "sdk/stdio.json") }, "fixture sdk/stdio.json was recorded over stdio, not http: use NewStdio"},
		{func(tb testing.TB) { replaytest.NewStdio(tb, "sdk/json.json") }, "fixture sdk/json.json was recorded over http, not stdio: use NewServer"},
		{func(tb testing.TB) { replaytest.NewServer(tb, "nowhere.json") }, "fixture nowhere.json: no such file"},
	} {
		f := &fakeT{}
		errs := f.run(tc.body)
		if len(errs) != 1 || !strings.Contains(errs[0], tc.want) {
			t.Errorf("failures = %q, want one with %q", errs, tc.want)
		}
	}
}
