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
	"github.com/mcpparity/mcpparity/internal/record"
	"github.com/mcpparity/mcpparity/recorder"
	"github.com/mcpparity/mcpparity/recorder/sdkserver"
)

// proxyFlags are the flags of `mcpparity record --upstream…`.
type proxyFlags struct {
	upstream, upstreamCmd, listen *string
	name, sdkModule, sdkVersion   *string
	outDir                        *string
	secrets, headers              listFlag
	secretEnv, secretPatterns     listFlag
	noToolProbes                  *bool
}

func declareProxyFlags(fs *flag.FlagSet) *proxyFlags {
	p := &proxyFlags{}
	p.upstream = fs.String("upstream", "", "proxy: `URL` of the server's Streamable HTTP endpoint: the recorder is then an HTTP proxy in front of it; suite: the server to record")
	p.upstreamCmd = fs.String("upstream-cmd", "", "proxy: `command` line of a stdio server: the recorder runs it and speaks stdio on its own stdin/stdout; suite: the server to record")
	p.listen = fs.String("listen", "127.0.0.1:0", "proxy: listen address of the HTTP proxy (the bound address is the first line on stdout)")
	p.name = fs.String("name", "", "proxy: manifest.name (default: the base name of --out); suite: the recording's `name` (fixtures/NAME/, its server's name)")
	p.sdkModule = fs.String("sdk-module", "", "proxy, suite: the server's SDK, written to manifest.sdkModule and shown in the closing line, nothing else: the replay\n"+
		"never reads it (the server's own identity is manifest.server, from its serverInfo). Default: the go-sdk\n"+
		"linked into this binary when the server announces itself as "+sdkserver.Name+", else empty (unknown)")
	p.sdkVersion = fs.String("sdk-version", "", "proxy, suite: the SDK's version, written to manifest.sdkVersion (default: as for --sdk-module)")
	fs.Var(&p.secrets, "secret", "proxy, suite: a `secret` value never to be written, e.g. a configured env value (repeatable)")
	fs.Var(&p.secretEnv, "secret-env", "proxy, suite: the `NAME` of an environment variable whose value is a secret (refused when unset; repeatable)")
	fs.Var(&p.secretPatterns, "secret-pattern", "proxy, suite: a regular `expression` whose every match in the traffic is a secret (repeatable)")
	p.noToolProbes = fs.Bool("no-tool-probes", false, "proxy: leave out the probe that calls one of the server's tools without its required arguments\n"+
		"(the replay then says it could not learn that answer); a suite's call script says it with \"noToolProbes\": true")
	fs.Var(&p.headers, "header", "proxy: a configured request `header`: kept, its value written as "+fixtures.SecretPlaceholder+" (repeatable)")
	p.outDir = fs.String("out-dir", "", "proxy, stdio: instead of --out, write each line as it passes to `DIR`/process-N.jsonl, not redacted,\n"+
		"N counting the processes in the order they start (record uses it for the server processes the pool starts)")
	return p
}

// recordProxy is `mcpparity record --upstream…`: the recorder as a
// standalone proxy in front of an HTTP server (--upstream) or as the stdio
// server command of a client, running the real server (--upstream-cmd).
func (c *call) recordProxy(ctx context.Context, p *proxyFlags, out string) int {
	if (*p.upstream == "") == (*p.upstreamCmd == "") || (out == "") == (*p.outDir == "") {
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

// secretValues are the values of --secret and of the variables named by
// --secret-env.
func (p *proxyFlags) secretValues() ([]string, error) {
	env, err := recorder.SecretsFromEnv(p.secretEnv)
	if err != nil {
		return nil, fmt.Errorf("--secret-env: %w", err)
	}
	return append(append([]string(nil), p.secrets...), env...), nil
}

// suiteSecrets are the secrets given to record --suite.
func (p *proxyFlags) suiteSecrets() (record.Secrets, error) {
	values, err := p.secretValues()
	if err != nil {
		return record.Secrets{}, err
	}
	if _, err := recorder.CompileSecretPatterns(p.secretPatterns); err != nil {
		return record.Secrets{}, fmt.Errorf("--secret-pattern: %w", err)
	}
	return record.Secrets{Values: values, Patterns: p.secretPatterns}, nil
}
