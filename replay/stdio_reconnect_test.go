package replay

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
)

// TestStdioReconnectServedByItsProcess: clients that start alike (the
// pool reconnecting after a failed call) are served as the recorded
// process whose later messages they send: the second client's call of
// "b", recorded only in the second process, is answered from there.
func TestStdioReconnectServedByItsProcess(t *testing.T) {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`
	initOK := `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}`
	call := func(tool string) string {
		return `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"` + tool + `","arguments":{}}}`
	}
	failed := func(tool string) string {
		return `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"` + tool + ` failed"}}`
	}
	fx := &fixtures.Fixture{Format: fixtures.FormatVersion, Manifest: fixtures.Manifest{Name: "reconnect", Transport: fixtures.TransportStdio}}
	for p, exchange := range [][]string{{call("a"), failed("a")}, {call("a"), failed("a")}, {call("b"), failed("b")}} {
		for _, l := range []struct{ dir, msg string }{{fixtures.DirSend, init}, {fixtures.DirRecv, initOK}, {fixtures.DirSend, exchange[0]}, {fixtures.DirRecv, exchange[1]}} {
			fx.Stdio = append(fx.Stdio, fixtures.Line{Dir: l.dir, Message: json.RawMessage(l.msg), Process: p + 1})
		}
	}
	for _, c := range []struct{ tool, want string }{{"a", `"a failed"`}, {"b", `"b failed"`}} {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		done := make(chan *Report, 1)
		go func() {
			rep, _ := ServeStdio(testCtx(t), fx, inR, outW, Options{})
			outW.Close()
			done <- rep
		}()
		r := bufio.NewReader(outR)
		for _, line := range []string{init, call(c.tool)} {
			io.WriteString(inW, line+"\n")
			got, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(line, "tools/call") && !strings.Contains(got, c.want) {
				t.Errorf("call %s: got %s", c.tool, got)
			}
		}
		inW.Close()
		if rep := <-done; len(rep.Unmatched) > 0 || len(rep.Unused) > 0 {
			t.Errorf("call %s: unmatched %v, unused %v", c.tool, rep.Unmatched, rep.Unused)
		}
	}
}
