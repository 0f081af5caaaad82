// Package record makes the committed recordings: it drives the reference
// pool through the recording script against a live server, through the
// recorder, and writes the fixtures.
package record

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/recorder"
	"github.com/mcpparity/mcpparity/recorder/sdkserver"
	"github.com/mcpparity/mcpparity/scenarios"
)

// Set is one recording: its file below fixtures/recordings and how it is
// made.
type Set struct {
	File string
	// Mode is "sse" or "json" (the SDK server over Streamable HTTP),
	// "stdio" (the SDK server as a process), "edge" (the edge server over
	// Streamable HTTP), "everything" (the TypeScript server-everything
	// through npx, over stdio), "everything-http" (the same over its
	// Streamable HTTP server).
	Mode string
}

// SDKSets are the recordings of the go-sdk servers.
var SDKSets = []Set{{"sdk/sse.json", "sse"}, {"sdk/json.json", "json"}, {"sdk/stdio.json", "stdio"}, {"edge/sse.json", "edge"}}

// EverythingSet is the stdio recording of the third-party server.
var EverythingSet = Set{"everything/stdio.json", "everything"}

// EverythingSets are the recordings of the third-party server: over stdio,
// and over Streamable HTTP (its own server, other refusals than go-sdk's).
var EverythingSets = []Set{EverythingSet, {"everything/http.json", "everything-http"}}

// EverythingCommand runs server-everything (first start downloads it).
const EverythingCommand = "npx -y @modelcontextprotocol/server-everything"

// EverythingModule and EverythingVersion name server-everything's SDK in
// its fixtures' manifests.
const (
	EverythingModule  = "@modelcontextprotocol/server-everything"
	EverythingVersion = "latest (npm)"
)

// ErrNoNpx is returned for the everything set when npx is not on PATH.
var ErrNoNpx = errors.New("npx is not on PATH (server-everything is started through npx)")

// Script returns the calls made while recording a set: scenarios/calls.json
// for the SDK server, calls-edge.json for the edge server,
// calls-everything.json for server-everything.
func Script(s Set) ([]Call, error) {
	name := "calls.json"
	switch s.Mode {
	case "everything", "everything-http":
		name = "calls-everything.json"
	case "edge":
		name = "calls-edge.json"
	}
	data, err := scenarios.Files.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var calls []Call
	if err := decodeJSON(data, &calls); err != nil {
		return nil, fmt.Errorf("scenarios/%s: %w", name, err)
	}
	if err := checkCalls(calls); err != nil {
		return nil, fmt.Errorf("scenarios/%s: %w", name, err)
	}
	return calls, nil
}

// Record makes one recording into path. harness is the command line of
// this harness (its "record" and "sdk-server" subcommands run the stdio
// recorder and server).
func Record(ctx context.Context, s Set, path string, harness []string) error {
	calls, err := Script(s)
	if err != nil {
		return err
	}
	name := strings.ReplaceAll(strings.TrimSuffix(s.File, ".json"), "/", "-")
	src := source{name: name, server: "sdk", timeout: 60 * time.Second}
	if strings.HasPrefix(s.Mode, "everything") {
		src.timeout = everythingStart // first npx start downloads the package
	}
	switch s.Mode {
	case "sse", "json", "edge", "everything-http":
		upstream, module, version, stop, err := startHTTP(ctx, s.Mode)
		if err != nil {
			return err
		}
		defer stop()
		src.url, src.module, src.version = upstream, module, version
	case "stdio":
		src.command = strings.Join(quoteAll(harness), " ") + " sdk-server --stdio"
		src.module, src.version = recorder.GoSDK()
	case "everything":
		if _, err := exec.LookPath("npx"); err != nil {
			return ErrNoNpx
		}
		src.command, src.module, src.version = EverythingCommand, EverythingModule, EverythingVersion
	default:
		return fmt.Errorf("unknown recording mode %q", s.Mode)
	}
	return src.record(ctx, path, harness, calls)
}

// source is a server to record: an HTTP endpoint already serving (url) or
// a stdio command line (command), and how its fixture is named.
type source struct {
	url, command    string
	name            string // manifest.name
	module, version string // the server's SDK, for the manifest
	secrets         []string
	server          string        // its name in the pool's store
	timeout         time.Duration // bound of the whole recording
}

// record drives the reference pool against the server through the
// recorder and writes the fixture into path.
func (src source) record(ctx context.Context, path string, harness []string, calls []Call) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	cfg := impl.MCPServerConfig{Enabled: true}
	fixture := recorder.Config{Name: src.name, SDKModule: src.module, SDKVersion: src.version, Secrets: src.secrets}
	var finish func() error
	if src.url != "" {
		u, err := url.Parse(src.url)
		if err != nil {
			return fmt.Errorf("upstream %q: %w", src.url, err)
		}
		proxy, err := recorder.NewProxy(src.url, nil)
		if err != nil {
			return err
		}
		defer proxy.Close()
		front := httptest.NewServer(proxy)
		defer front.Close()
		cfg.URL = front.URL + u.RequestURI()
		finish = func() error { return finishHTTP(ctx, proxy, path, fixture) }
	} else {
		finish = stdioRecorder(src, path, harness, &cfg)
	}
	if err := drive(ctx, src, cfg, calls); err != nil {
		return err
	}
	return finish()
}

