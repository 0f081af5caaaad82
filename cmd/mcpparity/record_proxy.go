package main

import (
	"context"
	"io"
	"os"

	"github.com/mcpparity/mcpparity/recorder"
)

func runRecordProxy(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return recorder.ProxyMain(ctx, args, os.Stdin, stdout, stderr)
}
