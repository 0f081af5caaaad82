package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestRecordHelp: every flag of record, record-proxy and record-suite is
// shown, on stdout, and help is not an error.
func TestRecordHelp(t *testing.T) {
	for name, flags := range map[string][]string{
		"record": {"-drift", "-everything", "-modern", "-golden", "-out"},
		"record-proxy": {"-out ", "-out-dir", "-upstream ", "-upstream-cmd", "-listen", "-secret ", "-secret-env", "-secret-pattern",
			"-header", "-sdk-module", "-sdk-version", "-name", "-no-tool-probes"},
		"record-suite": {"-suite", "-name", "-drift", "-upstream ", "-upstream-cmd", "-secret ", "-secret-env", "-secret-pattern",
			"-sdk-module", "-sdk-version"},
	} {
		for _, arg := range []string{"--help", "-h", "-help"} {
			var out, errs bytes.Buffer
			if code := dispatch(context.Background(), []string{name, arg}, &out, &errs); code != 0 {
				t.Errorf("%s %s: exit %d, want 0\n%s", name, arg, code, errs.String())
			}
			for _, flag := range flags {
				if !strings.Contains(out.String(), flag) {
					t.Errorf("%s %s: help lacks %s:\n%s", name, arg, flag, out.String())
				}
			}
			if name != "record" && !strings.Contains(out.String(), "manifest.sdkModule") {
				t.Errorf("%s %s: help does not say where --sdk-module goes:\n%s", name, arg, out.String())
			}
		}
	}
}

// TestRecordProxyFlagForms: -upstream and --upstream, with a space or an
// "=", all give record-proxy its upstream, and all run record-proxy when
// given to record (its old spelling).
func TestRecordProxyFlagForms(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	out := filepath.Join(t.TempDir(), "f.json")
	for _, name := range []string{"record-proxy", "record"} {
		for _, args := range [][]string{
			{"-upstream", dead}, {"--upstream", dead}, {"-upstream=" + dead}, {"--upstream=" + dead},
		} {
			var stdout, stderr bytes.Buffer
			code := dispatch(context.Background(), append(append([]string{name}, args...), "-out", out), &stdout, &stderr)
			if code != 1 || !strings.Contains(stderr.String(), "mcpparity record-proxy: ") || !strings.Contains(stderr.String(), "unreachable") {
				t.Errorf("%s %v: exit %d, want 1 with the unreachable upstream named\n%s", name, args, code, stderr.String())
			}
		}
	}
}

// conformancePackage is the official MCP conformance suite, pinned: 0.1.14
// and later need Node.js 22 (fs.globSync), Debian's nodejs is 20.
const conformancePackage = "@modelcontextprotocol/conformance@0.1.13"

// TestConformanceVerdictsAgree runs the conformance suite's server checks
// against the go-sdk server live, through `record-proxy --upstream`, and against
// `replay` of that recording: every check gets the same verdict in all
// three. It needs npx (the package is fetched once, then taken from npm's
// cache).
func TestConformanceVerdictsAgree(t *testing.T) {
	npx, err := exec.LookPath("npx")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("npx is not on PATH (CI must install Node.js)")
		}
		t.Skip("npx is not on PATH: the conformance suite runs on Node.js")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()

	live := startHarness(t, ctx, exe, "sdk-server")
	want := runConformance(t, ctx, npx, live.addr, filepath.Join(dir, "live"))
	if want["dns-rebinding-protection/localhost-host-rebinding-rejected"] != "SUCCESS" {
		t.Fatalf("live: the DNS-rebinding check does not pass: %v", want)
	}

	fixture := filepath.Join(dir, "conformance.json")
	rec := startHarness(t, ctx, exe, "record-proxy", "--upstream", "http://"+live.addr+"/mcp", "--out", fixture)
	recorded := runConformance(t, ctx, npx, rec.addr, filepath.Join(dir, "recorded"))
	if code, stderr := rec.stop(t); code != 0 {
		t.Fatalf("record-proxy: exit %d\n%s", code, stderr)
	}
	replay := startHarness(t, ctx, exe, "replay", "--fixture", fixture)
	replayed := runConformance(t, ctx, npx, replay.addr, filepath.Join(dir, "replayed"))
	if code, stderr := replay.stop(t); code != 0 {
		t.Errorf("replay: exit %d\n%s", code, stderr)
	}

	for name, got := range map[string]map[string]string{"through the recorder": recorded, "against the replay": replayed} {
		if d := cmp.Diff(want, got); d != "" {
			t.Errorf("verdicts %s differ from live (-live +%s):\n%s", name, name, d)
		}
	}
	if !t.Failed() {
		t.Logf("%d checks, the same verdicts live, recorded and replayed", len(want))
	}
}

