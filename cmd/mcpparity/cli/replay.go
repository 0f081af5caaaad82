package cli

import (
	"context"
	"errors"
	"strings"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/replay"
)

func init() {
	register("replay", "serve a recorded fixture back to any MCP client", runReplay)
}

// runReplay serves a fixture over HTTP (the bound address on the first
// line of stdout) or, with --stdio, on stdin/stdout, and prints the report
// to stderr when ctx ends (or stdin ends in stdio mode).
func runReplay(ctx context.Context, c *call) int {
	fs := c.flags("--fixture F [--addr 127.0.0.1:0] [--stdio] [--fault ...]... [flags]", replayNotes())
	cfg := replay.Config{}
	fs.StringVar(&cfg.Fixture, "fixture", "", "fixture file, or embedded fixture name (e.g. sdk/sse.json), required")
	fs.StringVar(&cfg.Addr, "addr", "127.0.0.1:0", "HTTP listen address")
	fs.BoolVar(&cfg.Stdio, "stdio", false, "serve a stdio fixture on stdin/stdout")
	fs.DurationVar(&cfg.Options.AnswerTimeout, "answer-timeout", replay.DefaultAnswerTimeout, "wait for the client's answer to a server request")
	fs.StringVar(&cfg.ReportFile, "report", "", "also write the report as JSON to this file")
	fs.StringVar(&cfg.ReportDir, "report-dir", "", "write DIR/<pid>.pid at start, and the report as JSON to DIR/<pid>.json at the end (one pair per process)")
	fs.IntVar(&cfg.Options.MaxLineBytes, "max-line", replay.DefaultMaxLineBytes, "stdio: longest client line in bytes; a longer one is dropped and answered with an error")
	fs.IntVar(&cfg.Options.MaxSessions, "max-sessions", replay.DefaultMaxSessions, "HTTP: live sessions kept; past it the least recently used is evicted (its client gets 404)")
	fs.StringVar(&cfg.FaultsOnce, "faults-once", "", "apply the faults only in the first process that creates this marker file")
	fs.StringVar(&cfg.WhileLocked, "while-locked", "", "end as soon as no other process holds a lock on this file (the harness that started the run is gone)")
	var faults, later, headers, ignores listFlag
	fs.Var(&later, "later-fault", "with --faults-once: a `fault` of every process but the first, repeatable")
	fs.Var((*listFlag)(&cfg.RequireEnv), "require-env", "stdio: an environment variable the server must get, repeatable: `NAME=VALUE`")
	fs.Var(&faults, "fault", "`fault` to inject, repeatable: session-expired:N, cut-stream:METHOD[#N], die:N, delay:200ms[:METHOD[#N]], hold:SELECTOR:DIR, discover:ANSWER[#N] (ANSWER: no-versions, older, reordered, malformed, unsupported, unsupported-old), status:CODE:SELECTOR (HTTP); stdio: linger:DURATION (alive past its input, deaf to SIGTERM), slow-exit:DURATION (exits and reports DURATION after its input ended)")
	fs.Var(&headers, "require-header", "`header` every request must carry, repeatable: 'Name: value'")
	fs.Var(&ignores, "ignore", "params `path` left out of matching, repeatable (replaces the defaults "+strings.Join(replay.DefaultIgnorePaths, ", ")+")")
	if code, done := c.parse(); done {
		return code
	}
	if cfg.Fixture == "" {
		return c.badUsage("--fixture is required")
	}
	if code := c.replayOptions(&cfg.Options, faults, headers, ignores); code != 0 {
		return code
	}
	for _, s := range later {
		f, err := replay.ParseFault(s)
		if err != nil {
			return c.badUsage("--later-fault: %v", err)
		}
		cfg.LaterFaults = append(cfg.LaterFaults, f)
	}
	if len(cfg.LaterFaults) > 0 && cfg.FaultsOnce == "" {
		return c.badUsage("--later-fault needs --faults-once")
	}
	out, err := replay.Run(ctx, cfg, c.stdin, c.stdout, c.stderr)
	var setup *replay.SetupError
	switch {
	case errors.As(err, &setup):
		return c.fail(2, err)
	case out == nil:
		return c.fail(1, err)
	case err != nil:
		c.logf("%v", err) // served and reported: the report decides
	}
	if !out.Clean() {
		return 1
	}
	return 0
}

// replayOptions reads the faults, required headers and ignored paths into
// opts; a code other than 0 is a bad one's (its error written).
func (c *call) replayOptions(opts *replay.Options, faults, headers, ignores []string) int {
	for _, s := range faults {
		f, err := replay.ParseFault(s)
		if err != nil {
			return c.badUsage("--fault: %v", err)
		}
		opts.Faults = append(opts.Faults, f)
	}
	for _, h := range headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return c.badUsage("--require-header %q: want 'Name: value'", h)
		}
		if opts.RequireHeaders == nil {
			opts.RequireHeaders = map[string]string{}
		}
		opts.RequireHeaders[strings.TrimSpace(name)] = strings.TrimSpace(value)
	}
	if len(ignores) > 0 {
		opts.IgnorePaths = ignores
	}
	return 0
}

func replayNotes() string {
	notes := `
exit codes: 0 the report is clean, 1 it shows a problem (an unmatched
request, a header or environment mismatch, a missing answer) or a die fault
fired, 2 bad flags, a bad fixture or options it does not take`
	if names := fixtures.List(); len(names) > 0 {
		notes += "\nembedded fixtures: " + strings.Join(names, ", ")
	}
	return notes
}
