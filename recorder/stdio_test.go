package recorder_test

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/mcpparity/mcpparity/recorder"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serverCmd re-executes the test binary as the stdio SDK server.
func serverCmd(env ...string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{envRole + "=stdio-server"}, env...)...)
	return cmd
}

// recordStdio runs the scenario through a stdio recorder and returns the
// encoded fixture and the call results.
func recordStdio(t *testing.T, cfg recorder.Config, echo string, env ...string) ([]byte, map[string]string) {
	ctx := testContext(t)
	s := recorder.NewStdio(serverCmd(env...))
	cs, err := newClient().Connect(ctx, s.Transport(), nil)
	if err != nil {
		t.Fatalf("connect through the stdio recorder: %v", err)
	}
	names, results := scenario(t, ctx, cs, echo)
	if diff := cmp.Diff(sdkserver.ToolNames(), names); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if err := s.Wait(ctx); err != nil {
		t.Fatalf("stdio recorder: %v", err)
	}
	return buildFixture(t, s.Recording(), cfg), results
}

func TestStdioRecording(t *testing.T) {
	const canary = "canary-stdio-env-3e8f21"
	cfg := testConfig("sdk-stdio")
	cfg.Secrets = []string{canary}
	first, results := recordStdio(t, cfg, "env "+canary, "MCPPARITY_CANARY="+canary)
	second, _ := recordStdio(t, cfg, "env "+canary, "MCPPARITY_CANARY="+canary)
	if !bytes.Equal(first, second) {
		t.Fatalf("two recordings differ:\n%s", cmp.Diff(string(first), string(second)))
	}
	if bytes.Contains(first, []byte(canary)) {
		t.Error("the env canary reached the fixture")
	}
	if !strings.Contains(results["echo"], canary) {
		t.Errorf("live echo lost the real value: %s", results["echo"])
	}
	if !strings.Contains(results["ping_client"], `"ping ok"`) {
		t.Errorf("ping through the stdio recorder: %s", results["ping_client"])
	}
	validateSchema(t, first)

	// Same results as a direct in-memory session.
	ctx := testContext(t)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := sdkserver.New().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := newClient().Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, direct := scenario(t, ctx, cs, "env "+canary)
	cs.Close()
	ss.Wait()
	if diff := cmp.Diff(direct, results); diff != "" {
		t.Errorf("results through the stdio recorder differ (-direct +recorded):\n%s", diff)
	}

	f, err := fixtures.Decode("stdio.json", first)
	if err != nil {
		t.Fatal(err)
	}
	m := f.Manifest
	if m.Transport != fixtures.TransportStdio || m.ResponseMode != "" || m.ToolCount != 11 ||
		m.Server != "mcpparity-sdk-server/1.0.0" || m.ProtocolVersion == "" {
		t.Errorf("manifest: %+v", m)
	}
	// The server's ping comes between the ping_client call and its result,
	// with the client's answer in between.
	var order []string
	for _, l := range f.Stdio {
		s := string(l.Message)
		switch {
		case l.Dir == fixtures.DirSend && strings.Contains(s, `"ping_client"`) && strings.Contains(s, `"tools/call"`):
			order = append(order, l.Dir+" call")
		case strings.Contains(s, `"method": "ping"`):
			order = append(order, l.Dir+" ping")
		case strings.Contains(s, `"ping ok"`):
			order = append(order, l.Dir+" result")
		case l.Dir == fixtures.DirSend && strings.Contains(s, `"result": {}`):
			order = append(order, l.Dir+" pong")
		}
	}
	want := []string{"send call", "recv ping", "send pong", "recv result"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("ping order (-want +got):\n%s", diff)
	}
}

func TestStdioServerDiesMidRecording(t *testing.T) {
	ctx := testContext(t)
	s := recorder.NewStdio(serverCmd(envDieOnCall + "=1"))
	cs, err := newClient().Connect(ctx, s.Transport(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "x"}}); err == nil {
		t.Error("a call to a dying server succeeded")
	}
	cs.Close()
	err = s.Wait(ctx)
	if err == nil {
		t.Fatal("no error for a server that died")
	}
	for _, want := range []string{"ended before the client", "exit status 3", "dying on purpose"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if len(s.Recording().Lines) == 0 {
		t.Error("nothing recorded before the death")
	}
}

func TestStdioServerNotFound(t *testing.T) {
	ctx := testContext(t)
	s := recorder.NewStdio(exec.Command("/nonexistent/mcp-server"))
	_, err := newClient().Connect(ctx, s.Transport(), nil)
	if err == nil || !strings.Contains(err.Error(), "/nonexistent/mcp-server") {
		t.Fatalf("error %v does not name the command", err)
	}
}

// longLine reads as one line of n bytes (then a newline), without holding
// it in memory.
type longLine struct{ n int }

func (l *longLine) Read(p []byte) (int, error) {
	if l.n < 0 {
		return 0, io.EOF
	}
	i := 0
	for ; i < len(p) && l.n > 0; i++ {
		p[i] = 'a'
		l.n--
	}
	if i < len(p) && l.n == 0 {
		p[i] = '\n'
		i++
		l.n = -1
	}
	return i, nil
}

// TestStdioClientLineTooLong: a client line over the limit is named as the
// cause, not the server (cat, which would echo it).
func TestStdioClientLineTooLong(t *testing.T) {
	cat, err := exec.LookPath("cat")
	if err != nil {
		t.Skip("no cat on PATH")
	}
	s := recorder.NewStdio(exec.Command(cat))
	s.StopTimeout = time.Second
	in := io.MultiReader(strings.NewReader(`{"jsonrpc":"2.0","method":"x"}`+"\n"), &longLine{n: 64<<20 + 1})
	err = s.Run(testContext(t), in, io.Discard)
	if err == nil {
		t.Fatal("no error for a client line over 64 MiB")
	}
	for _, want := range []string{"client's line 2", "over 64 MiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "ended before the client") {
		t.Errorf("the server is blamed: %v", err)
	}
	if lines := s.Recording().Lines; len(lines) == 0 || lines[0].Dir != "send" || len(lines) > 2 {
		t.Errorf("recorded %+v, want the short line (and maybe its echo)", lines)
	}
}

// TestStdioServerLineTooLong: a server line over the limit is named as such
// and the server is stopped.
func TestStdioServerLineTooLong(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	s := recorder.NewStdio(exec.Command(sh, "-c", `head -c 67108865 /dev/zero | tr '\0' a; echo; sleep 60`))
	inR, inW := io.Pipe()
	defer inW.Close()
	err = s.Run(testContext(t), inR, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "wrote a line over 64 MiB (its line 1)") {
		t.Fatalf("error %v does not name the server's long line", err)
	}
}