// harnessProc is a subcommand of this binary running as a process.
type harnessProc struct {
	cmd    *exec.Cmd
	addr   string
	stderr *lockedBuffer
	exited chan error
}

// startHarness starts `<exe> args…` and reads the bound address from the
// first line of its stdout. The process is killed at the end of the test
// if it is still running.
func startHarness(t *testing.T, ctx context.Context, exe string, args ...string) *harnessProc {
	t.Helper()
	cmd := exec.Command(exe, args...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &harnessProc{cmd: cmd, stderr: &lockedBuffer{}, exited: make(chan error, 1)}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(stdout).ReadString('\n')
		line <- strings.TrimSpace(s)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	go func() { p.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		if err, ok := <-p.exited; ok {
			p.exited <- err
		}
	})
	select {
	case p.addr = <-line:
	case <-ctx.Done():
		t.Fatalf("%s: no address printed", args[0])
	}
	if p.addr == "" {
		t.Fatalf("%s: no address printed: %s", args[0], p.stderr.String())
	}
	return p
}

// stop interrupts the process and returns its exit code and stderr.
func (p *harnessProc) stop(t *testing.T) (int, string) {
	t.Helper()
	if err := p.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.exited:
		p.exited <- err
	case <-time.After(30 * time.Second):
		t.Fatal("the process did not stop on SIGINT")
	}
	return p.cmd.ProcessState.ExitCode(), p.stderr.String()
}

// lockedBuffer is a buffer a process writes while the test may read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runConformance runs the suite's server checks against addr and returns
// each check's verdict by "scenario/check id".
func runConformance(t *testing.T, ctx context.Context, npx, addr, out string) map[string]string {
	t.Helper()
	cmd := exec.CommandContext(ctx, npx, "-y", "--prefer-offline", conformancePackage, "server", "--url", "http://"+addr+"/mcp", "-o", out)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // npx starts node: end them together
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	output, err := cmd.CombinedOutput() // it exits 1 when a check fails
	if ctx.Err() != nil {
		t.Fatalf("the conformance suite did not finish in time: %v\n%s", ctx.Err(), output)
	}
	verdicts := map[string]string{}
	dirs, _ := os.ReadDir(out)
	stamp := regexp.MustCompile(`-\d{4}-\d\d-\d\dT.*$`)
	for _, d := range dirs {
		data, rerr := os.ReadFile(filepath.Join(out, d.Name(), "checks.json"))
		if rerr != nil {
			continue
		}
		var checks []struct {
			ID     string `json:"id"`
			Status string `json:"status"`
		}
		if jerr := json.Unmarshal(data, &checks); jerr != nil {
			t.Fatalf("%s: %v", d.Name(), jerr)
		}
		scenario := strings.TrimPrefix(stamp.ReplaceAllString(d.Name(), ""), "server-")
		for _, c := range checks {
			key := scenario + "/" + c.ID
			for n := 2; verdicts[key] != ""; n++ {
				key = fmt.Sprintf("%s/%s#%d", scenario, c.ID, n)
			}
			verdicts[key] = c.Status
		}
	}
	if len(verdicts) == 0 {
		t.Fatalf("the conformance suite gave no verdict (%v):\n%s", err, output)
	}
	return verdicts
}
