package main

import (
	"context"
	"io"
	"os"

	"github.com/mcpparity/mcpparity/recorder/sdkserver"
)

func runSDKServer(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return sdkserver.Main(ctx, args, os.Stdin, stdout, stderr)
}
