package main

import (
	"context"
	"io"
	"os"

	"github.com/mcpparity/mcpparity/replay"
)

func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return replay.Main(ctx, args, os.Stdin, stdout, stderr)
}
