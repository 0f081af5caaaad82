package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpparity/mcpparity/internal/report"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
	"github.com/mcpparity/mcpparity/internal/target/docker"
	"github.com/mcpparity/mcpparity/internal/verdict"
	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// The image targets, against a real Docker engine: images FROM scratch
// with a freshly built static binary (docker/Dockerfile), containers on the
// host network. No image or container is left behind.

// requireDocker returns a pool on a reachable engine. Without one the test
// is skipped locally and fails in CI (CI=true), where .ci/run starts one.
func requireDocker(t *testing.T) *dockertest.Pool {
	t.Helper()
	if testing.Short() {
		t.Skip("builds images and runs containers")
	}
	pool, err := dockertest.NewPool("")
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = pool.Client.PingWithContext(ctx)
		cancel()
		if err != nil {
			pool.Client.HTTPClient.CloseIdleConnections()
		}
	}
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("docker engine not reachable (CI must provide one: .ci/run starts dockerd): %v", err)
		}
		t.Skipf("docker engine not reachable: %v", err)
	}
	// The pool's keep-alive connections would outlive the test (goleak).
	t.Cleanup(pool.Client.HTTPClient.CloseIdleConnections)
	return pool
}

func randomHex(t *testing.T) string {
	t.Helper()
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b[:])
}

// buildImage builds docker/Dockerfile with bin as /mcpparity under a tag of
// its own, removed when the test ends.
func buildImage(t *testing.T, pool *dockertest.Pool, bin string) string {
	t.Helper()
	tag := "mcpparity-test-ref:" + randomHex(t)
	dir := t.TempDir()
	copyFile(t, bin, filepath.Join(dir, "mcpparity"), 0o755)
	copyFile(t, "../../../docker/Dockerfile", filepath.Join(dir, "Dockerfile"), 0o644)
	t.Cleanup(func() {
		err := pool.Client.RemoveImageExtended(tag, dc.RemoveImageOptions{Force: true})
		if err != nil && !errors.Is(err, dc.ErrNoSuchImage) {
			t.Errorf("removing image %s: %v", tag, err)
		}
	})
	var out bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err := pool.Client.BuildImage(dc.BuildImageOptions{
		Name: tag, ContextDir: dir, Dockerfile: "Dockerfile",
		RmTmpContainer: true, ForceRmTmpContainer: true,
		OutputStream: &out, Context: ctx,
	})
	if err != nil {
		t.Fatalf("docker build %s: %v\n%s", tag, err, out.String())
	}
	return tag
}

func copyFile(t *testing.T, from, to string, mode os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, mode)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// imageTarget parses image:<tag> as check does; harness is the static
// binary whose folder the container mounts (the test binary may need a
// dynamic loader that an image FROM scratch lacks).
func imageTarget(t *testing.T, tag, harness string) *docker.ImageTarget {
	t.Helper()
	tgt, err := target.ParseTarget("image:" + tag)
	if err != nil {
		t.Fatal(err)
	}
	it, ok := tgt.(*docker.ImageTarget)
	if !ok {
		t.Fatalf("image:%s parsed as %T", tag, tgt)
	}
	it.Harness = harness
	return it
}

// runImageCheck runs every scenario against target, harness serving the
// stdio replays.
func runImageCheck(t *testing.T, target target.Target, harness string) []report.Result {
	t.Helper()
	cfg := testConfig(t, target)
	cfg.Harness = []string{harness}
	scs, err := scenario.EmbeddedScenarios()
	if err != nil {
		t.Fatal(err)
	}
	return runner.Check(context.Background(), cfg, scs, scenario.EmbeddedGolden, nil, nil)
}

