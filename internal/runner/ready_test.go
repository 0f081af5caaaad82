package runner_test

import (
	"context"
	"flag"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/runner"
	"github.com/mcpparity/mcpparity/internal/scenario"
	"github.com/mcpparity/mcpparity/internal/target"
	"github.com/mcpparity/mcpparity/internal/verdict"
)

// serveWithoutCatalog is the test binary run as a target: the reference
// behind a proxy that answers 404 to the catalog route, as an older pool
// without it does (TestMain runs it).
func serveWithoutCatalog(args []string) int {
	fs := flag.NewFlagSet("serve-without-catalog", flag.ContinueOnError)
	addr, state, workspace := fs.String("addr", "", ""), fs.String("state", "", ""), fs.String("workspace", "", "")
	if fs.Parse(args) != nil {
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return 1
	}
	ref, err := impl.Start("127.0.0.1:0", *state, impl.Options{Workspace: *workspace})
	if err != nil {
		return 1
	}
	u, _ := url.Parse(ref.URL())
	proxy := httputil.NewSingleHostReverseProxy(u)
	go func() {
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path == "/api/mcp/catalog" {
				http.NotFound(w, r)
				return
			}
			proxy.ServeHTTP(w, r)
		}))
	}()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
	ln.Close()
	_ = ref.Close() // S1.1: its sessions closed
	return 0
}

// TestReadyWithoutCatalog: a target without the catalog route is ready
// all the same; only the scenarios that read the catalog fail, at their
// steps, the others pass.
func TestReadyWithoutCatalog(t *testing.T) {
	all, err := scenario.EmbeddedScenarios()
	if err != nil {
		t.Fatal(err)
	}
	var scs []*scenario.Scenario
	for _, s := range all {
		if s.Name == "01-pure" || s.Name == "11-catalog" {
			scs = append(scs, s)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	target, err := target.ParseTarget("cmd:" + exe + " serve-without-catalog --addr {addr} --state {state} --workspace {workspace}")
	if err != nil {
		t.Fatal(err)
	}
	cfg := runner.Config{Target: target, Harness: harnessCommand(t)}
	res := runner.Check(context.Background(), cfg, scs, scenario.EmbeddedGolden, nil, nil)
	if res[0].Verdict != verdict.Pass {
		t.Errorf("01-pure: %s %s %+v", res[0].Verdict, res[0].Err, res[0].Diffs)
	}
	if res[1].Verdict != verdict.Fail || len(res[1].Diffs) == 0 || !strings.HasPrefix(res[1].Diffs[0].Path, "[0]") || res[1].Diffs[0].Step != "catalog" {
		t.Errorf("11-catalog: %s %s, want a failure at its catalog step: %+v", res[1].Verdict, res[1].Err, res[1].Diffs)
	}
}
