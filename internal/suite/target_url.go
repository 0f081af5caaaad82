package suite

import (
	"context"
	"net/http"
	"time"
)

// URLTarget is an implementation already running at Base. Its state folder
// and store are the target file's business (seed and dump commands).
type URLTarget struct {
	Base string
}

func (t *URLTarget) Name() string { return "url:" + t.Base }

func (t *URLTarget) Start(ctx context.Context, env Env) (Instance, error) {
	if err := waitReady(ctx, t.Base, nil); err != nil {
		return nil, err
	}
	return urlInstance{t.Base}, nil
}

type urlInstance struct{ base string }

func (u urlInstance) URL() string              { return u.base }
func (urlInstance) Stop(context.Context) error { return nil }
func (urlInstance) Logs() string               { return "" }

// ReadyTimeout bounds the wait for a target to answer its first request.
var ReadyTimeout = 20 * time.Second

// waitReady polls GET /api/mcp/catalog until it answers 200, the target
// exits (exited closes) or ReadyTimeout passes.
func waitReady(ctx context.Context, base string, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, ReadyTimeout)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/mcp/catalog", nil)
		resp, err := client.Do(req)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
			last = &statusError{resp.StatusCode}
		} else {
			last = err
		}
		select {
		case <-ctx.Done():
			return &notReadyError{base, last}
		case <-exited:
			return errExited
		case <-tick.C:
		}
	}
}

type statusError struct{ code int }

func (e *statusError) Error() string { return "HTTP " + http.StatusText(e.code) }

type notReadyError struct {
	base string
	last error
}

func (e *notReadyError) Error() string {
	return "no answer from " + e.base + " within " + ReadyTimeout.String() + ": " + e.last.Error()
}
