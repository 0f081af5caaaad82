package impl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options tune a Pool. Zero values give the reference's behaviour.
type Options struct {
	// TimeScale multiplies every deadline of the pool: handshake (P3), call
	// bound (P10), the grace of a closing stdio server (P2). 0 means 1.
	TimeScale float64
	// ConnectTimeout, for tests, replaces the handshake deadline of a
	// command (P3); nil means ConnectTimeout, scaled.
	ConnectTimeout func(command string) time.Duration
	// CallTimeout, for tests, replaces the bound of a call and its one
	// retry (P10); 0 means DefaultCallTimeout, scaled.
	CallTimeout time.Duration
	// BaseEnv is the service environment given to stdio servers (P6); nil
	// means os.Environ().
	BaseEnv []string
	// ServerStderr receives stdio servers' stderr; nil discards it.
	ServerStderr io.Writer
	// HTTPTransport carries HTTP servers' requests; nil means the default.
	HTTPTransport http.RoundTripper
	// Workspace resolves {workspace} in catalog entries (P17).
	Workspace string
	// LookPath finds a runtime launcher (P17); nil means exec.LookPath.
	LookPath func(string) (string, error)
	// OnEvent, if set, is told of connection events ("connect-start <name>",
	// "connect-done <name>"), for tests that check ordering.
	OnEvent func(event string)
}

// Pool is the reference MCP client pool: a go-sdk session per configured
// server, kept from one turn to the next.
type Pool struct {
	store *Store
	opts  Options

	storeMu sync.Mutex // serialises configuration mutations

	mu       sync.Mutex
	sessions map[string]*entry
	closed   bool

	bg     sync.WaitGroup // connections and prewarms in flight
	ctx    context.Context
	cancel context.CancelFunc
}

// entry is a session being opened or open. It is published in
// Pool.sessions before connecting (P1) and is never put back once removed
// (P2).
type entry struct {
	cfg    MCPServerConfig
	done   chan struct{} // closed when the attempt ends
	cancel context.CancelFunc

	// Set before done closes.
	session *mcp.ClientSession
	tools   []*mcp.Tool
	err     error
}

// NewPool returns a pool over store.
func NewPool(store *Store, opts Options) *Pool {
	ctx, cancel := context.WithCancel(context.Background())
	return &Pool{store: store, opts: opts, sessions: map[string]*entry{}, ctx: ctx, cancel: cancel}
}

// Store returns the pool's configuration store.
func (p *Pool) Store() *Store { return p.store }

var (
	errPoolClosed   = errors.New("pool fermé")
	errInvalidated  = errors.New("session invalidée pendant la connexion")
	clientImpl      = &mcp.Implementation{Name: "mcpparity-ref", Version: "1.0.0"}
	protocolVersion = "2025-11-25"
)

// session returns the live session of a server, connecting it if needed.
// Concurrent callers share one attempt (P1).
func (p *Pool) session(ctx context.Context, name string, cfg MCPServerConfig) (*entry, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errPoolClosed
	}
	e := p.sessions[name]
	if e == nil {
		// P1: publish the entry before connecting.
		cctx, cancel := context.WithCancel(p.ctx)
		e = &entry{cfg: cfg, done: make(chan struct{}), cancel: cancel}
		p.sessions[name] = e
		p.bg.Add(1)
		go p.connect(cctx, name, e)
	}
	p.mu.Unlock()
	select {
	case <-e.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if e.err != nil {
		return nil, e.err
	}
	return e, nil
}

