package cli

import (
	"context"
	"flag"
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/recorder"
)

func init() {
	register("record-proxy", "record any server through the recorder as a proxy (HTTP, or a stdio server's command)", runRecordProxy)
}

// proxyFlags are the flags of `mcpparity record-proxy`.
type proxyFlags struct {
	*serverFlags
	listen, name, out, outDir *string
	headers                   listFlag
	noToolProbes              *bool
}

func declareProxyFlags(fs *flag.FlagSet) *proxyFlags {
	p := &proxyFlags{serverFlags: declareServerFlags(fs)}
	p.out = fs.String("out", "", "the fixture `file` to write (or --out-dir)")
	p.listen = fs.String("listen", "127.0.0.1:0", "listen address of the HTTP proxy (the bound address is the first line on stdout)")
	p.name = fs.String("name", "", "manifest.name (default: the base name of --out)")
	p.noToolProbes = fs.Bool("no-tool-probes", false, "leave out the probe that calls one of the server's tools without its required arguments\n"+
		"(the replay then says it could not learn that answer)")
	fs.Var(&p.headers, "header", "a configured request `header`: kept, its value written as "+fixtures.SecretPlaceholder+" (repeatable)")
	p.outDir = fs.String("out-dir", "", "stdio: instead of --out, write each line as it passes to `DIR`/process-N.jsonl, not redacted,\n"+
		"N counting the processes in the order they start (record uses it for the server processes the pool starts)")
	return p
}

const recordProxyNotes = `
The recorder as a standalone proxy for any client and server: with
--upstream, an HTTP proxy in front of the server (its address the first line
on stdout); with --upstream-cmd, the stdio server command of a client,
running the real server. The fixture is written when the client ends its
session (HTTP DELETE, stdin EOF) or on interrupt.
` + secretsNote

// runRecordProxy is `mcpparity record-proxy`: the recorder as a
// standalone proxy in front of an HTTP server (--upstream) or as the stdio
// server command of a client, running the real server (--upstream-cmd).
func runRecordProxy(ctx context.Context, c *call) int {
	fs := c.flags("(--upstream URL | --upstream-cmd CMD) (--out FILE | --out-dir DIR) [flags]", recordProxyNotes)
	p := declareProxyFlags(fs)
	if code, done := c.parse(); done {
		return code
	}
	if (*p.upstream == "") == (*p.upstreamCmd == "") || (*p.out == "") == (*p.outDir == "") {
		return c.badUsage("give exactly one of --upstream URL and --upstream-cmd CMD, and one of --out FILE and --out-dir DIR")
	}
	if *p.outDir != "" {
		if *p.upstreamCmd == "" {
			return c.badUsage("--out-dir records a stdio server: it goes with --upstream-cmd")
		}
		if err := recorder.TeeProcess(ctx, *p.upstreamCmd, *p.outDir, c.stdin, c.stdout, c.stderr); err != nil {
			return c.fail(1, err)
		}
		return 0
	}
	return c.recordProxy(ctx, p)
}

// recordProxy records the server through the proxy into --out.
func (c *call) recordProxy(ctx context.Context, p *proxyFlags) int {
	out := *p.out
	name := *p.name
	if name == "" {
		name = strings.TrimSuffix(filepath.Base(out), filepath.Ext(out))
	}
	secrets, err := p.secretValues()
	if err != nil {
		return c.fail(2, err)
	}
	patterns, err := recorder.CompileSecretPatterns(p.secretPatterns)
	if err != nil {
		return c.fail(2, err)
	}
	cfg := recorder.ProxyConfig{
		Upstream: *p.upstream, UpstreamCmd: *p.upstreamCmd, Listen: *p.listen, Probes: recorder.ProbeOptions{NoToolCalls: *p.noToolProbes},
		Fixture: recorder.Config{Name: name, SDKModule: *p.sdkModule, SDKVersion: *p.sdkVersion, Headers: p.headers,
			Secrets: secrets, SecretPatterns: patterns},
	}
	cfg.Listening = func(addr net.Addr) {
		fmt.Fprintln(c.stdout, addr.String())
		u, _ := url.Parse(*p.upstream) // RunProxy parsed it already
		c.logf("proxy http://%s%s -> %s; the fixture is written when the client ends its session (DELETE) or on interrupt",
			addr, u.EscapedPath(), u.Redacted())
	}
	cfg.ProbeFailed = func(err error) { c.logf("no probes in the fixture: %v", err) }
	f, err := recorder.RunProxy(ctx, cfg, c.stdin, c.stdout, c.stderr)
	if err != nil {
		c.logf("%v", err)
		return c.failf(1, "%s not written", out)
	}
	if err := recorder.WriteFile(out, f); err != nil {
		return c.fail(1, err)
	}
	n := len(f.HTTP) + len(f.Stdio)
	sdk := "unknown (--sdk-module)"
	if m := f.Manifest; m.SDKModule != "" {
		sdk = strings.TrimSpace(m.SDKModule + " " + m.SDKVersion)
	}
	c.logf("wrote %s (%d %s, %d tools; server %s; sdk %s; %d secret value(s) replaced)", out, n,
		map[bool]string{true: "exchanges", false: "lines"}[f.HTTP != nil], f.Manifest.ToolCount, f.Manifest.Server, sdk,
		recorder.SecretsReplaced(f))
	return 0
}
