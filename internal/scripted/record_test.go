package scripted_test

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/fixtures/probekind"
	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/scripted"
	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/mcpparity/mcpparity/replay"
)

func harness(t *testing.T) []string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe}
}

const committed = "../../fixtures/recordings"

// TestRecordMatchesCommitted records the SDK server twice through the
// reference pool: the two recordings are byte-identical and equal to the
// committed fixtures (what `mcpparity record --drift` verifies).
func TestRecordMatchesCommitted(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, s := range scripted.SDKSets {
		t.Run(s.File, func(t *testing.T) {
			for _, dir := range []string{a, b} {
				if err := scripted.Record(context.Background(), s, filepath.Join(dir, s.File), harness(t)); err != nil {
					t.Fatal(err)
				}
			}
			first, _ := os.ReadFile(filepath.Join(a, s.File))
			second, _ := os.ReadFile(filepath.Join(b, s.File))
			if d := compare(t, first, second); d != "" {
				t.Errorf("two recordings differ:\n%s", d)
			}
			stored, err := os.ReadFile(filepath.Join(committed, s.File))
			if err != nil {
				t.Fatal(err)
			}
			if d := compare(t, stored, first); d != "" {
				t.Errorf("the committed fixture drifted (run mcpparity record):\n%s", d)
			}
			if _, err := fixtures.Decode(s.File, first); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestRecordModernMatchesCommitted records the servers of the 2026-07-28
// revision on the TypeScript and Python SDKs (recorder/servers) through
// the reference pool and a client of that revision: each recording equals
// the committed one. Their packages must be installed (.ci/run does);
// without them the test skips locally and fails in CI.
func TestRecordModernMatchesCommitted(t *testing.T) {
	scripted.ServersDir = "../../recorder/servers"
	dir := t.TempDir()
	for _, s := range scripted.ModernSets {
		t.Run(s.File, func(t *testing.T) {
			err := scripted.Record(context.Background(), s, filepath.Join(dir, s.File), harness(t))
			skipWithoutServers(t, err)
			if err != nil {
				t.Fatal(err)
			}
			fresh, _ := os.ReadFile(filepath.Join(dir, s.File))
			stored, err := os.ReadFile(filepath.Join(committed, s.File))
			if err != nil {
				t.Fatal(err)
			}
			if d := compare(t, stored, fresh); d != "" {
				t.Errorf("the committed fixture drifted (run mcpparity record --modern):\n%s", d)
			}
		})
	}
}

// compare is record.Compare without volatile fields, as text ("" when the
// recordings are equal).
func compare(t *testing.T, stored, fresh []byte) string {
	t.Helper()
	d, err := scripted.Compare(stored, fresh, nil)
	if err != nil {
		t.Fatal(err)
	}
	return d.String()
}

// observation is what the reference pool sees of a server: its status
// line, the tools it announces and the output of every scripted call.
type observation struct {
	Status  impl.ServerStatus
	Tools   []impl.AnnouncedTool
	Prompt  string
	Outputs []impl.CallResult
}

func observe(t *testing.T, cfg impl.MCPServerConfig, calls []scripted.Call) observation {
	t.Helper()
	return observeSettled(t, cfg, calls, nil)
}

// observeSettled is observe with settle (when not nil) called after the
// calls, before the pool closes.
func observeSettled(t *testing.T, cfg impl.MCPServerConfig, calls []scripted.Call, settle func()) observation {
	t.Helper()
	store, err := impl.NewStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save(map[string]impl.MCPServerConfig{"srv": cfg}); err != nil {
		t.Fatal(err)
	}
	pool := impl.NewPool(store, impl.Options{ConnectTimeout: func(string) time.Duration { return 3 * time.Minute }})
	defer pool.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var o observation
	st := pool.Status(ctx)
	if len(st) != 1 {
		t.Fatalf("status: %v", st)
	}
	o.Status = st[0]
	o.Status.URL, o.Status.Command, o.Status.Args = "", "", nil // where the server is, not what it is
	o.Tools, o.Prompt = pool.Tools(ctx)
	for _, c := range calls {
		o.Outputs = append(o.Outputs, pool.Call(ctx, impl.ExposedName("srv", c.Tool), c.Args, 0))
	}
	if settle != nil {
		settle()
	}
	return o
}

// answeredRequests counts the client answers to server requests an HTTP
// recording holds.
func answeredRequests(fx *fixtures.Fixture) int {
	n := 0
	for _, ex := range fx.HTTP {
		var msg struct {
			Method *string          `json:"method"`
			Result *json.RawMessage `json:"result"`
		}
		if json.Unmarshal(ex.Request.Body, &msg) == nil && msg.Method == nil && msg.Result != nil {
			n++
		}
	}
	return n
}

// awaitAnswers waits, up to a deadline, until the replay counts n answers
// to its server requests: a server request sent on a timer (server-
// everything's roots/list, 350 ms after the session starts) may land after
// the client's last call, and a client closing before it read it would
// leave it unanswered, by timing alone.
func awaitAnswers(t *testing.T, rp *replay.Replay, n int) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for rp.Report().Answers < n {
		if time.Now().After(deadline) {
			t.Fatalf("the replay counts %d answers to its server requests after a minute, want %d:\n%s", rp.Report().Answers, n, rp.Report())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFidelitySDK: what the reference observes against the replay of each
// committed SDK fixture equals what it observes against the live server.
func TestFidelitySDK(t *testing.T) {
	for _, s := range scripted.SDKSets {
		t.Run(s.File, func(t *testing.T) {
			calls, err := scripted.Script(s)
			if err != nil {
				t.Fatal(err)
			}
			var live, replayed impl.MCPServerConfig
			live.Enabled, replayed.Enabled = true, true
			switch s.Name() {
			case "sdk-stdio":
				live.Command, live.Args = harness(t)[0], []string{"sdk-server", "--stdio"}
				replayed.Command, replayed.Args = harness(t)[0], []string{"replay", "--stdio", "--fixture", filepath.Join(committed, s.File)}
			default:
				handler := sdkserver.Handler(s.Name() == "sdk-json")
				switch s.Name() {
				case "edge-sse":
					handler = sdkserver.EdgeHandler()
				case "modern-go-http":
					handler = sdkserver.ModernHandler()
				}
				srv := httptest.NewServer(handler)
				defer srv.Close()
				live.URL = srv.URL + "/mcp"
				replayed.URL = serveReplay(t, s.File)
			}
			want := observe(t, live, calls)
			got := observe(t, replayed, calls)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("replay differs from the live server (-live +replay):\n%s", d)
			}
		})
	}
}

// requireNpx skips without npx locally, and fails in CI, which provides it.
func requireNpx(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("npx"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("npx is required in CI: %v", err)
		}
		t.Skipf("npx not found (%v): the server-everything recording needs Node.js", err)
	}
}

// TestEverything records the TypeScript server-everything (npm) over stdio
// through the reference pool; the fixture decodes, keeps the third-party
// server's facts (14 tools, no discover), and the reference observes the
// same against its replay as against the live server.
func TestEverything(t *testing.T) {
	requireNpx(t)
	if testing.Short() {
		t.Skip("starts server-everything through npx")
	}
	path := filepath.Join(t.TempDir(), scripted.EverythingSet.File)
	if err := scripted.Record(context.Background(), scripted.EverythingSet, path, harness(t)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fx, err := fixtures.Decode(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if fx.Manifest.ToolCount != 14 || !strings.HasPrefix(fx.Manifest.Server, "mcp-servers/everything") {
		t.Errorf("manifest: %+v", fx.Manifest)
	}
	calls, err := scripted.Script(scripted.EverythingSet)
	if err != nil {
		t.Fatal(err)
	}
	argv := strings.Fields(scripted.EverythingCommand)
	live := impl.MCPServerConfig{Enabled: true, Command: argv[0], Args: argv[1:]}
	replayed := impl.MCPServerConfig{Enabled: true, Command: harness(t)[0], Args: []string{"replay", "--stdio", "--fixture", path}}
	want := observe(t, live, calls)
	got := observe(t, replayed, calls)
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("replay differs from the live server-everything (-live +replay):\n%s", d)
	}
	if want.Status.Error != "" || len(want.Outputs) != len(calls) {
		t.Errorf("live server-everything: %+v", want.Status)
	}
}

// TestEverythingHTTP records server-everything over its Streamable HTTP
// server through the reference pool: the reference observes the same
// against the replay as against the live server, and the probes hold what
// this server refuses where go-sdk's accepts (a wildcard Accept).
func TestEverythingHTTP(t *testing.T) {
	requireNpx(t)
	if testing.Short() {
		t.Skip("starts server-everything through npx")
	}
	set := scripted.EverythingSets[1]
	path := filepath.Join(t.TempDir(), set.File)
	if err := scripted.Record(context.Background(), set, path, harness(t)); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fx, err := fixtures.Decode(path, data)
	if err != nil {
		t.Fatal(err)
	}
	if fx.Manifest.ToolCount != 14 || fx.Manifest.Transport != fixtures.TransportHTTP {
		t.Errorf("manifest: %+v", fx.Manifest)
	}
	refused := map[string]bool{}
	for _, p := range fx.Probes {
		refused[p.Kind] = p.Response.Refused()
	}
	if !refused[probekind.AcceptWildcard] || !refused[probekind.AcceptJSONOnly] || !refused[probekind.NoContentType] {
		t.Errorf("probes refused: %v", refused)
	}
	url, stop, err := scripted.StartEverythingHTTP(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	rp, err := replay.New(fx, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs := httptest.NewServer(rp)
	defer func() { rp.Close(); rs.Close() }()
	calls, err := scripted.Script(set)
	if err != nil {
		t.Fatal(err)
	}
	want := observe(t, impl.MCPServerConfig{Enabled: true, URL: url}, calls)
	got := observeSettled(t, impl.MCPServerConfig{Enabled: true, URL: rs.URL + "/mcp"}, calls, func() { awaitAnswers(t, rp, answeredRequests(fx)) })
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("replay differs from the live server-everything (-live +replay):\n%s", d)
	}
	if rep := rp.Report(); !rep.Clean() {
		t.Errorf("replay report:\n%s", rep)
	}
}
