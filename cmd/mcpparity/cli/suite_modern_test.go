package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/internal/scripted"
)

// modernSuite are the servers of the 2026-07-28 revision a user records
// into a suite, each by its recording's name: the go-sdk's without
// sessions, the TypeScript SDK's with its default and refusing the
// handshake, the Python SDK's without sessions; HTTP and stdio.
var modernSuite = map[string]string{
	"go": "go-http", "ts": "ts-http", "tsio": "ts-stdio", "tsreject": "ts-reject-http",
	"tsrejectio": "ts-reject-stdio", "py": "py-http", "pyio": "py-stdio",
}

// TestSuiteOfModernServers: servers of three SDKs in the 2026-07-28
// revision, without sessions or refusing the handshake, recorded into a
// suite with record-suite (their call script: a result, bad arguments,
// a tool error, a JSON-RPC error), their golden files written by golden;
// check --suite passes against the reference and both ports, the refusing
// server shown as the Go pool shows it.
func TestSuiteOfModernServers(t *testing.T) {
	repo, err := filepath.Abs(repoRoot)
	if err != nil {
		t.Fatal(err)
	}
	scripted.ServersDir = filepath.Join(repo, "recorder", "servers")
	bin := builtBinary(t)
	root := t.TempDir()
	files := map[string]string{}
	for name, mode := range modernSuite {
		set := scripted.Set{File: "modern/" + mode + ".json"}
		url, command, stop, err := scripted.Live(context.Background(), set, []string{bin})
		if errors.Is(err, scripted.ErrNoServer) {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the servers of recorder/servers must be installed in CI: %v", err)
			}
			t.Skip(err)
		}
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(stop)
		calls, err := scripted.Script(set)
		if err != nil {
			t.Fatal(err)
		}
		script, _ := json.Marshal(scripted.SuiteScript{Upstream: url, UpstreamCmd: command, Calls: calls})
		files["scenarios/calls-"+name+".json"] = string(script)
	}
	dir := makeSuite(t, filepath.Join(root, "modern"), files)
	work := filepath.Join(root, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	recordAndGolden(t, work, bin, dir)
	goldens, _ := filepath.Glob(filepath.Join(dir, "golden", "*-tsreject.golden"))
	if len(goldens) != 1 {
		t.Fatalf("golden files of tsreject: %q", goldens)
	}
	refused, err := os.ReadFile(goldens[0])
	if err != nil || !strings.Contains(string(refused), `calling \"initialize\": sending \"initialize\": Bad Request`) {
		t.Fatalf("the refusing server's golden file lacks the Go pool's refusal: %v\n%s", err, refused)
	}
	for _, target := range append([]Port{{Name: "ref"}}, Ports...) {
		t.Run(target.Name, func(t *testing.T) {
			args := []string{"check", "--suite", dir, "--no-builtin"}
			if target.TargetFile != "" {
				needBuilt(t, filepath.Join(repo, target.Built))
				args = append(args, "--target-file", filepath.Join(repo, target.TargetFile))
			}
			code, out := runIn(t, work, bin, args...)
			if code != 0 || strings.Count(out, "pass     modern:") != len(modernSuite) {
				t.Fatalf("check --suite: exit %d\n%s", code, out)
			}
		})
	}
}

// needBuilt skips when a port is not built, except under CI=true, where
// .ci/run builds it.
func needBuilt(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing (CI=true: .ci/run builds the ports)", path)
		}
		t.Skipf("%s is missing: build the port", path)
	}
}
