package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/impl"
	"github.com/mcpparity/mcpparity/internal/suite"
	"github.com/mcpparity/mcpparity/recorder"
	"github.com/mcpparity/mcpparity/recorder/sdkserver"
)

func init() {
	register("record", "record fixtures from the live SDK server (or proxy any server with --upstream/--upstream-cmd)", runRecord)
}

// recordedSets are the recordings `record` makes: name → how.
var recordedSets = []struct {
	file string // below fixtures/recordings
	mode string // "sse", "json", "stdio"
}{
	{"sdk/sse.json", "sse"},
	{"sdk/json.json", "json"},
	{"sdk/stdio.json", "stdio"},
}

func runRecord(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	for _, a := range args {
		if a == "--upstream" || a == "--upstream-cmd" || strings.HasPrefix(a, "--upstream=") || strings.HasPrefix(a, "--upstream-cmd=") {
			return runRecordProxy(ctx, args, stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("record", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("out", "fixtures/recordings", "folder of the recordings")
	check := fs.Bool("check", false, "record into a temporary folder and fail with a diff when the stored fixtures differ")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	dir := *out
	if *check {
		tmp, err := os.MkdirTemp("", "mcpparity-record-")
		if err != nil {
			fmt.Fprintf(stderr, "record: %v\n", err)
			return 2
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	for _, set := range recordedSets {
		path := filepath.Join(dir, set.file)
		if err := recordSet(ctx, set.mode, path); err != nil {
			fmt.Fprintf(stderr, "record %s: %v\n", set.file, err)
			return 1
		}
		fmt.Fprintf(stdout, "recorded %s\n", path)
	}
	if !*check {
		return 0
	}
	drift := false
	for _, set := range recordedSets {
		fresh, err := os.ReadFile(filepath.Join(dir, set.file))
		if err != nil {
			fmt.Fprintf(stderr, "record --check: %v\n", err)
			return 2
		}
		stored, err := os.ReadFile(filepath.Join(*out, set.file))
		if err != nil {
			fmt.Fprintf(stderr, "record --check: stored fixture: %v\n", err)
			return 2
		}
		if !bytes.Equal(fresh, stored) {
			drift = true
			fmt.Fprintf(stdout, "drift in %s:\n%s\n", set.file, lineDiff(string(stored), string(fresh)))
		}
	}
	if drift {
		fmt.Fprintln(stdout, "record --check: the stored fixtures differ from a fresh recording")
		return 1
	}
	fmt.Fprintln(stdout, "record --check: the stored fixtures match a fresh recording")
	return 0
}

// recordSet drives the reference pool through the recording script against
// the live SDK server, through the recorder, and writes the fixture.
func recordSet(ctx context.Context, mode, path string) error {
	calls, err := suite.CallScript()
	if err != nil {
		return err
	}
	state, err := os.MkdirTemp("", "mcpparity-record-state-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(state)
	store, err := impl.NewStore(state)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	cfg := impl.MCPServerConfig{Enabled: true}
	var finish func() error
	switch mode {
	case "sse", "json":
		live := httptest.NewServer(sdkserver.Handler(mode == "json"))
		defer live.Close()
		proxy, err := recorder.NewProxy(live.URL+"/mcp", nil)
		if err != nil {
			return err
		}
		front := httptest.NewServer(proxy)
		defer front.Close()
		cfg.URL = front.URL + "/mcp"
		finish = func() error {
			select {
			case <-proxy.Ended():
			case <-time.After(5 * time.Second):
				return fmt.Errorf("the session did not end")
			}
			_ = proxy.Close()
			if errs := proxy.Errors(); len(errs) > 0 {
				return fmt.Errorf("recorder: %v", errs[0])
			}
			name := strings.TrimSuffix(filepath.Base(filepath.Dir(path)), "/") + "-" + mode
			module, version := recorder.GoSDK()
			fx, err := recorder.Build(proxy.Recording(), recorder.Config{Name: name, SDKModule: module, SDKVersion: version})
			if err != nil {
				return err
			}
			return recorder.WriteFile(path, fx)
		}
	case "stdio":
		exe, err := os.Executable()
		if err != nil {
			return err
		}
		cfg.Command = exe
		cfg.Args = []string{"record", "--upstream-cmd", exe + " sdk-server --stdio", "--out", path, "--name", "sdk-stdio"}
		finish = func() error {
			_, err := fixtures.Decode(path, mustRead(path))
			return err
		}
	}
	if err := store.Save(map[string]impl.MCPServerConfig{"sdk": cfg}); err != nil {
		return err
	}
	pool := impl.NewPool(store, impl.Options{})
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	st, err := pool.Status(ctx)
	if err == nil && (len(st) != 1 || !st[0].Connected) {
		err = fmt.Errorf("the live server did not connect: %+v", st)
	}
	if err == nil {
		for _, c := range calls {
			res := pool.Call(ctx, impl.ExposedName("sdk", c.Tool), c.Args, 0)
			if strings.HasPrefix(res.Output, impl.CallErrorPrefix) || strings.HasPrefix(res.Output, impl.UnknownToolPrefix) {
				err = fmt.Errorf("call %s: %s", c.Tool, res.Output)
				break
			}
		}
	}
	_ = pool.Close()
	if err != nil {
		return err
	}
	return finish()
}

func mustRead(path string) []byte {
	data, _ := os.ReadFile(path)
	return data
}

// lineDiff shows the lines that differ between two texts (a plain
// line-by-line comparison, enough to locate drift in pretty JSON).
func lineDiff(a, b string) string {
	al, bl := strings.Split(a, "\n"), strings.Split(b, "\n")
	var out strings.Builder
	shown := 0
	for i := 0; i < max(len(al), len(bl)) && shown < 40; i++ {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			fmt.Fprintf(&out, "  line %d\n  - %s\n  + %s\n", i+1, x, y)
			shown++
		}
	}
	return out.String()
}

var _ = exec.Command