// requireNoContainer fails when a container of image tag still exists.
func requireNoContainer(t *testing.T, pool *dockertest.Pool, tag string) {
	t.Helper()
	cs, err := pool.Client.ListContainers(dc.ListContainersOptions{
		All: true, Filters: map[string][]string{"label": {docker.ImageLabel + "=" + tag}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cs {
		t.Errorf("container left behind: %s %v (%s)", c.ID, c.Names, c.Status)
	}
}

func scenarioEnv(t *testing.T) target.Env {
	t.Helper()
	dir := t.TempDir()
	env := target.Env{State: filepath.Join(dir, "state"), Workspace: filepath.Join(dir, "workspace")}
	for _, d := range []string{env.State, env.Workspace} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	var err error
	var release func()
	if env.Addr, release, err = target.FreeAddr(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(release)
	return env
}

// TestDockerRefImagePasses: the reference in an image FROM scratch passes
// every scenario, one fresh container each.
func TestDockerRefImagePasses(t *testing.T) {
	pool := requireDocker(t)
	bin := buildRef(t)
	tag := buildImage(t, pool, bin)
	results := runImageCheck(t, imageTarget(t, tag, bin), bin)
	if len(results) == 0 {
		t.Fatal("no scenario ran")
	}
	for _, r := range results {
		if r.Verdict != verdict.Pass && !r.NotInEra() {
			t.Errorf("%s: %s %s %+v\n%s", r.Scenario, r.Verdict, r.Err, r.Diffs, r.Logs)
		}
	}
	requireNoContainer(t, pool, tag)
}

// TestDockerDivergentImageFails: an image of the reference built with one
// rule mutant fails the check, naming the scenario and the field, and the
// failed scenario's report carries the container's logs.
func TestDockerDivergentImageFails(t *testing.T) {
	pool := requireDocker(t)
	harness := buildRef(t)
	tag := buildImage(t, pool, buildDivergent(t, defaultDivergence))
	results := runImageCheck(t, imageTarget(t, tag, harness), harness)
	requireNoContainer(t, pool, tag)
	diverged, errored := report.Failed(results)
	if !diverged || errored {
		t.Fatalf("want a divergence and no harness error, got:\n%s", details(results))
	}
	var table bytes.Buffer
	report.WriteDetails(&table, results)
	if !strings.Contains(table.String(), "target logs:") {
		t.Errorf("the table shows no container logs:\n%s", table.String())
	}
	found := false
	for _, r := range results {
		if r.Scenario != "01-pure" {
			continue
		}
		for _, d := range r.Diffs {
			if d.Path == "[0].body.tools[0].name" && strings.Contains(d.Got, "mcp__My_Server___audio") {
				found = true
			}
		}
		// serve-ref prints its address first: the logs are the container's.
		if !strings.Contains(r.Logs, "127.0.0.1:") {
			t.Errorf("01-pure logs are not the container's: %q", r.Logs)
		}
	}
	if !found {
		t.Errorf("no divergence named 01-pure [0].body.tools[0].name:\n%s", details(results))
	}
}

// TestDockerFailedStart: a container that exits at once, one that never
// answers, one whose start is cancelled (Ctrl-C) and a missing image all
// give an error, and no container is left.
func TestDockerFailedStart(t *testing.T) {
	pool := requireDocker(t)
	bin := buildRef(t)
	tag := buildImage(t, pool, bin)
	cases := []struct {
		name    string
		image   string
		cmd     []string
		ready   time.Duration // Env.Ready; 0 keeps the default
		cancel  time.Duration // ctx deadline; 0 means none
		want    []string
		maxTime time.Duration
	}{
		{name: "exits at once", cmd: []string{"serve-ref", "--no-such-flag"},
			want: []string{"target did not start", "exited before answering", "flag provided but not defined: -no-such-flag"}, maxTime: 15 * time.Second},
		// An MCP server listening elsewhere than {addr}: nothing answers there.
		{name: "never ready", cmd: []string{"sdk-server", "--addr", "127.0.0.1:0"}, ready: time.Second,
			want: []string{"target did not start", "no answer from"}, maxTime: 15 * time.Second},
		{name: "cancelled", cmd: []string{"sdk-server", "--addr", "127.0.0.1:0"}, cancel: 500 * time.Millisecond,
			want: []string{"target did not start"}, maxTime: 15 * time.Second},
		{name: "image missing", image: "mcpparity-test-missing:" + randomHex(t),
			want: []string{"not in the docker engine", "nothing is pulled"}, maxTime: 5 * time.Second},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			image := tag
			if c.image != "" {
				image = c.image
			}
			it := imageTarget(t, image, bin)
			it.Cmd = c.cmd
			ctx := context.Background()
			if c.cancel > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, c.cancel)
				defer cancel()
			}
			began := time.Now()
			env := scenarioEnv(t)
			env.Ready = c.ready
			inst, err := it.Start(ctx, env)
			took := time.Since(began)
			if err == nil {
				_ = inst.Stop(context.Background())
				t.Fatal("started")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q: %v", w, err)
				}
			}
			if took > c.maxTime {
				t.Errorf("took %s to fail", took)
			}
			requireNoContainer(t, pool, image)
		})
	}
}

