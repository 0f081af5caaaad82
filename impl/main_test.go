package impl

// Test scaffolding: the helper-process switch, goroutine-leak check, and the
// fixture every pool test builds on (a bbolt state folder in t.TempDir(),
// in-process go-sdk servers over Streamable HTTP, stdio servers re-executed
// from this test binary, and a check that no process outlives the test).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	bolt "go.etcd.io/bbolt"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(envServerKind) != "" {
		// Re-executed as a stdio MCP server (or its grandchild).
		os.Exit(testServerMain())
	}
	// Every test closes its pools, servers and transports, so no goroutine
	// is expected to survive; nothing is ignored.
	goleak.VerifyTestMain(m)
}

// waitTimeout bounds every wait of the suite: a condition that does not hold
// by then is a failure, never a hang.
const waitTimeout = 10 * time.Second

// waitFor polls cond until it holds, failing the test after waitTimeout.
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(waitTimeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// recv waits for a value of ch, failing the test after waitTimeout.
func recv[T any](t testing.TB, what string, ch <-chan T) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitTimeout):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

// fixture is one test's world: a fresh state folder, a pool created on
// first use, the MCP servers it talks to, and the files stdio helpers
// record their pids in.
type fixture struct {
	t         *testing.T
	dir       string
	opts      Options
	transport *http.Transport
	starts    string // pids of started stdio servers
	children  string // pids of their grandchildren

	pool     *Pool
	api      *httptest.Server
	servers  []*mcpHTTP
	closeMu  sync.Mutex
	isClosed bool
}

// newFixture returns a fixture; opts tweaks the pool's options (defaults:
// 10 s handshake and call timeouts, a transport of the fixture's own).
func newFixture(t *testing.T, opts ...func(*Options)) *fixture {
	t.Helper()
	dir := t.TempDir()
	f := &fixture{
		t:         t,
		dir:       dir,
		transport: &http.Transport{},
		starts:    filepath.Join(dir, "starts"),
		children:  filepath.Join(dir, "children"),
	}
	f.opts = Options{
		ConnectTimeout: func(string) time.Duration { return waitTimeout },
		CallTimeout:    waitTimeout,
		HTTPTransport:  f.transport,
	}
	for _, o := range opts {
		o(&f.opts)
	}
	t.Cleanup(f.close)
	return f
}

// stateDir is the folder of the bbolt store.
func (f *fixture) stateDir() string { return filepath.Join(f.dir, "state") }

// Pool returns the fixture's pool, creating it on first use.
func (f *fixture) Pool() *Pool {
	f.t.Helper()
	if f.pool == nil {
		store, err := NewStore(f.stateDir())
		if err != nil {
			f.t.Fatal(err)
		}
		f.pool = NewPool(store, f.opts)
	}
	return f.pool
}

// close ends, in order: the contract server, the pool (sessions, stdio
// processes), the MCP servers, idle connections; then checks that every
// stdio server and grandchild started by the test is gone.
func (f *fixture) close() {
	f.closeMu.Lock()
	defer f.closeMu.Unlock()
	if f.isClosed {
		return
	}
	f.isClosed = true
	if f.api != nil {
		f.api.Close()
	}
	if f.pool != nil {
		_ = f.pool.Close()
	}
	for _, s := range f.servers {
		s.close()
	}
	f.transport.CloseIdleConnections()
	for _, pid := range readPids(f.t, f.starts) {
		waitFor(f.t, fmt.Sprintf("stdio server %d to be gone", pid), func() bool { return processGone(pid, false) })
	}
	for _, pid := range readPids(f.t, f.children) {
		waitFor(f.t, fmt.Sprintf("grandchild %d to be gone", pid), func() bool { return processGone(pid, true) })
	}
}

// readPids reads a pid file written by appendPid.
func readPids(t testing.TB, path string) []int {
	t.Helper()
	raw, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, l := range strings.Fields(string(raw)) {
		n, err := strconv.Atoi(l)
		if err != nil {
			t.Fatalf("pid file %s: %v", path, err)
		}
		pids = append(pids, n)
	}
	return pids
}

// processGone reports whether pid no longer runs. A direct child must be
// reaped too (no zombie left by the pool); a grandchild, reparented to PID 1
// which may not reap, counts as gone once it is a zombie.
func processGone(pid int, zombieOK bool) bool {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	// Format: "pid (comm) S ...": the state follows the last ')'.
	s := string(raw)
	i := strings.LastIndexByte(s, ')')
	if i < 0 || i+2 >= len(s) {
		return false
	}
	return zombieOK && (s[i+2] == 'Z' || s[i+2] == 'X')
}

// stdio returns the configuration of a stdio server re-executed from this
// test binary; env adds to the helper's environment (envServer*).
func (f *fixture) stdio(env map[string]string) MCPServerConfig {
	e := map[string]string{
		envServerKind:   "mcp",
		envServerStarts: f.starts,
		// Under -race, a process sleeps 1 s at exit by default.
		"GORACE": "atexit_sleep_ms=0",
	}
	for k, v := range env {
		e[k] = v
	}
	return MCPServerConfig{Command: os.Args[0], Env: e, Enabled: true}
}

// status connects the pool's servers and returns their status: a call
// never connects a server (P7.3), so tests that call a tool start here.
func (f *fixture) status() []ServerStatus {
	f.t.Helper()
	return f.Pool().Status(ctx(f.t))
}

// startCount is the number of stdio servers started so far.
func (f *fixture) startCount() int { return len(readPids(f.t, f.starts)) }

