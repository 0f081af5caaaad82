package fuzz_test

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/golden"
	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/fuzz"
	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
	"github.com/mcpparity/mcpparity/internal/verdict"
)

// harness is this test binary: TestMain runs the subcommands that stdio
// servers are started as.
func harness(t testing.TB) []string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return []string{exe}
}

func newRunner(t testing.TB, cfg runner.Config) *fuzz.Runner {
	h := harness(t)
	cfg.Harness = h
	return &fuzz.Runner{Ref: runner.Config{Target: target.RefTarget{}, Harness: h}, Target: cfg}
}

// logWriter writes a run's lines to the test log.
type logWriter struct{ t testing.TB }

func (w logWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// TestRefAgainstRef: the reference against itself differs nowhere, on a
// fixed set of sequences: a difference would be one the fuzzer made (a
// step whose observation depends on timing).
func TestRefAgainstRef(t *testing.T) {
	r := newRunner(t, runner.Config{Target: target.RefTarget{}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := fuzz.Run(ctx, r, fuzz.Options{Seed: 20260101, Sequences: 24, Duration: 4 * time.Minute, Log: logWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Finding != nil {
		t.Fatalf("the reference differs from itself (seed %d):\n%s", rep.Finding.Seed, details(rep.Finding))
	}
	if rep.Sequences != 24 {
		t.Errorf("%d sequences run, want 24", rep.Sequences)
	}
	t.Logf("%d sequences, %d steps in %v", rep.Sequences, rep.Steps, rep.Elapsed)
}

// TestRefAgainstPorts: each port (built) differs from the reference
// nowhere on a fixed set of sequences; a divergence is printed as the
// scenario it shrank to.
func TestRefAgainstPorts(t *testing.T) {
	for _, p := range []struct {
		name, built, tool, build string
		seed                     uint64
		era                      string // "": each sequence draws its own
	}{
		{"typescript", "dist/main.js", "node", "cd ports/typescript && npm ci && npm run build", 20260102, ""},
		{"rust", "target/release/mcpparity-rust", "cargo", "cd ports/rust && cargo build --release --locked", 20260103, ""},
	} {
		t.Run(p.name, func(t *testing.T) {
			dir := filepath.Join("..", "..", "ports", p.name)
			needPort(t, p.tool, filepath.Join(dir, p.built), p.build)
			fuzzPort(t, filepath.Join(dir, "target.yaml"), p.seed, p.era)
		})
	}
}

func fuzzPort(t *testing.T, file string, seed uint64, era string) {
	cfg := runner.Config{}
	tf, err := target.LoadTargetFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Target, err = target.ParseTarget(tf.Target); err != nil {
		t.Fatal(err)
	}
	if cfg.Store, err = tf.StoreFor(); err != nil {
		t.Fatal(err)
	}
	cfg.Vars = tf.Env
	r := newRunner(t, cfg)
	r.Deviations = tf.Deviations
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	rep, err := fuzz.Run(ctx, r, fuzz.Options{Seed: seed, Sequences: 12, Duration: 3 * time.Minute, ShrinkRuns: 60, Log: logWriter{t}, Era: era})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Finding; f != nil {
		dir := t.TempDir()
		w, werr := fuzz.Write(dir, f.Shrunk.Scenario, f.Shrunk.Era, f.Outcome.Golden, nil)
		scenario, _ := os.ReadFile(w.Scenario)
		t.Fatalf("the port differs from the reference (seed %d, write: %v):\n%s\nscenario:\n%s", f.Seed, werr, details(f), scenario)
	}
	t.Logf("%d sequences, %d steps in %v", rep.Sequences, rep.Steps, rep.Elapsed)
}

// needPort skips without the port's tool or its build, except under
// CI=true.
func needPort(t *testing.T, tool, built, build string) {
	t.Helper()
	missing := ""
	if _, err := exec.LookPath(tool); err != nil {
		missing = tool + " is not on PATH"
	} else if _, err := os.Stat(built); err != nil {
		missing = built + " is missing: build the port (" + build + ")"
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: .ci/run installs the tools and builds the ports)", missing)
	}
	t.Skip(missing)
}

func details(f *fuzz.Finding) string {
	var b bytes.Buffer
	report.WriteDetails(&b, []report.Result{f.Outcome.Result})
	return b.String()
}

// TestFindShrinkWrite: against a target that writes U+2028 raw in a call's
// label (J1.2), the fuzzer finds it, shrinks it to a few steps and writes a
// scenario that the reference passes and that target fails.
func TestFindShrinkWrite(t *testing.T) {
	bad := &rewriting{fix: func(path string, body []byte) []byte {
		if path != "/internal/facade/v1/mcp/call" {
			return body
		}
		return bytes.ReplaceAll(body, []byte(`\\u2028`), []byte("\u2028"))
	}}
	r := newRunner(t, runner.Config{Target: bad})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	rep, err := fuzz.Run(ctx, r, fuzz.Options{Seed: 7, Sequences: 40, Duration: 4 * time.Minute, Log: logWriter{t}})
	if err != nil {
		t.Fatal(err)
	}
	f := rep.Finding
	if f == nil {
		t.Fatalf("no divergence found in %d sequences", rep.Sequences)
	}
	if n := len(f.Shrunk.Scenario.Steps); n > 3 || n >= len(f.Original.Scenario.Steps) {
		t.Errorf("shrunk from %d to %d steps", len(f.Original.Scenario.Steps), n)
	}
	dir := t.TempDir()
	shared, err := r.Reference(ctx, f.Shrunk.Scenario, impl.EraHandshake)
	if err != nil {
		t.Fatal(err)
	}
	w, err := fuzz.Write(dir, f.Shrunk.Scenario, f.Shrunk.Era, f.Outcome.Golden, shared)
	if err != nil {
		t.Fatal(err)
	}
	scs, err := scenario.LoadScenarios(os.DirFS(dir), "scenarios")
	if err != nil || len(scs) != 1 {
		t.Fatalf("the scenario written does not load: %v", err)
	}
	golden := func(name, era string) ([]byte, error) { return golden.Read(dir, name, era) }
	for target, want := range map[target.Target]verdict.Verdict{target.RefTarget{}: verdict.Pass, bad: verdict.Fail} {
		cfg := runner.Config{Target: target, Harness: harness(t), Era: f.Shrunk.Era}
		if res := runner.Check(ctx, cfg, scs, golden, nil, nil)[0]; res.Verdict != want {
			t.Errorf("%s on %s: %s, want %s (%v)", w.Scenario, target.Name(), res.Verdict, want, res.Diffs)
		}
	}
}

// rewriting is the reference behind a proxy that rewrites its answers.
type rewriting struct {
	fix func(path string, body []byte) []byte
}

func (rewriting) Name() string { return "rewriting" }

func (t rewriting) Start(ctx context.Context, env target.Env) (target.Instance, error) {
	addr, release, err := target.FreeAddr()
	if err != nil {
		return nil, err
	}
	inner := env
	inner.Addr = addr
	ref, err := target.RefTarget{}.Start(ctx, inner)
	release()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", env.Addr)
	if err != nil {
		_ = ref.Stop(ctx)
		return nil, err
	}
	u, _ := url.Parse(ref.URL())
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.ModifyResponse = func(resp *http.Response) error {
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		resp.Body.Close()
		body = t.fix(resp.Request.URL.Path, body)
		resp.Body = io.NopCloser(bytes.NewReader(body))
		resp.ContentLength = int64(len(body))
		resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
		return nil
	}
	srv := &http.Server{Handler: proxy, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	return &rewritingInstance{ref: ref, srv: srv, url: "http://" + ln.Addr().String()}, nil
}

type rewritingInstance struct {
	ref target.Instance
	srv *http.Server
	url string
}

func (i *rewritingInstance) URL() string  { return i.url }
func (i *rewritingInstance) Logs() string { return "" }
func (i *rewritingInstance) Stop(ctx context.Context) error {
	_ = i.srv.Close()
	return i.ref.Stop(ctx)
}

// FuzzRefAgainstRef drives the generator with go test -fuzz's inputs:
// whatever the bytes, the sequence they make runs the same on the
// reference twice (go test alone runs the seed corpus below).
func FuzzRefAgainstRef(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte("seed0001\x01\x02\x03\x04\x05\x06\x07\x08\x09\x0a\x0b\x0c\x0d\x0e\x0f\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19"))
	f.Add(append([]byte("seed0002"), bytes.Repeat([]byte{0xff, 0x80, 0x31, 0x07, 0x42, 0x13}, 40)...))
	r := newRunner(f, runner.Config{Target: target.RefTarget{}})
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := fuzz.FromBytes(data, 16, fuzz.ScenarioName(0))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		// Both eras: the reference against itself finds nothing in either.
		out, err := r.Run(ctx, p.Scenario, impl.Eras[len(data)%len(impl.Eras)])
		if err != nil {
			t.Fatal(err)
		}
		if out.Diverged() {
			var b bytes.Buffer
			report.WriteDetails(&b, []report.Result{out.Result})
			t.Fatalf("the reference differs from itself:\n%s", b.String())
		}
	})
}
