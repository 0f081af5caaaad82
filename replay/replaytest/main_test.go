package replaytest_test

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain checks that no replay outlives its test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
