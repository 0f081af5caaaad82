package scripted_test

import (
	"testing"

	"github.com/mcpparity/mcpparity/cmd/mcpparity/harnesstest"
)

func TestMain(m *testing.M) { harnesstest.Main(m) }
