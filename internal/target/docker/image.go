// Package docker runs a target from a container image (image:<name:tag>):
// one container per scenario on the host network, through the engine's API.
// The command registers it (Register); nothing else links it.
package docker

import (
	"context"
	"crypto/rand"
	"debug/elf"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/mcpparity/mcpparity/internal/target"
	"github.com/ory/dockertest/v3"
	dc "github.com/ory/dockertest/v3/docker"
)

// Register makes image:<name:tag> targets available to target.ParseTarget.
func Register() {
	target.RegisterImage(func(image string) (target.Target, error) { return NewImageTarget(image) })
}

// defaultImageCmd is the command an image target runs when the target
// file gives none: the reference's serve-ref.
var defaultImageCmd = []string{"serve-ref", "--addr", "{addr}", "--state", "{state}", "--workspace", "{workspace}"}

// ImageLabel marks every container the harness starts, so that leftovers
// of a killed harness can be found: docker ps -a --filter label=mcpparity.target.
const ImageLabel = "mcpparity.target"

// ImageTarget runs a container image (github.com/ory/dockertest/v3), one
// fresh container per scenario. The container shares the host network, so
// {addr} and the replays stay on 127.0.0.1; {state} and {workspace} are
// bind-mounted at their own absolute paths, and so is the harness binary's
// folder (read-only) and the replays' report folder, because stdio replays are configured in the target's
// store as "<harness binary> replay --stdio …" and run inside the
// container. Nothing is pulled: the image must already be in the engine.
type ImageTarget struct {
	// Repository and Tag name the image ("name:tag", tag "latest" when
	// absent).
	Repository, Tag string
	// Cmd is the container's command, placeholders expanded; nil means
	// defaultImageCmd. Entrypoint, when set, replaces the image's.
	Cmd        []string
	Entrypoint []string
	// Harness is the harness binary whose folder is mounted read-only;
	// empty means this process's executable (the harness of check).
	Harness string
	// Mounts are more host folders, mounted read-only at the same paths.
	Mounts []string
	// User runs the container as "uid:gid"; empty means this process's, so
	// that what the target writes in {state} and {workspace} is the
	// harness's to read and remove.
	User string
	// StopGrace is how long Stop waits after SIGTERM before removing the
	// container by force; 0 means 5 s.
	StopGrace time.Duration
	// Endpoint is the engine's address; empty means DOCKER_HOST or the
	// default socket.
	Endpoint string
}

// NewImageTarget reads "name:tag" (a registry host with a port is fine:
// "localhost:5000/ref:v1").
func NewImageTarget(image string) (*ImageTarget, error) {
	image = strings.TrimSpace(image)
	if image == "" || strings.ContainsAny(image, "@ \t") {
		return nil, fmt.Errorf("image target %q: want name:tag (digests are not supported)", image)
	}
	repo, tag := image, "latest"
	if i := strings.LastIndex(image, ":"); i > strings.LastIndex(image, "/") {
		repo, tag = image[:i], image[i+1:]
	}
	if repo == "" || tag == "" {
		return nil, fmt.Errorf("image target %q: want name:tag", image)
	}
	return &ImageTarget{Repository: repo, Tag: tag}, nil
}

func (t *ImageTarget) image() string { return t.Repository + ":" + t.Tag }

func (t *ImageTarget) Name() string { return "image:" + t.image() }

// ErrEngineUnreachable is wrapped by Start when no Docker engine answers.
var ErrEngineUnreachable = errors.New("docker engine not reachable")

// preflight connects to the engine and checks that the image is there.
// Every instance has its own client: closeIdle, called when the instance
// is done, closes its connections, so no goroutine outlives it.
func (t *ImageTarget) preflight(ctx context.Context) (pool *dockertest.Pool, closeIdle func(), err error) {
	pool, err = dockertest.NewPool(t.Endpoint)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrEngineUnreachable, err)
	}
	closeIdle = pool.Client.HTTPClient.CloseIdleConnections
	pctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	err = pool.Client.PingWithContext(pctx)
	cancel()
	if err != nil {
		closeIdle()
		return nil, nil, fmt.Errorf("%w: %v", ErrEngineUnreachable, err)
	}
	if _, err := pool.Client.InspectImage(t.image()); err != nil {
		closeIdle()
		if errors.Is(err, dc.ErrNoSuchImage) {
			return nil, nil, fmt.Errorf("image %s is not in the docker engine (nothing is pulled: build it first, e.g. make image)", t.image())
		}
		return nil, nil, fmt.Errorf("image %s: %w", t.image(), err)
	}
	return pool, closeIdle, nil
}

