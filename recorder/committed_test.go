package recorder_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/recorder"
)

var update = flag.Bool("update", false, "rewrite the committed recordings in recorder/testdata")

// TestCommittedRecordings records the standard scenario (tools/list, then
// every tool once) in the three forms and compares it with the recordings in
// testdata, byte for byte, across runs and machines; -update rewrites them.
// (fixtures/recordings/sdk holds the pool's own recordings, written by
// `mcpparity record`.)
func TestCommittedRecordings(t *testing.T) {
	record := map[string]func(cfg recorder.Config) []byte{
		"sse":   func(cfg recorder.Config) []byte { d, _ := recordHTTP(t, false, nil, cfg, "hello"); return d },
		"json":  func(cfg recorder.Config) []byte { d, _ := recordHTTP(t, true, nil, cfg, "hello"); return d },
		"stdio": func(cfg recorder.Config) []byte { d, _ := recordStdio(t, cfg, "hello"); return d },
	}
	for _, mode := range []string{"sse", "json", "stdio"} {
		t.Run(mode, func(t *testing.T) {
			name := mode + ".json"
			got := record[mode](testConfig("sdk-" + mode))
			path := filepath.Join("testdata", name)
			if *update {
				f, err := fixtures.Decode(path, got)
				if err != nil {
					t.Fatal(err)
				}
				if err := recorder.WriteFile(path, f); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./recorder -run TestCommittedRecordings -update)", err)
			}
			if !bytes.Equal(want, got) {
				t.Errorf("%s differs from a new fixture (-committed +new):\n%s", name, cmp.Diff(string(want), string(got)))
			}
		})
	}
}
