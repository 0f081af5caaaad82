package scripted

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/mcpparity/mcpparity/internal/cmdline"
	"github.com/mcpparity/mcpparity/internal/strictjson"
	"github.com/mcpparity/mcpparity/recorder"
)

// SuiteScript is how a recording of a suite is made, its call script:
// DIR/scenarios/calls-NAME.json. Exactly one of Upstream and UpstreamCmd
// is set. In UpstreamCmd and Serve, {suite} stands for the suite folder;
// in Serve and Upstream, {addr} and {port} for a free loopback address
// (127.0.0.1:PORT) and its port.
type SuiteScript struct {
	// Upstream is the URL of the server's Streamable HTTP endpoint.
	Upstream string `json:"upstream,omitempty"`
	// Serve, with Upstream, is the command line of that HTTP server:
	// started for each recording (in a process group of its own), waited
	// for until it accepts connections at {addr}, then stopped.
	Serve string `json:"serve,omitempty"`
	// UpstreamCmd is the command line of a stdio server.
	UpstreamCmd string `json:"upstreamCmd,omitempty"`
	// SDKModule and SDKVersion name the server's SDK in the manifest
	// (record's --sdk-module and --sdk-version, kept for the next times).
	SDKModule  string `json:"sdkModule,omitempty"`
	SDKVersion string `json:"sdkVersion,omitempty"`
	// SecretEnv names environment variables whose values are secrets
	// (each must be set when recording); SecretPatterns are regular
	// expressions whose every match in the traffic is a secret.
	SecretEnv      []string `json:"secretEnv,omitempty"`
	SecretPatterns []string `json:"secretPatterns,omitempty"`
	// NoToolProbes leaves out the probe that calls one of the server's
	// tools without its required arguments.
	NoToolProbes bool `json:"noToolProbes,omitempty"`
	// Calls are made after status and tools, in order.
	Calls []Call `json:"calls"`
}

// SuiteRecording is one recording of a suite folder.
type SuiteRecording struct {
	// Dir is the suite folder; Name the fixture's: its fixture is
	// fixtures/NAME/stdio.json or http.json, its call script
	// scenarios/calls-NAME.json, and the server is NAME in its scenario.
	Dir, Name string
	Script    SuiteScript
	// Secrets are given beside the script's (record's flags).
	Secrets Secrets
}

// Secrets are what a recording must never write: Values (tokens the
// server sees) and every match of the regular expressions Patterns.
type Secrets struct {
	Values, Patterns []string
}

// secrets are r's secret values and patterns, the script's with the
// given ones; an unset variable or a bad pattern is an error naming it.
func (r SuiteRecording) secrets() ([]string, []*regexp.Regexp, error) {
	env, err := recorder.SecretsFromEnv(r.Script.SecretEnv)
	if err != nil {
		return nil, nil, err
	}
	patterns, err := recorder.CompileSecretPatterns(append(append([]string(nil), r.Script.SecretPatterns...), r.Secrets.Patterns...))
	if err != nil {
		return nil, nil, err
	}
	return append(append([]string(nil), r.Secrets.Values...), env...), patterns, nil
}

var recordingName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]*$`)

// ValidateName refuses a fixture name that is not a folder and server
// name: lower-case letters, digits, '_' and '-'.
func ValidateName(name string) error {
	if !recordingName.MatchString(name) {
		return fmt.Errorf("fixture name %q: want lower-case letters, digits, '_' and '-', e.g. files", name)
	}
	return nil
}

// scriptPath is the call script of a suite's recording.
func scriptPath(dir, name string) string {
	return filepath.Join(dir, "scenarios", "calls-"+name+".json")
}

// ReadScript reads the call script of a suite's recording (an error
// matching fs.ErrNotExist when there is none).
func ReadScript(dir, name string) (*SuiteScript, error) {
	p := scriptPath(dir, name)
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var s SuiteScript
	if err := strictjson.Decode(p, "call script", data, &s); err != nil {
		return nil, err
	}
	if err := s.validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	return &s, nil
}

func (s *SuiteScript) validate() error {
	switch {
	case (s.Upstream == "") == (s.UpstreamCmd == ""):
		return errors.New("set exactly one of upstream and upstreamCmd")
	case s.Serve != "" && s.Upstream == "":
		return errors.New("serve starts an HTTP server: it goes with upstream, its endpoint")
	case s.Serve == "" && strings.ContainsAny(s.Upstream, "{}"):
		return fmt.Errorf("upstream %q: {addr} and {port} stand for the address of the server serve starts: set serve", s.Upstream)
	}
	return validateCalls(s.Calls)
}

// writeScript writes the call script of a suite's recording.
func writeScript(dir, name string, s *SuiteScript) error {
	if s.Calls == nil {
		s.Calls = []Call{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(s); err != nil {
		return err
	}
	return writeFile(scriptPath(dir, name), buf.Bytes())
}

// Fixture is the fixture of a suite's recording, below fixtures/:
// NAME/stdio.json or NAME/http.json.
func (r SuiteRecording) Fixture() string {
	if r.Script.Upstream != "" {
		return r.Name + "/http.json"
	}
	return r.Name + "/stdio.json"
}

// recordSuite drives the reference pool through the fixture's script
// against its server (status, tools, then each call) and writes the
// fixture, redacted and with its manifest, into path. harness is the
// command line of this harness (the stdio recorder is its record
// subcommand).
func recordSuite(ctx context.Context, r SuiteRecording, path string, harness []string) error {
	if err := ValidateName(r.Name); err != nil {
		return err
	}
	if err := r.Script.validate(); err != nil {
		return err
	}
	secrets, patterns, err := r.secrets()
	if err != nil {
		return err
	}
	src := source{url: r.Script.Upstream, command: r.expand(r.Script.UpstreamCmd, ""), name: r.Name,
		module: r.Script.SDKModule, version: r.Script.SDKVersion, secrets: secrets, patterns: patterns, server: r.Name, timeout: everythingStart,
		probes: recorder.ProbeOptions{NoToolCalls: r.Script.NoToolProbes}}
	if r.Script.Serve != "" {
		url, stop, err := r.serve(ctx)
		if err != nil {
			return err
		}
		defer stop()
		src.url = url
	}
	return src.record(ctx, path, harness, r.Script.Calls)
}

// expand replaces the script's placeholders: {suite} by the suite folder,
// {addr} and {port} by addr and its port.
func (r SuiteRecording) expand(s, addr string) string {
	_, port, _ := net.SplitHostPort(addr)
	return strings.NewReplacer("{suite}", r.Dir, "{addr}", addr, "{port}", port).Replace(s)
}

// serve starts the script's HTTP server on a free loopback address and
// returns its endpoint (Upstream, expanded).
func (r SuiteRecording) serve(ctx context.Context) (url string, stop func(), err error) {
	var endpoint string
	_, stop, err = startHTTPServer(ctx, "serve "+strconv.Quote(r.Script.Serve), func(addr string) (argv, env []string, err error) {
		endpoint = r.expand(r.Script.Upstream, addr)
		argv, err = cmdline.Split(r.expand(r.Script.Serve, addr))
		if err == nil && len(argv) == 0 {
			err = errors.New("not a command line")
		}
		return argv, nil, err
	})
	return endpoint, stop, err
}

// writeFile writes data to path atomically, its folder made.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
