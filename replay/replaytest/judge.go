package replaytest

import (
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/replay"
)

// load reads the fixture and checks its transport.
func load(t testing.TB, name, transport string) *fixtures.Fixture {
	t.Helper()
	fx, err := replay.LoadFixture(name)
	if err != nil {
		t.Fatalf("replaytest: %v", err)
	}
	if fx.Manifest.Transport != transport {
		t.Fatalf("replaytest: fixture %s was recorded over %s, not %s: use New%s", name, fx.Manifest.Transport, transport, constructor(fx.Manifest.Transport))
	}
	return fx
}

func constructor(transport string) string {
	if transport == fixtures.TransportStdio {
		return "Stdio"
	}
	return "Server"
}

// judge fails t with the report's problems; unused interactions are not
// problems (a test may use part of a recording).
func judge(t testing.TB, rep replay.Report) {
	t.Helper()
	if !rep.Clean() {
		t.Errorf("replaytest: %s", rep.String())
	}
}
