// Package target is what a check runs against: the target kinds (ref, cmd:,
// url:, image: when registered), their environment and readiness, the store
// contract that seeds and dumps a target's state, and the target file.
package target

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/mcpparity/mcpparity/internal/cmdline"
)

// Env is what a target is started with: the placeholders {addr}, {state},
// {workspace}, {catalog}, and extra environment variables.
type Env struct {
	Addr      string
	State     string
	Workspace string
	// Catalog is a file holding the reference's catalog (impl/catalog.json
	// as the harness embeds it).
	Catalog string
	Vars    map[string]string
	// Shared are further folders the harness and the target's servers both
	// write (the stdio replays' reports): a container target mounts them.
	Shared []string
	// Hide are commands that the PATH of Vars must not reach outside
	// {workspace}/bin (npx, uvx, uv: runtimeOk then does not depend on the
	// machine). A target applies it with ProcessVars.
	Hide []string
	// Ready bounds the wait for the target's first answer (Waits.Ready).
	Ready time.Duration
}

// launchers is the folder of a scenario's launchers, kept whatever Hide.
func (e Env) launchers() string { return filepath.Join(e.Workspace, "bin") }

// ProcessVars are the environment variables of a target that runs as a
// process of its own, placeholders expanded and PATH without the hidden
// commands.
func (e Env) ProcessVars() ([]string, error) {
	var out []string
	for _, k := range slices.Sorted(maps.Keys(e.Vars)) {
		v := e.Expand(e.Vars[k])
		if k == "PATH" {
			var err error
			if v, err = hiddenPath(v, e.Hide, e.launchers()); err != nil {
				return nil, fmt.Errorf("PATH: %w", err)
			}
		}
		out = append(out, k+"="+v)
	}
	return out, nil
}

// Instance is a started target.
type Instance interface {
	// URL is the base URL of the contract, e.g. "http://127.0.0.1:4242".
	URL() string
	// Stop ends the target and everything it started.
	Stop(ctx context.Context) error
	// Logs returns what the target printed, for failure reports.
	Logs() string
}

// Target starts fresh instances of one implementation.
type Target interface {
	Name() string
	Start(ctx context.Context, env Env) (Instance, error)
}

// ParseTarget reads a target spec: "ref", "cmd:<command line>",
// "url:<base>". Image targets are registered by ImageTargets.
func ParseTarget(spec string) (Target, error) {
	kind, rest, _ := strings.Cut(spec, ":")
	switch {
	case spec == "" || spec == "ref":
		return RefTarget{}, nil
	case kind == "cmd" && strings.TrimSpace(rest) != "":
		argv, err := cmdline.Split(rest)
		if err != nil {
			return nil, fmt.Errorf("target %q: %w", spec, err)
		}
		return &cmdTarget{Argv: argv}, nil
	case kind == "url" && strings.TrimSpace(rest) != "":
		return &urlTarget{Base: strings.TrimRight(rest, "/")}, nil
	case kind == "image" && strings.TrimSpace(rest) != "":
		if imageTarget == nil {
			return nil, fmt.Errorf("target %q: image targets are not available in this build", spec)
		}
		return imageTarget(rest)
	}
	return nil, fmt.Errorf("unknown target %q (want ref, cmd:<command line>, url:<base> or image:<name:tag>)", spec)
}

// imageTarget builds an image target; set by RegisterImage.
var imageTarget func(image string) (Target, error)

// RegisterImage makes image:<name:tag> targets available, built by f. The
// Docker support (package docker) is linked only into the command, which
// registers it: the engine's client stays out of every other package.
func RegisterImage(f func(image string) (Target, error)) { imageTarget = f }

// Expand replaces the placeholders of env in s.
func (e Env) Expand(s string) string {
	return strings.NewReplacer("{addr}", e.Addr, "{state}", e.State, "{workspace}", e.Workspace, "{catalog}", e.Catalog).Replace(s)
}
