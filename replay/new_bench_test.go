package replay_test

import (
	"testing"

	"github.com/mcpparity/mcpparity/fixtures"
	"github.com/mcpparity/mcpparity/replay"
)

// BenchmarkNew builds the replay of an embedded HTTP recording, as each
// scenario's HTTP server does.
func BenchmarkNew(b *testing.B) {
	fx, err := fixtures.Embedded("sdk/sse.json")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		rp, err := replay.New(fx, replay.Options{})
		if err != nil {
			b.Fatal(err)
		}
		_ = rp.Close()
	}
}
