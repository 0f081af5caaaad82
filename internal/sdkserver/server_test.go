package sdkserver_test

import (
	"context"
	"encoding/json"
	"io"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/mcpparity/mcpparity/internal/sdkserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func connect(t *testing.T) *mcp.ClientSession {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := sdkserver.New().Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	// Results are compared at 2025-11-25, the version HTTP sessions settle on.
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	b, _ := json.Marshal(res)
	return res, string(b)
}

func TestTools(t *testing.T) {
	cs := connect(t)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	names := sdkserver.ToolNames()
	if len(names) != 11 || !slices.IsSorted(names) {
		t.Fatalf("ToolNames() = %v", names)
	}
	var titleOnly, bare, described int
	for i, tool := range list.Tools {
		if tool.Name != names[i] {
			t.Errorf("tools/list[%d] = %s, want %s", i, tool.Name, names[i])
		}
		schema, _ := json.Marshal(tool.InputSchema)
		switch {
		case tool.Description != "":
			described++
		case tool.Title != "":
			titleOnly++
		}
		if string(schema) == `{"type":"object"}` {
			bare++
		}
	}
	if titleOnly != 1 || bare != 1 || described != 10 {
		t.Errorf("title-only %d, bare schema %d, described %d", titleOnly, bare, described)
	}
}

func TestResults(t *testing.T) {
	cs := connect(t)
	want := map[string]string{
		"echo":              `{"content":[{"type":"text","text":"héllo"}]}`,
		"multi_text":        `{"content":[{"type":"text","text":"block 1 of 2"},{"type":"text","text":"block 2 of 2"}]}`,
		"empty":             `{"content":[]}`,
		"fail":              `{"content":[{"type":"text","text":"the tool failed on purpose"}],"isError":true}`,
		"structured":        `{"content":[],"structuredContent":{"name":"mcpparity-sdk-server","ok":true,"tools":11}}`,
		"ping_client":       `{"content":[{"type":"text","text":"ping ok"}]}`,
		"image":             `{"content":[{"type":"image","mimeType":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=="}]}`,
		"resource_link":     `{"content":[{"type":"resource_link","mimeType":"text/markdown","uri":"mcpparity://fixtures/report.md","name":"report.md","title":"Report","description":"A linked report."}]}`,
		"embedded_resource": `{"content":[{"type":"resource","resource":{"uri":"mcpparity://fixtures/notes.txt","mimeType":"text/plain","text":"Notes embedded in the result."}}]}`,
	}
	args := map[string]any{"echo": map[string]any{"message": "héllo"}, "multi_text": map[string]any{"count": 2}}
	for name, w := range want {
		if _, got := call(t, cs, name, args[name]); got != w {
			t.Errorf("%s:\n got %s\nwant %s", name, got, w)
		}
	}
	res, _ := call(t, cs, "audio", nil)
	audio, ok := res.Content[0].(*mcp.AudioContent)
	if !ok || audio.MIMEType != "audio/wav" || string(audio.Data[:4]) != "RIFF" || string(audio.Data[8:12]) != "WAVE" {
		t.Errorf("audio: %+v", res.Content[0])
	}
	res, _ = call(t, cs, "echo", nil)
	if !res.IsError {
		t.Error("echo without message is not a tool error")
	}
}

func TestLongTextIsDeterministic(t *testing.T) {
	cs := connect(t)
	_, a := call(t, cs, "long_text", nil)
	res, b := call(t, cs, "long_text", nil)
	if a != b {
		t.Error("two long_text results differ")
	}
	text := res.Content[0].(*mcp.TextContent).Text
	if n := utf8.RuneCountInString(text); n != sdkserver.LongTextRunes || n <= 12000 {
		t.Errorf("%d runes", n)
	}
	for _, r := range []string{"é", "漢", "🙂"} {
		if !strings.Contains(text, r) {
			t.Errorf("no %s in the long text", r)
		}
	}
}

// serveOverPipes runs serve on two pipes: it gives the server's input, its
// output, and its result once it returned (its output then closed).
func serveOverPipes(ctx context.Context, serve func(context.Context, io.Reader, io.Writer) error) (*io.PipeWriter, *io.PipeReader, <-chan error) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, inR, outW)
		outW.Close()
	}()
	return inW, outR, done
}

func TestServeStdio(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	inW, outR, done := serveOverPipes(ctx, sdkserver.ServeStdio)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).
		Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, got := call(t, cs, "ping_client", nil); !strings.Contains(got, "ping ok") {
		t.Errorf("ping over stdio: %s", got)
	}
	cs.Close()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("ServeStdio did not return after the client closed")
	}
}
