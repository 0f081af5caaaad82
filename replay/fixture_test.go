package replay

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

func TestFixtureErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/sse.json")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := []struct {
		name, data, want string
	}{
		{"malformed.json", strings.Replace(string(good), `"seq": 3,`, `"seq": 3`, 1), "malformed.json:"},
		{"truncated.json", string(good[:len(good)/2]), "truncated fixture"},
		{"version.json", strings.Replace(string(good), `"format": 1,`, `"format": 7,`, 1), "unknown format version 7"},
		{"notrpc.json", strings.Replace(string(good), `"method": "tools/list"`, `"mythod": "tools/list"`, 1), "exchanges[4] (seq 5): request body: neither a request"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.name)
			if err := os.WriteFile(path, []byte(c.data), 0o644); err != nil {
				t.Fatal(err)
			}
			fx, err := LoadFixture(path)
			if err == nil {
				_, err = New(fx, Options{})
			}
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want %q", err, c.want)
			}
			if c.name != "notrpc.json" && !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name the file", err)
			}
		})
	}
	// Positions: line and column of the fault.
	_, err = LoadFixture(filepath.Join(dir, "malformed.json"))
	if !regexp.MustCompile(`malformed\.json:\d+:\d+: malformed JSON`).MatchString(err.Error()) {
		t.Fatalf("no position in %v", err)
	}
	if _, err := LoadFixture("no/such/recording.json"); err == nil || !strings.Contains(err.Error(), "no/such/recording.json") {
		t.Fatalf("missing fixture: %v", err)
	}
}

func TestParseFault(t *testing.T) {
	cases := []struct {
		in   string
		want Fault
		str  string
	}{
		{"session-expired:3", Fault{Kind: FaultSessionExpired, Method: "tools/call", N: 3}, "session-expired:3"},
		{"cut-stream:tools/call", Fault{Kind: FaultCutStream, Method: "tools/call", N: 1}, "cut-stream:1"},
		{"cut-stream:tools/list#2", Fault{Kind: FaultCutStream, Method: "tools/list", N: 2}, "cut-stream:tools/list#2"},
		{"die:1", Fault{Kind: FaultDie, Method: "tools/call", N: 1}, "die:1"},
		{"delay:200ms", Fault{Kind: FaultDelay, Delay: 200e6}, "delay:200ms"},
		{"delay:1s:tools/call", Fault{Kind: FaultDelay, Delay: 1e9, Method: "tools/call"}, "delay:1s:tools/call"},
		{"delay:1s:tools/call#2", Fault{Kind: FaultDelay, Delay: 1e9, Method: "tools/call", N: 2}, "delay:1s:tools/call#2"},
		{"status:503:tools/call#2", Fault{Kind: FaultStatus, Method: "tools/call", N: 2, Status: 503}, "status:503:2"},
		{"discover:older", Fault{Kind: FaultDiscover, Method: "server/discover", N: 1, Answer: DiscoverOlder}, "discover:older"},
		{"discover:unsupported#2", Fault{Kind: FaultDiscover, Method: "server/discover", N: 2, Answer: DiscoverUnsupported}, "discover:unsupported#2"},
	}
	for _, c := range cases {
		got, err := ParseFault(c.in)
		if err != nil || got != c.want || got.String() != c.str {
			t.Errorf("ParseFault(%q) = %+v %q %v, want %+v %q", c.in, got, got.String(), err, c.want, c.str)
		}
	}
	for _, bad := range []string{"", "explode:1", "die", "die:0", "die:x#y", "delay:soon", "delay:-1s", "session-expired:#2", "discover:", "discover:newer", "discover:older#0", "status:200:1", "status:503", "status:x:1"} {
		if _, err := ParseFault(bad); err == nil {
			t.Errorf("ParseFault(%q) accepted", bad)
		}
	}
}