var _ target.Reacher = (*ImageTarget)(nil)

// Reach checks once, before any scenario, the engine and the image.
func (t *ImageTarget) Reach(ctx context.Context) error {
	_, closeIdle, err := t.preflight(ctx)
	if err == nil {
		closeIdle()
	}
	return err
}

func (t *ImageTarget) Start(ctx context.Context, env target.Env) (target.Instance, error) {
	pool, closeIdle, err := t.preflight(ctx)
	if err != nil {
		return nil, err
	}
	harness := t.Harness
	if harness == "" {
		if harness, err = os.Executable(); err != nil {
			closeIdle()
			return nil, err
		}
	}
	opts, hostConfig, err := t.runOptions(env, harness)
	if err != nil {
		closeIdle()
		return nil, err
	}
	inst := &imageInstance{
		pool: pool, name: opts.Name, url: "http://" + env.Addr, grace: t.StopGrace,
		note: dynamicNote(harness), closeIdle: closeIdle,
	}
	if inst.grace <= 0 {
		inst.grace = 5 * time.Second
	}
	res, err := pool.RunWithOptions(opts, hostConfig)
	if err != nil {
		// The container may exist (created, then failed to start).
		logs := inst.fetchLogs()
		_ = inst.Stop(context.Background())
		return nil, fmt.Errorf("target did not start: container %s: %w\n%s", t.image(), err, logs)
	}
	inst.id = res.Container.ID

	// Readiness: the contract answers, or the container exits, or ctx ends.
	exited := make(chan struct{})
	wctx, stopWaiting := context.WithCancel(ctx)
	waited := make(chan struct{})
	go func() {
		defer close(waited)
		if _, err := pool.Client.WaitContainerWithContext(inst.id, wctx); err == nil {
			close(exited)
		}
	}()
	err = target.WaitReady(ctx, inst.url, env.Ready, exited, false)
	stopWaiting()
	<-waited
	if err == nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	if err != nil {
		logs := inst.fetchLogs()
		if serr := inst.Stop(context.Background()); serr != nil {
			err = fmt.Errorf("%w (and the container could not be removed: %v)", err, serr)
		}
		return nil, fmt.Errorf("target did not start: %w\n%s", err, logs)
	}
	return inst, nil
}

// runOptions is the container's configuration: host network, the binds,
// the command and the environment with placeholders expanded.
func (t *ImageTarget) runOptions(env target.Env, harness string) (*dockertest.RunOptions, func(*dc.HostConfig), error) {
	var suffix [6]byte
	if _, err := rand.Read(suffix[:]); err != nil {
		return nil, nil, err
	}
	cmd := t.Cmd
	if cmd == nil {
		cmd = defaultImageCmd
	}
	expanded := make([]string, len(cmd))
	for i, a := range cmd {
		expanded[i] = env.Expand(a)
	}
	vars, err := env.ProcessVars()
	if err != nil {
		return nil, nil, err
	}
	user := t.User
	if user == "" {
		user = fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())
	}
	var binds []string
	seen := map[string]bool{}
	bind := func(dir, mode string) error {
		if dir == "" {
			return nil
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		if !seen[abs] {
			seen[abs] = true
			binds = append(binds, abs+":"+abs+":"+mode)
		}
		return nil
	}
	for _, d := range append([]string{env.State, env.Workspace}, env.Shared...) {
		if err := bind(d, "rw"); err != nil {
			return nil, nil, err
		}
	}
	ro := []string{filepath.Dir(harness)}
	if real, err := filepath.EvalSymlinks(harness); err == nil {
		ro = append(ro, filepath.Dir(real)) // a linked harness: its real folder too
	}
	for _, d := range append(ro, t.Mounts...) {
		if err := bind(d, "ro"); err != nil {
			return nil, nil, err
		}
	}
	opts := &dockertest.RunOptions{
		Name:       "mcpparity-" + hex.EncodeToString(suffix[:]),
		Repository: t.Repository,
		Tag:        t.Tag,
		Env:        vars,
		Entrypoint: t.Entrypoint,
		Cmd:        expanded,
		User:       user,
		Labels:     map[string]string{ImageLabel: t.image()},
	}
	return opts, func(hc *dc.HostConfig) {
		hc.NetworkMode = "host"
		hc.PublishAllPorts = false
		hc.Binds = binds
		hc.AutoRemove = false // the logs are read after the container ends
	}, nil
}

