// Package scripted makes recordings by script: it drives the reference pool
// through a call script against a live server, through the recorder, and
// writes the fixtures (the embedded sets, a suite's recordings), and says
// how a fresh recording drifted from the stored one.
package scripted

import (
	"context"
	"errors"
	"fmt"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/mcpparity/mcpparity/internal/strictjson"
	"github.com/mcpparity/mcpparity/recorder"
	"github.com/mcpparity/mcpparity/scenarios"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Set is one recording: its file below fixtures/recordings and how it is
// made.
type Set struct {
	// File is the fixture's path below the recordings folder, e.g.
	// "sdk/sse.json": its folder names the server, its base name the
	// transport (Name).
	File string
}

// Name is the set's server and transport, as every place spells them:
// "sdk-sse", "edge-sse", "everything-stdio", "everything-http",
// "modern-ts-reject-stdio" (the fixture's manifest.name too).
func (s Set) Name() string {
	return strings.ReplaceAll(strings.TrimSuffix(s.File, ".json"), "/", "-")
}

// SDKSets are the recordings of the go-sdk servers.
var SDKSets = []Set{{"sdk/sse.json"}, {"sdk/json.json"}, {"sdk/stdio.json"},
	{"edge/sse.json"}, {"modern/go-http.json"}}

// ModernSets are the recordings of the servers of the 2026-07-28 revision
// on the TypeScript and Python SDKs (recorder/servers: their packages
// installed first).
var ModernSets = []Set{{"modern/ts-http.json"}, {"modern/ts-stdio.json"},
	{"modern/ts-reject-http.json"}, {"modern/ts-reject-stdio.json"},
	{"modern/py-http.json"}, {"modern/py-stdio.json"}}

// EverythingSet is the stdio recording of the third-party server.
var EverythingSet = Set{"everything/stdio.json"}

// EverythingSets are the recordings of the third-party server: over stdio,
// and over Streamable HTTP (its own server, other refusals than go-sdk's).
var EverythingSets = []Set{EverythingSet, {"everything/http.json"}}

// EverythingModule and EverythingVersion name server-everything, pinned,
// in its fixtures' manifests.
const (
	EverythingModule  = "@modelcontextprotocol/server-everything"
	EverythingVersion = "2026.8.31"
)

// EverythingCommand runs server-everything at its pinned version (the
// first start downloads it).
const EverythingCommand = "npx -y " + EverythingModule + "@" + EverythingVersion

// ErrNoNpx is returned for the everything set when npx is not on PATH.
var ErrNoNpx = errors.New("npx is not on PATH (server-everything is started through npx)")

// Script returns the calls made while recording a set: scenarios/calls.json
// for the SDK server, calls-edge.json for the edge server,
// calls-everything.json for server-everything, calls-modern.json for the
// servers of the 2026-07-28 revision.
func Script(s Set) ([]Call, error) {
	name := "calls.json"
	switch server, _, _ := strings.Cut(s.File, "/"); server {
	case "everything":
		name = "calls-everything.json"
	case "edge":
		name = "calls-edge.json"
	case "modern":
		name = "calls-modern.json"
	}
	data, err := scenarios.Files.ReadFile(name)
	if err != nil {
		return nil, err
	}
	var calls []Call
	if err := strictjson.Decode("scenarios/"+name, "call script", data, &calls); err != nil {
		return nil, err
	}
	if err := validateCalls(calls); err != nil {
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
	src := source{name: s.Name(), server: "sdk", timeout: 60 * time.Second}
	if strings.HasPrefix(s.Name(), "everything-") {
		src.timeout = everythingStart // first npx start downloads the package
	}
	stop, err := src.start(ctx, s, harness)
	if err != nil {
		return err
	}
	defer stop()
	return src.record(ctx, path, harness, calls)
}

// Live starts the live server of a set, as record does: it returns its
// endpoint (HTTP) or its command line (stdio), and how to stop it.
func Live(ctx context.Context, s Set, harness []string) (url, command string, stop func(), err error) {
	var src source
	stop, err = src.start(ctx, s, harness)
	return src.url, src.command, stop, err
}

// start starts the set's server and sets src to reach it: an endpoint
// (url), or a command line; stop ends what it started.
func (src *source) start(ctx context.Context, s Set, harness []string) (stop func(), err error) {
	stop = func() {}
	switch name := s.Name(); name {
	case "sdk-sse", "sdk-json", "edge-sse", "everything-http", "modern-go-http":
		src.url, src.module, src.version, stop, err = startHTTP(ctx, name)
	case "sdk-stdio":
		src.command = strings.Join(quoteAll(harness), " ") + " sdk-server --stdio"
		src.module, src.version = recorder.GoSDK()
	case "everything-stdio":
		if _, err := exec.LookPath("npx"); err != nil {
			return stop, ErrNoNpx
		}
		src.command, src.module, src.version = EverythingCommand, EverythingModule, EverythingVersion
	default:
		srv, args, ok := modernServer(name)
		if !ok {
			return stop, fmt.Errorf("no server records %s", s.File)
		}
		stop, err = src.startSDKServer(ctx, srv, args, strings.HasSuffix(name, "-http"))
	}
	if err != nil {
		return func() {}, err
	}
	return stop, nil
}

// source is a server to record: an HTTP endpoint already serving (url) or
// a stdio command line (command), and how its fixture is named.
type source struct {
	url, command    string
	name            string // manifest.name
	module, version string // the server's SDK, for the manifest
	secrets         []string
	patterns        []*regexp.Regexp // every match a secret
	probes          recorder.ProbeOptions
	server          string        // its name in the pool's store
	timeout         time.Duration // bound of the whole recording
}

// record drives the reference pool, then a client of the 2026-07-28
// revision, against the server through the recorder, and writes the
// fixture into path.
func (src source) record(ctx context.Context, path string, harness []string, calls []Call) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	fixture := recorder.Config{Name: src.name, SDKModule: src.module, SDKVersion: src.version, Secrets: src.secrets, SecretPatterns: src.patterns}
	var fx *fixtures.Fixture
	var refusal string
	var err error
	if src.url != "" {
		fx, refusal, err = src.recordHTTP(ctx, fixture, calls)
	} else {
		fx, refusal, err = src.recordStdio(ctx, harness, fixture, calls)
	}
	if err != nil {
		return err
	}
	if refusal != "" && !refusedHandshake(fx) {
		return fmt.Errorf("the live server did not connect: %s", refusal)
	}
	return recorder.WriteFile(path, fx)
}

// recordHTTP records both clients through a recording proxy, then its
// probes.
func (src source) recordHTTP(ctx context.Context, fixture recorder.Config, calls []Call) (*fixtures.Fixture, string, error) {
	u, err := url.Parse(src.url)
	if err != nil {
		return nil, "", fmt.Errorf("upstream %q: %w", src.url, err)
	}
	if err := recorder.Reachable(ctx, u); err != nil {
		return nil, "", err
	}
	proxy, err := recorder.NewProxy(src.url, &recorder.ProxyOptions{Probes: src.probes})
	if err != nil {
		return nil, "", err
	}
	defer proxy.Close()
	front := httptest.NewServer(proxy)
	defer front.Close()
	endpoint := front.URL + u.RequestURI()
	refusal, err := drive(ctx, src, impl.MCPServerConfig{Enabled: true, URL: endpoint}, calls)
	if err != nil {
		return nil, "", upstreamFirst(proxy, err)
	}
	if proxy.HandedOutSession() {
		select {
		case <-proxy.Ended():
		case <-time.After(10 * time.Second):
			return nil, "", errors.New("the session did not end (no DELETE)")
		}
	}
	if err := driveModern(ctx, src, &mcp.StreamableClientTransport{Endpoint: endpoint}, calls); err != nil {
		return nil, "", upstreamFirst(proxy, err)
	}
	if err := proxy.Probe(ctx); err != nil {
		return nil, "", fmt.Errorf("recorder: %w", err)
	}
	_ = proxy.Close()
	if errs := proxy.Errors(); len(errs) > 0 {
		return nil, "", fmt.Errorf("recorder: %w", errors.Join(errs...))
	}
	fx, err := recorder.Build(proxy.Recording(), fixture)
	return fx, refusal, err
}

// upstreamFirst is err, or what went wrong upstream when the recorder saw
// it: a client's error then only echoes the recorder's answer (502).
func upstreamFirst(proxy *recorder.Proxy, err error) error {
	if errs := proxy.Errors(); len(errs) > 0 {
		return fmt.Errorf("recorder: %w", errors.Join(errs...))
	}
	return err
}

// recordStdio records the reference pool through the stdio recorder (the
// pool's server command: the harness's record-proxy --upstream-cmd --out-dir,
// one file per server process the pool starts, written as the lines
// pass), then a client of the
// 2026-07-28 revision through a recorder in this process (the last
// process of the fixture), then the stdio probes.
func (src source) recordStdio(ctx context.Context, harness []string, fixture recorder.Config, calls []Call) (*fixtures.Fixture, string, error) {
	if _, err := recorder.ServerCommand(src.command); err != nil {
		return nil, "", err
	}
	dir, err := os.MkdirTemp("", "mcpparity-record-processes-")
	if err != nil {
		return nil, "", err
	}
	defer os.RemoveAll(dir)
	cfg := impl.MCPServerConfig{Enabled: true, Command: harness[0]}
	cfg.Args = append(append([]string{}, harness[1:]...), "record-proxy", "--upstream-cmd", src.command, "--out-dir", dir)
	refusal, err := drive(ctx, src, cfg, calls)
	if err != nil {
		return nil, "", err
	}
	lines, err := recorder.ReadProcesses(dir)
	if err != nil {
		return nil, "", err
	}
	cmd, err := recorder.ServerCommand(src.command)
	if err != nil {
		return nil, "", err
	}
	cmd.Stderr = os.Stderr
	rec := recorder.NewStdio(cmd)
	if err := driveModern(ctx, src, rec.Transport(), calls); err != nil {
		return nil, "", err
	}
	if err := rec.Wait(ctx); err != nil {
		return nil, "", err
	}
	last := lines[len(lines)-1].ProcessOf() + 1
	for _, l := range rec.Recording().Lines {
		l.Process = last
		lines = append(lines, l)
	}
	probes, err := recorder.ProbeStdio(ctx, src.command, lines, src.probes)
	if err != nil {
		return nil, "", err
	}
	fx, err := recorder.Build(recorder.Recording{Transport: fixtures.TransportStdio, Lines: lines, Probes: probes}, fixture)
	return fx, refusal, err
}

// drive runs the reference pool through the script: status (initialize,
// initialized, tools/list), every call, then close. refusal is the
// status's error when the server did not connect: the calls are then left
// to the client of the 2026-07-28 revision (see refusedHandshake).
func drive(ctx context.Context, src source, cfg impl.MCPServerConfig, calls []Call) (refusal string, err error) {
	state, err := os.MkdirTemp("", "mcpparity-record-state-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(state)
	store, err := impl.NewStore(state)
	if err != nil {
		return "", err
	}
	if err := store.Save(map[string]impl.MCPServerConfig{src.server: cfg}); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, src.timeout)
	defer cancel()
	pool := impl.NewPool(store, impl.Options{
		ConnectTimeout: func(string) time.Duration { return src.timeout },
		ServerStderr:   os.Stderr,
	})

	switch st := pool.Status(ctx); {
	case len(st) != 1:
		err = fmt.Errorf("the pool shows %d servers, want 1", len(st))
	case !st[0].Connected:
		refusal = st[0].Error
	case st[0].Error != "":
		err = fmt.Errorf("the live server's first tools/list failed: %s", st[0].Error)
	default:
		for _, c := range calls {
			res := pool.Call(ctx, impl.ExposedName(src.server, c.Tool), c.Args, 0)
			if got := outcomeOf(res.Output); !c.accepts(got) {
				err = fmt.Errorf("call %s: expected %s, got %s: %s", c.Tool, c.expected(), got, res.Output)
				break
			}
		}
	}
	if cerr := pool.Close(); err == nil {
		err = cerr
	}
	return refusal, err
}

// startHTTP starts the live server of an HTTP mode: the go-sdk servers in
// process, server-everything through npx. It returns the endpoint, the
// server's SDK and how to stop it.
func startHTTP(ctx context.Context, name string) (url, module, version string, stop func(), err error) {
	if name == "everything-http" {
		url, stop, err = StartEverythingHTTP(ctx)
		return url, EverythingModule, EverythingVersion, stop, err
	}
	handler := sdkserver.Handler(name == "sdk-json")
	switch name {
	case "edge-sse":
		handler = sdkserver.EdgeHandler()
	case "modern-go-http":
		handler = sdkserver.ModernHandler()
	}
	live := httptest.NewServer(handler)
	module, version = recorder.GoSDK()
	return live.URL + "/mcp", module, version, live.Close, nil
}

func quoteAll(argv []string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return out
}
