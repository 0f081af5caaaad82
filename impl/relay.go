package impl

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Relay is the agent's client of the façade's three internal routes: the
// agent asks the façade (the process that owns the pool) for the tools to
// announce, for calls and for a prewarm.
type Relay struct {
	// BaseURL of the façade, e.g. "http://127.0.0.1:8080".
	BaseURL string
	// HTTPClient carries the requests; nil means a client without timeout
	// (every request is bounded by Timeout anyway).
	HTTPClient *http.Client
	// Timeout bounds one request; 0 means DefaultRelayTimeout. A call's
	// timeout should exceed the longest call of the pool (P10: an attempt,
	// a reconnection, a retry).
	Timeout time.Duration
}

// DefaultRelayTimeout bounds one relay request: the longest call of the
// pool (P10: two attempts and a launcher's reconnection between them) plus
// a margin.
const DefaultRelayTimeout = 2*DefaultCallTimeout + LauncherConnectTimeout + 10*time.Second

// RelayError is a failed relay request. Its text is stable (it names the
// route and the kind of failure, not the OS message); Unwrap gives the cause.
type RelayError struct {
	Path  string
	Kind  string // "injoignable", "délai dépassé", "réponse invalide", or the façade's error
	Cause error
}

func (e *RelayError) Error() string { return "façade MCP " + e.Kind + " (" + e.Path + ")" }
func (e *RelayError) Unwrap() error { return e.Cause }

// Tools asks the façade for the tools to announce and the prompt line.
func (r *Relay) Tools(ctx context.Context) ([]AnnouncedTool, string, error) {
	var res ToolsResponse
	if err := r.post(ctx, FacadeToolsPath, struct{}{}, &res); err != nil {
		return nil, "", err
	}
	return res.Tools, res.Prompt, nil
}

// Call asks the façade to run a tool. A relay failure gives the model an
// "[erreur MCP] …" output, as a failed call does.
func (r *Relay) Call(ctx context.Context, name string, args map[string]any, contextWindow int) (CallResult, error) {
	var res CallResponse
	err := r.post(ctx, FacadeCallPath, CallRequest{Name: name, Args: args, ContextWindow: contextWindow}, &res)
	if err != nil {
		return CallResult{Output: CallErrorPrefix + err.Error(), Label: CallLabel(args)}, err
	}
	return CallResult{Output: res.Output, Label: res.Label}, nil
}

// Prewarm asks the façade to connect its enabled servers in the background.
func (r *Relay) Prewarm(ctx context.Context) error {
	var res struct {
		OK bool `json:"ok"`
	}
	return r.post(ctx, FacadePrewarmPath, struct{}{}, &res)
}

func (r *Relay) post(ctx context.Context, path string, in, out any) error {
	timeout := r.Timeout
	if timeout <= 0 {
		timeout = DefaultRelayTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	body, err := json.Marshal(in)
	if err != nil {
		return &RelayError{Path: path, Kind: "requête invalide", Cause: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.BaseURL+path, bytes.NewReader(body))
	if err != nil {
		return &RelayError{Path: path, Kind: "injoignable", Cause: err}
	}
	req.Header.Set("Content-Type", "application/json")
	client := r.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		kind := "injoignable"
		if errors.Is(err, context.DeadlineExceeded) {
			kind = "délai dépassé"
		}
		return &RelayError{Path: path, Kind: kind, Cause: err}
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return &RelayError{Path: path, Kind: "injoignable", Cause: err}
	}
	if resp.StatusCode/100 != 2 {
		var eb ErrorBody
		if json.Unmarshal(raw, &eb) == nil && eb.Error != "" {
			return &RelayError{Path: path, Kind: "en erreur: " + eb.Error, Cause: fmt.Errorf("HTTP %d", resp.StatusCode)}
		}
		return &RelayError{Path: path, Kind: "réponse invalide", Cause: fmt.Errorf("HTTP %d", resp.StatusCode)}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return &RelayError{Path: path, Kind: "réponse invalide", Cause: err}
	}
	return nil
}