type imageInstance struct {
	pool      *dockertest.Pool
	name, id  string
	url       string
	grace     time.Duration
	note      string
	closeIdle func()

	stopOnce sync.Once
	stopErr  error

	mu      sync.Mutex
	stopped bool
	logs    string // the last logs read; final once stopped
}

func (i *imageInstance) URL() string { return i.url }

// Logs returns what the container printed so far (its output and error
// streams), read from the engine while the container exists.
func (i *imageInstance) Logs() string {
	i.mu.Lock()
	stopped := i.stopped
	i.mu.Unlock()
	if stopped {
		return i.logs
	}
	return i.fetchLogs()
}

func (i *imageInstance) fetchLogs() string {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	out := &target.Capped{Max: 64 << 10}
	out.Write([]byte(i.note))
	err := i.pool.Client.Logs(dc.LogsOptions{
		Context: ctx, Container: i.name, OutputStream: out, ErrorStream: out,
		Stdout: true, Stderr: true,
	})
	var apiErr *dc.Error
	if err != nil && !(errors.As(err, &apiErr) && apiErr.Status == http.StatusNotFound) {
		fmt.Fprintf(out, "[could not read the container's logs: %v]\n", err)
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if !i.stopped {
		i.logs = out.String()
	}
	return out.String()
}

// Stop sends SIGTERM, waits up to the grace period (less when ctx ends
// first, e.g. on Ctrl-C), keeps the logs, then removes the container by
// force. The removal does not depend on ctx. Stop is idempotent: later
// calls wait for the first and return its result.
func (i *imageInstance) Stop(ctx context.Context) error {
	i.stopOnce.Do(func() { i.stopErr = i.stop(ctx) })
	return i.stopErr
}

func (i *imageInstance) stop(ctx context.Context) error {
	defer i.closeIdle()
	if i.id != "" {
		kctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		err := i.pool.Client.KillContainer(dc.KillContainerOptions{ID: i.id, Signal: dc.SIGTERM, Context: kctx})
		cancel()
		if err == nil {
			gctx, cancel := context.WithTimeout(ctx, i.grace)
			_, _ = i.pool.Client.WaitContainerWithContext(i.id, gctx)
			cancel()
		}
	}
	logs := i.fetchLogs()
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 20*time.Second)
	defer cancel()
	err := i.pool.Client.RemoveContainer(dc.RemoveContainerOptions{ID: i.name, Force: true, RemoveVolumes: true, Context: rctx})
	var gone *dc.NoSuchContainer
	if errors.As(err, &gone) {
		err = nil
	}
	i.mu.Lock()
	i.stopped, i.logs = true, logs
	i.mu.Unlock()
	if err != nil {
		return fmt.Errorf("removing container %s: %w", i.name, err)
	}
	return nil
}

// dynamicNote warns, at the head of the logs, when the harness binary
// needs a dynamic loader: an image FROM scratch cannot run it, so its stdio
// replays would fail inside the container (build it with CGO_ENABLED=0).
func dynamicNote(harness string) string {
	f, err := elf.Open(harness)
	if err != nil {
		return ""
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			return "[mcpparity: the harness binary " + harness + " is dynamically linked; an image without its loader cannot run the stdio replays: build the harness with CGO_ENABLED=0]\n"
		}
	}
	return ""
}
