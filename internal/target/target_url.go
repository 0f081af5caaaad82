package target

import (
	"context"
	"errors"
	"net/http"
	"syscall"
	"time"
)

// urlTarget is an implementation already running at Base. Its state folder
// and store are the target file's business (seed and dump commands).
type urlTarget struct {
	Base string
}

func (t *urlTarget) Name() string { return "url:" + t.Base }

func (t *urlTarget) Start(ctx context.Context, env Env) (Instance, error) {
	if err := WaitReady(ctx, t.Base, env.Ready, nil, true); err != nil {
		return nil, err
	}
	return urlInstance{t.Base}, nil
}

// Reach checks once, before any scenario, that the target answers: a
// refused connection fails at once.
func (t *urlTarget) Reach(ctx context.Context) error {
	return WaitReady(ctx, t.Base, 0, nil, true)
}

type urlInstance struct{ base string }

func (u urlInstance) URL() string              { return u.base }
func (urlInstance) Stop(context.Context) error { return nil }
func (urlInstance) Logs() string               { return "" }

// WaitReady polls GET /api/mcp/catalog until it answers with a status
// below 500 (a target without that route answers 404 all the same: the
// scenarios that read the catalog fail, by their steps, and no other), the target
// exits (exited closes) or bound passes (0: Waits' default). With refusedIsFinal, a
// refused connection ends the wait at once (a target already running that
// refuses connections is down, not starting).
func WaitReady(ctx context.Context, base string, bound time.Duration, exited <-chan struct{}, refusedIsFinal bool) error {
	if bound <= 0 {
		bound = Waits{}.WithDefaults().Ready
	}
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, base+"/api/mcp/catalog", nil)
		resp, err := client.Do(req)
		switch {
		case err == nil:
			resp.Body.Close()
			if resp.StatusCode < http.StatusInternalServerError {
				return nil
			}
			last = &statusError{resp.StatusCode}
		case ctx.Err() == nil || last == nil:
			// The reason, not the end of the wait that cut the attempt.
			last = err
		}
		if err != nil && refusedIsFinal && errors.Is(err, syscall.ECONNREFUSED) {
			return &notReadyError{base: base, last: err, refused: true}
		}
		select {
		case <-ctx.Done():
			return &notReadyError{base: base, last: last, bound: bound}
		case <-exited:
			return errExited
		case <-tick.C:
		}
	}
}

type statusError struct{ code int }

func (e *statusError) Error() string { return "HTTP " + http.StatusText(e.code) }

type notReadyError struct {
	base    string
	last    error
	refused bool
	bound   time.Duration
}

func (e *notReadyError) Error() string {
	if e.refused {
		return e.base + " refuses connections: " + e.last.Error()
	}
	return "no answer from " + e.base + " within " + e.bound.String() + ": " + e.last.Error()
}

func (e *notReadyError) Unwrap() error { return e.last }

// Reacher is a target that can say, once before any scenario, that it
// cannot be reached (url:, image:), so that a check stops at once.
type Reacher interface {
	Reach(ctx context.Context) error
}

var _ Reacher = (*urlTarget)(nil)