// startHTTP starts the live server of an HTTP mode: the go-sdk servers in
// process, server-everything through npx. It returns the endpoint, the
// server's SDK and how to stop it.
func startHTTP(ctx context.Context, mode string) (url, module, version string, stop func(), err error) {
	if mode == "everything-http" {
		url, stop, err = StartEverythingHTTP(ctx)
		return url, EverythingModule, EverythingVersion, stop, err
	}
	handler := sdkserver.Handler(mode == "json")
	if mode == "edge" {
		handler = sdkserver.EdgeHandler()
	}
	live := httptest.NewServer(handler)
	module, version = recorder.GoSDK()
	return live.URL + "/mcp", module, version, live.Close, nil
}

// finishHTTP waits for the pool's DELETE, sends the probes and writes the
// fixture.
func finishHTTP(ctx context.Context, proxy *recorder.Proxy, path string, cfg recorder.Config) error {
	select {
	case <-proxy.Ended():
	case <-time.After(10 * time.Second):
		return errors.New("the session did not end (no DELETE)")
	}
	if err := proxy.Probe(ctx); err != nil {
		return fmt.Errorf("recorder: %w", err)
	}
	_ = proxy.Close()
	if errs := proxy.Errors(); len(errs) > 0 {
		return fmt.Errorf("recorder: %w", errors.Join(errs...))
	}
	fx, err := recorder.Build(proxy.Recording(), cfg)
	if err != nil {
		return err
	}
	return recorder.WriteFile(path, fx)
}

// stdioRecorder makes the pool's stdio server the recorder, which runs the
// real server and writes the fixture when the pool closes its stdin.
func stdioRecorder(src source, path string, harness []string, cfg *impl.MCPServerConfig) func() error {
	cfg.Command = harness[0]
	cfg.Args = append(append([]string{}, harness[1:]...), "record", "--upstream-cmd", src.command,
		"--out", path, "--name", src.name, "--sdk-module", src.module, "--sdk-version", src.version)
	for _, v := range src.secrets {
		cfg.Args = append(cfg.Args, "--secret", v)
	}
	before, _ := os.Stat(path)
	return func() error {
		after, err := os.Stat(path)
		if err != nil || (before != nil && os.SameFile(before, after) && after.ModTime().Equal(before.ModTime())) {
			return fmt.Errorf("the stdio recorder did not write %s", path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		_, err = fixtures.Decode(path, data)
		return err
	}
}

// drive runs the reference pool through the script: status (initialize,
// initialized, tools/list), every call, then close.
func drive(ctx context.Context, src source, cfg impl.MCPServerConfig, calls []Call) error {
	state, err := os.MkdirTemp("", "mcpparity-record-state-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(state)
	store, err := impl.NewStore(state)
	if err != nil {
		return err
	}
	if err := store.Save(map[string]impl.MCPServerConfig{src.server: cfg}); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, src.timeout)
	defer cancel()
	pool := impl.NewPool(store, impl.Options{
		ConnectTimeout: func(string) time.Duration { return src.timeout },
		ServerStderr:   os.Stderr,
	})

	if st := pool.Status(ctx); len(st) != 1 || !st[0].Connected || st[0].Error != "" {
		err = fmt.Errorf("the live server did not connect: %+v", st)
	}
	for _, c := range calls {
		if err != nil {
			break
		}
		res := pool.Call(ctx, impl.ExposedName(src.server, c.Tool), c.Args, 0)
		if got := outcomeOf(res.Output); !c.accepts(got) {
			err = fmt.Errorf("call %s: expected %s, got %s: %s", c.Tool, c.expected(), got, res.Output)
		}
	}
	if cerr := pool.Close(); err == nil {
		err = cerr
	}
	return err
}

func quoteAll(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return out
}

// Compare returns a readable diff of the lines that differ between a
// stored fixture and a fresh recording ("" when they are equal).
func Compare(stored, fresh []byte) string {
	if bytes.Equal(stored, fresh) {
		return ""
	}
	a, b := strings.Split(string(stored), "\n"), strings.Split(string(fresh), "\n")
	var out strings.Builder
	shown := 0
	for i := 0; i < max(len(a), len(b)) && shown < 40; i++ {
		var x, y string
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			fmt.Fprintf(&out, "  line %d\n  - stored: %s\n  + fresh:  %s\n", i+1, x, y)
			shown++
		}
	}
	if out.Len() == 0 {
		out.WriteString("  (the files differ in their trailing bytes)\n")
	}
	return out.String()
}
