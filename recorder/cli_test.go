package recorder_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/recorder"
)

// foreignSession is what a client sends a stdio server: initialize, then
// tools/list.
const foreignSession = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/list"}
`

// TestProxyMainManifestNamesTheServer: a server that is not the go-sdk one,
// recorded without --sdk-module, is not labelled go-sdk; its identity is
// what it announces.
func TestProxyMainManifestNamesTheServer(t *testing.T) {
	t.Setenv(envRole, "foreign-server")
	out := filepath.Join(t.TempDir(), "foreign.json")
	var stdout, stderr bytes.Buffer
	code := recorder.ProxyMain(testContext(t), []string{"--upstream-cmd", os.Args[0] + " -test.run=^$", "--out", out},
		strings.NewReader(foreignSession), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	f, err := fixtures.Decode(out, data)
	if err != nil {
		t.Fatal(err)
	}
	m := f.Manifest
	if m.SDKModule == recorder.GoSDKModule || m.Server != "mcp-servers/everything/2.0.0" || m.ToolCount != 1 {
		t.Errorf("manifest: %+v", m)
	}
	if !strings.Contains(stderr.String(), "server mcp-servers/everything/2.0.0") {
		t.Errorf("the summary line does not name the server: %s", stderr.String())
	}

	// The same with the SDK named: that is what the manifest says.
	out2 := filepath.Join(t.TempDir(), "named.json")
	stderr.Reset()
	code = recorder.ProxyMain(testContext(t), []string{"-upstream-cmd", os.Args[0] + " -test.run=^$", "-out", out2,
		"-sdk-module", "@modelcontextprotocol/sdk", "-sdk-version", "1.20.0"}, strings.NewReader(foreignSession), &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	data, _ = os.ReadFile(out2)
	if f, err := fixtures.Decode(out2, data); err != nil || f.Manifest.SDKModule != "@modelcontextprotocol/sdk" || f.Manifest.SDKVersion != "1.20.0" {
		t.Errorf("named SDK: %v %+v", err, f)
	}
}