// TestDockerStop: the instance's logs are the container's, Stop is
// idempotent, and a Stop whose ctx is already cancelled (Ctrl-C) still
// removes the container.
func TestDockerStop(t *testing.T) {
	pool := requireDocker(t)
	bin := buildRef(t)
	tag := buildImage(t, pool, bin)
	for _, name := range []string{"graceful", "cancelled"} {
		t.Run(name, func(t *testing.T) {
			env := scenarioEnv(t)
			inst, err := imageTarget(t, tag, bin).Start(context.Background(), env)
			if err != nil {
				t.Fatal(err)
			}
			if inst.URL() != "http://"+env.Addr {
				t.Errorf("URL %s, want http://%s", inst.URL(), env.Addr)
			}
			if logs := inst.Logs(); !strings.Contains(logs, env.Addr) {
				t.Errorf("logs lack the address %s: %q", env.Addr, logs)
			}
			ctx := context.Background()
			if name == "cancelled" {
				var cancel context.CancelFunc
				ctx, cancel = context.WithCancel(ctx)
				cancel()
			}
			if err := inst.Stop(ctx); err != nil {
				t.Fatal(err)
			}
			requireNoContainer(t, pool, tag)
			if err := inst.Stop(context.Background()); err != nil {
				t.Errorf("second Stop: %v", err)
			}
			if logs := inst.Logs(); !strings.Contains(logs, env.Addr) {
				t.Errorf("logs after Stop lack the address %s: %q", env.Addr, logs)
			}
		})
	}
}

// TestDockerEngineUnreachable needs no engine: Start says so clearly.
func TestDockerEngineUnreachable(t *testing.T) {
	it, err := docker.NewImageTarget("mcpparity-ref:latest")
	if err != nil {
		t.Fatal(err)
	}
	it.Endpoint = "unix://" + filepath.Join(t.TempDir(), "no-engine.sock")
	_, err = it.Start(context.Background(), scenarioEnv(t))
	if !errors.Is(err, docker.ErrEngineUnreachable) || !strings.Contains(err.Error(), "docker engine not reachable: ") {
		t.Fatalf("want a clear error, got %v", err)
	}
}

// TestDockerParseImage: image:<name:tag> as check reads it.
func TestDockerParseImage(t *testing.T) {
	for spec, want := range map[string][2]string{
		"image:mcpparity-ref:latest":         {"mcpparity-ref", "latest"},
		"image:mcpparity-ref":                {"mcpparity-ref", "latest"},
		"image:localhost:5000/team/ref:v1.2": {"localhost:5000/team/ref", "v1.2"},
		"image:localhost:5000/ref":           {"localhost:5000/ref", "latest"},
	} {
		tgt, err := target.ParseTarget(spec)
		if err != nil {
			t.Errorf("%s: %v", spec, err)
			continue
		}
		it := tgt.(*docker.ImageTarget)
		if it.Repository != want[0] || it.Tag != want[1] || tgt.Name() != "image:"+want[0]+":"+want[1] {
			t.Errorf("%s: %q %q %q", spec, it.Repository, it.Tag, tgt.Name())
		}
	}
	for _, bad := range []string{"image:ref@sha256:abc", "image:ref:", "image::v1"} {
		if _, err := target.ParseTarget(bad); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
