package sdkserver

import (
	"context"

	"github.com/mcpparity/mcpparity/internal/childproc"
)

// WhileLocked returns a context that ends with ctx or as soon as no other
// process holds a lock on the file path (the harness that started this
// server is gone), so that a stdio server a client left behind ends with
// the run that started it.
func WhileLocked(ctx context.Context, path string) (context.Context, context.CancelFunc) {
	return childproc.WhileHeld(ctx, path)
}
