package record_test

import (
	"testing"

	"github.com/mcpparity/mcpparity/internal/harnesstest"
)

func TestMain(m *testing.M) { harnesstest.Main(m) }