// connect opens the session of e (P5) and settles the entry.
func (p *Pool) connect(ctx context.Context, name string, e *entry) {
	defer p.bg.Done()
	defer e.cancel()
	p.event("connect-start " + name)
	defer p.event("connect-done " + name)

	timeout := p.connectTimeout(e.cfg.Command)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cs, tools, err := p.open(cctx, e.cfg)
	if err != nil && errors.Is(cctx.Err(), context.DeadlineExceeded) {
		err = errors.New(TimeoutMessage(e.cfg.Command)) // P4
	}

	p.mu.Lock()
	current := p.sessions[name] == e
	switch {
	case err != nil:
		if current {
			delete(p.sessions, name) // a failed attempt is retried by the next use
		}
	case !current:
		// P2: invalidated while connecting: never republished, and what
		// it opened is closed.
		err = errInvalidated
		_ = cs.Close()
		cs = nil
	}
	e.session, e.tools, e.err = cs, tools, err
	close(e.done)
	p.mu.Unlock()
}

// open runs the handshake: initialize, notifications/initialized, then the
// first page of tools/list (P5).
func (p *Pool) open(ctx context.Context, cfg MCPServerConfig) (*mcp.ClientSession, []*mcp.Tool, error) {
	client := mcp.NewClient(clientImpl, nil) // answers server pings (P6)
	t := p.newTransport(cfg)
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: protocolVersion})
	if err != nil {
		// The SDK closed the connection: a stdio server that did not finish
		// its handshake has had its process group ended (groupConn.Close).
		return nil, nil, err
	}
	if gt, ok := t.(*groupTransport); ok {
		gt.established()
	}
	res, err := cs.ListTools(ctx, nil) // P5: first page only
	if err != nil {
		_ = cs.Close()
		return nil, nil, err
	}
	return cs, res.Tools, nil
}

func (p *Pool) connectTimeout(command string) time.Duration {
	if p.opts.ConnectTimeout != nil {
		return p.opts.ConnectTimeout(command)
	}
	return scale(ConnectTimeout(command), p.opts.TimeScale)
}

func (p *Pool) callTimeout() time.Duration {
	if p.opts.CallTimeout > 0 {
		return p.opts.CallTimeout
	}
	return scale(DefaultCallTimeout, p.opts.TimeScale)
}

func (p *Pool) event(s string) {
	if p.opts.OnEvent != nil {
		p.opts.OnEvent(s)
	}
}

// Invalidate drops the session of a server (C7); the next use reconnects.
// An attempt in flight is cancelled and never republished (P2).
func (p *Pool) Invalidate(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.sessions[name]; e != nil {
		delete(p.sessions, name)
		p.releaseLocked(e)
	}
}

// releaseLocked ends an entry in the background: cancels its attempt, or
// closes its session. p.mu is held, so Close cannot miss it.
func (p *Pool) releaseLocked(e *entry) {
	e.cancel()
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		<-e.done
		if e.session != nil {
			_ = e.session.Close()
		}
	}()
}

// Close ends every session and waits for every connection and prewarm.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	for name, e := range p.sessions {
		delete(p.sessions, name)
		p.releaseLocked(e)
	}
	p.mu.Unlock()
	p.cancel()
	p.bg.Wait()
	return nil
}

// connected returns the entry of a server if its session is open now.
func (p *Pool) connected(name string) *entry {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := p.sessions[name]
	if e == nil {
		return nil
	}
	select {
	case <-e.done:
		if e.err == nil {
			return e
		}
	default:
	}
	return nil
}

func (p *Pool) config() (map[string]MCPServerConfig, error) {
	cfg, err := p.store.Load()
	if err != nil {
		return nil, fmt.Errorf("lecture de la configuration: %w", err)
	}
	return cfg, nil
}

// Test forces a reconnection of a server (the "tester" button).
func (p *Pool) Test(name string) error {
	cfg, err := p.config()
	if err != nil {
		return err
	}
	if _, ok := cfg[name]; !ok {
		return UnknownServerError{name} // C5
	}
	p.Invalidate(name)
	return nil
}

// Prewarm connects every enabled server in the background.
func (p *Pool) Prewarm() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.bg.Add(1)
	go func() {
		defer p.bg.Done()
		if cfg, err := p.config(); err == nil {
			p.ensureAll(p.ctx, cfg)
		}
	}()
}
