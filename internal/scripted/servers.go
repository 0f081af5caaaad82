package scripted

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// ServersDir is the folder of the servers of the 2026-07-28 revision on
// other SDKs than the go-sdk, relative to the repository's root, where
// record runs (a test sets its own path).
var ServersDir = "recorder/servers"

// ErrNoServer is returned for a set whose server's packages are not
// installed (the error says how to install them).
var ErrNoServer = errors.New("the server's packages are not installed")

// sdkServer is one of those servers: its folder below ServersDir, its
// command line and how its SDK's version is read from its lock file.
type sdkServer struct {
	dir    string
	module string
	// interpreter and script are relative to the server's folder.
	interpreter, script string
	install             string // the command that installs its packages
	version             func(dir string) (string, error)
}

var (
	tsServer = sdkServer{dir: "typescript", module: "@modelcontextprotocol/server",
		interpreter: "node", script: "server.mjs", install: "npm ci", version: npmVersion}
	pyServer = sdkServer{dir: "python", module: "mcp",
		interpreter: ".venv/bin/python", script: "server.py",
		install: "python3 -m venv .venv && .venv/bin/pip install --require-hashes -r requirements.txt", version: pipVersion}
)

// argv is the server's command line with args, its paths absolute; an
// error wrapping ErrNoServer says how to install what is missing.
func (s sdkServer) argv(args ...string) ([]string, string, error) {
	dir, err := filepath.Abs(filepath.Join(ServersDir, s.dir))
	if err != nil {
		return nil, "", err
	}
	version, err := s.version(dir)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %v (run %s in %s)", ErrNoServer, err, s.install, filepath.Join(ServersDir, s.dir))
	}
	interp := s.interpreter
	if filepath.Base(interp) != interp {
		interp = filepath.Join(dir, interp)
	}
	return append([]string{interp, filepath.Join(dir, s.script)}, args...), version, nil
}

// npmVersion reads the installed version of the server's SDK package.
func npmVersion(dir string) (string, error) {
	data, err := os.ReadFile(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server", "package.json"))
	if err != nil {
		return "", err
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(data, &p); err != nil || p.Version == "" {
		return "", fmt.Errorf("%s: no version", dir)
	}
	return p.Version, nil
}

var pipPin = regexp.MustCompile(`(?m)^mcp==(\S+)`)

// pipVersion reads the pinned version of mcp, once the venv exists.
func pipVersion(dir string) (string, error) {
	if _, err := os.Stat(filepath.Join(dir, ".venv", "bin", "python")); err != nil {
		return "", err
	}
	data, err := os.ReadFile(filepath.Join(dir, "requirements.txt"))
	if err != nil {
		return "", err
	}
	m := pipPin.FindSubmatch(data)
	if m == nil {
		return "", fmt.Errorf("%s: requirements.txt pins no mcp version", dir)
	}
	return string(m[1]), nil
}

// modernServer is the server of a mode of the TypeScript or Python SDK
// and its arguments besides the transport's.
func modernServer(name string) (sdkServer, []string, bool) {
	switch name {
	case "modern-ts-http", "modern-ts-stdio":
		return tsServer, nil, true
	case "modern-ts-reject-http", "modern-ts-reject-stdio":
		return tsServer, []string{"--legacy", "reject"}, true
	case "modern-py-http", "modern-py-stdio":
		return pyServer, nil, true
	}
	return sdkServer{}, nil, false
}

// startSDKServer sets src to the server: over HTTP, started on a free
// port (stop ends it); over stdio, its command line.
func (src *source) startSDKServer(ctx context.Context, s sdkServer, args []string, http bool) (stop func(), err error) {
	stop = func() {}
	if !http {
		argv, version, err := s.argv(append([]string{"--stdio"}, args...)...)
		if err != nil {
			return stop, err
		}
		src.command, src.module, src.version = strings.Join(quoteAll(argv), " "), s.module, version
		return stop, nil
	}
	if _, _, err := s.argv(); err != nil {
		return stop, err
	}
	url, stop, err := startHTTPServer(ctx, s.script, func(addr string) ([]string, []string, error) {
		argv, _, err := s.argv(append([]string{"--http", addr}, args...)...)
		return argv, nil, err
	})
	if err != nil {
		return func() {}, err
	}
	_, version, _ := s.argv()
	src.url, src.module, src.version = url, s.module, version
	return stop, nil
}
