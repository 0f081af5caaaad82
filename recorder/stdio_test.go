package recorder_test

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/recorder"
	"github.com/mcpparity/mcpparity/recorder/sdkserver"
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
