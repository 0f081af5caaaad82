package recorder_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/recorder"
)

// foreignSession is what a client sends a stdio server: initialize, then
// tools/list.
const foreignSession = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`

// TestRunProxyManifestNamesTheServer: a server that is not the go-sdk one,
// recorded without an SDK named, is not labelled go-sdk; its identity is
// what it announces.
func TestRunProxyManifestNamesTheServer(t *testing.T) {
	t.Setenv(envRole, "foreign-server")
	cfg := recorder.ProxyConfig{UpstreamCmd: os.Args[0] + " -test.run=^$", Fixture: recorder.Config{Name: "foreign"}}
	var stdout, stderr bytes.Buffer
	f, err := recorder.RunProxy(testContext(t), cfg, strings.NewReader(foreignSession), &stdout, &stderr)
	if err != nil {
		t.Fatalf("%v: %s", err, stderr.String())
	}
	m := f.Manifest
	if m.SDKModule == recorder.GoSDKModule || m.Server != "mcp-servers/everything/2.0.0" || m.ToolCount != 1 || m.Name != "foreign" {
		t.Errorf("manifest: %+v", m)
	}
	if !strings.Contains(stdout.String(), `"mcp-servers/everything"`) {
		t.Errorf("the client did not get the server's answers: %s", stdout.String())
	}

	// The same with the SDK named: that is what the manifest says.
	cfg.Fixture.SDKModule, cfg.Fixture.SDKVersion = "@modelcontextprotocol/sdk", "1.20.0"
	f, err = recorder.RunProxy(testContext(t), cfg, strings.NewReader(foreignSession), &stdout, &stderr)
	if err != nil || f.Manifest.SDKModule != "@modelcontextprotocol/sdk" || f.Manifest.SDKVersion != "1.20.0" {
		t.Errorf("named SDK: %v %+v", err, f)
	}
}

// TestRunProxyNeedsOneUpstream: neither or both upstreams is an error,
// before anything runs.
func TestRunProxyNeedsOneUpstream(t *testing.T) {
	for _, cfg := range []recorder.ProxyConfig{
		{Fixture: recorder.Config{Name: "x"}},
		{Upstream: "http://127.0.0.1:1/mcp", UpstreamCmd: "true", Fixture: recorder.Config{Name: "x"}},
	} {
		if _, err := recorder.RunProxy(testContext(t), cfg, strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{}); err == nil || !strings.Contains(err.Error(), "exactly one") {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}