// seed writes the configuration directly to the store.
func (f *fixture) seed(cfg map[string]MCPServerConfig) {
	f.t.Helper()
	raw, err := json.Marshal(cfg)
	if err != nil {
		f.t.Fatal(err)
	}
	f.seedRaw(string(raw))
}

// seedRaw writes raw as the value of state/mcp in the bbolt file, as the
// harness does (the API refuses some of the states tests need).
func (f *fixture) seedRaw(raw string) {
	f.t.Helper()
	if err := os.MkdirAll(f.stateDir(), 0o755); err != nil {
		f.t.Fatal(err)
	}
	db, err := bolt.Open(filepath.Join(f.stateDir(), StoreFile), 0o600, &bolt.Options{Timeout: time.Second})
	if err != nil {
		f.t.Fatal(err)
	}
	defer db.Close()
	err = db.Update(func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists([]byte("state"))
		if err != nil {
			return err
		}
		return b.Put([]byte("mcp"), []byte(raw))
	})
	if err != nil {
		f.t.Fatal(err)
	}
}

// stored reads state/mcp from the bbolt file itself (C8), not from the
// pool: "" when the file, bucket or key is missing.
func (f *fixture) stored() string {
	f.t.Helper()
	path := filepath.Join(f.stateDir(), StoreFile)
	if _, err := os.Stat(path); os.IsNotExist(err) {
		return ""
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: time.Second, ReadOnly: true})
	if err != nil {
		f.t.Fatal(err)
	}
	defer db.Close()
	var out string
	_ = db.View(func(tx *bolt.Tx) error {
		if b := tx.Bucket([]byte("state")); b != nil {
			out = string(b.Get([]byte("mcp")))
		}
		return nil
	})
	return out
}

// mcpHTTP is an in-process go-sdk server over Streamable HTTP, with a
// record of every request it received.
type mcpHTTP struct {
	URL    string
	server *mcp.Server
	ts     *httptest.Server
	stop   chan struct{}
	once   sync.Once

	mu   sync.Mutex
	reqs []seenRequest
}

type seenRequest struct {
	Method    string // HTTP method
	RPCMethod string // JSON-RPC method of a POST, if any
	Header    http.Header
	Body      []byte // of a POST
}

// httpServer starts an MCP server over Streamable HTTP, answering in JSON
// (jsonMode) or SSE.
func (f *fixture) httpServer(jsonMode bool, o testServerOptions) *mcpHTTP {
	f.t.Helper()
	s := &mcpHTTP{stop: make(chan struct{})}
	o.Stop = s.stop
	s.server = newTestServer(o)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.server },
		&mcp.StreamableHTTPOptions{JSONResponse: jsonMode})
	s.ts = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen := seenRequest{Method: r.Method, Header: r.Header.Clone()}
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var msg struct {
				Method string `json:"method"`
			}
			_ = json.Unmarshal(body, &msg)
			seen.RPCMethod = msg.Method
			seen.Body = body
		}
		s.mu.Lock()
		s.reqs = append(s.reqs, seen)
		s.mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	s.URL = s.ts.URL
	f.servers = append(f.servers, s)
	return s
}

// release ends the calls of block and block_once in flight.
func (s *mcpHTTP) release() { s.once.Do(func() { close(s.stop) }) }

func (s *mcpHTTP) close() {
	s.release()
	for ss := range s.server.Sessions() {
		_ = ss.Close()
	}
	s.ts.Close()
}

func (s *mcpHTTP) requests() []seenRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]seenRequest(nil), s.reqs...)
}

// rpcMethods lists the JSON-RPC methods POSTed so far, in order.
func (s *mcpHTTP) rpcMethods() []string {
	var out []string
	for _, r := range s.requests() {
		if r.RPCMethod != "" {
			out = append(out, r.RPCMethod)
		}
	}
	return out
}

// count is how many requests of a JSON-RPC method were POSTed so far.
func (s *mcpHTTP) count(method string) int {
	n := 0
	for _, m := range s.rpcMethods() {
		if m == method {
			n++
		}
	}
	return n
}

// inits counts the sessions opened: initialize requests received.
func (s *mcpHTTP) inits() int { return s.count("initialize") }

// apiURL serves the contract over the fixture's pool and returns its base.
func (f *fixture) apiURL() string {
	if f.api == nil {
		f.api = httptest.NewServer(Handler(f.Pool()))
	}
	return f.api.URL
}

// do sends one request to the contract server.
func (f *fixture) do(method, path, body string) (int, string) {
	f.t.Helper()
	base := f.apiURL()
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base+path, strings.NewReader(body))
	if err != nil {
		f.t.Fatal(err)
	}
	resp, err := f.api.Client().Do(req)
	if err != nil {
		f.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		f.t.Fatal(err)
	}
	return resp.StatusCode, string(raw)
}

// ctx is a context bounded by waitTimeout, cancelled when the test ends.
func ctx(t testing.TB) context.Context {
	c, cancel := context.WithTimeout(context.Background(), waitTimeout)
	t.Cleanup(cancel)
	return c
}

// waitGoroutines waits until n goroutines have fn on their stack.
func waitGoroutines(t testing.TB, fn string, n int) {
	t.Helper()
	waitFor(t, fmt.Sprintf("%d goroutines in %s", n, fn), func() bool {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		count := 0
		for _, g := range strings.Split(string(buf), "\n\n") {
			if strings.Contains(g, fn) {
				count++
			}
		}
		return count >= n
	})
}

// jsonString is s as a JSON string literal (for expected raw JSON).
func jsonString(s string) string {
	raw, _ := json.Marshal(s)
	return string(raw)
}
