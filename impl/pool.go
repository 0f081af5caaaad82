package impl

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	_ "github.com/mcpparity/mcpparity/impl/internal/sdkdebug" // before the go-sdk reads its options
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Options tune a Pool. Zero values give the reference's behaviour.
type Options struct {
	// TimeScale multiplies every deadline of the pool: handshake (P3), call
	// bound (P10), the grace of a closing stdio server (P2). 0 means 1.
	TimeScale float64
	// Era is the protocol era the pool speaks (E1); "" means EraHandshake.
	Era string
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
	// LookPath finds a command on the service's PATH: a stdio server's
	// (P6) and a runtime launcher (P17); nil means exec.LookPath.
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

	storeMu sync.Mutex // serialises configuration changes

	mu       sync.Mutex
	sessions map[string]*entry
	registry map[string]toolRef // P7: exposed name → tool of a published session
	closed   bool

	bg     sync.WaitGroup // connections and prewarms in flight
	ctx    context.Context
	cancel context.CancelFunc
}

// toolRef is a tool of a connected server, as a call reaches it.
type toolRef struct{ server, tool string }

// entry is one connection attempt of a server and its outcome. It is
// published in Pool.sessions before connecting (P1), stays there, failed or
// not, until the server is invalidated, and is never put back once removed
// (P2).
type entry struct {
	cfg    MCPServerConfig
	done   chan struct{} // closed when the attempt ends
	cancel context.CancelFunc

	// Set before done closes. session is set once initialize succeeded,
	// even when the first tools/list then failed (P16); err is the
	// attempt's failure, shown by the status.
	session *mcp.ClientSession
	tools   []*mcp.Tool
	err     error
}

// NewPool returns a pool over store.
func NewPool(store *Store, opts Options) *Pool {
	ctx, cancel := context.WithCancel(context.Background())
	return &Pool{store: store, opts: opts, sessions: map[string]*entry{}, registry: map[string]toolRef{},
		ctx: ctx, cancel: cancel}
}

// Store returns the pool's configuration store.
func (p *Pool) Store() *Store { return p.store }

var (
	errPoolClosed  = errors.New("pool fermé")
	errInvalidated = errors.New("session invalidée pendant la connexion")
	clientImpl     = &mcp.Implementation{Name: "mcpparity-ref", Version: "1.0.0"}
)

// session returns the entry of a server once its attempt has ended,
// starting the attempt if there is none (P1: concurrent callers share one).
// An entry that failed is returned as is: it is not tried again until the
// server is invalidated. The error is only the pool's closing or ctx's end.
func (p *Pool) session(ctx context.Context, name string, cfg MCPServerConfig) (*entry, error) {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil, errPoolClosed
	}
	e := p.sessions[name]
	if e == nil {
		// P1: publish the entry before connecting.
		e = p.startLocked(name, cfg)
	}
	p.mu.Unlock()
	select {
	case <-e.done:
		return e, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// startLocked publishes a new entry for name and starts its attempt.
// p.mu is held.
func (p *Pool) startLocked(name string, cfg MCPServerConfig) *entry {
	cctx, cancel := context.WithCancel(p.ctx)
	e := &entry{cfg: cfg, done: make(chan struct{}), cancel: cancel}
	p.sessions[name] = e
	p.bg.Add(1)
	go p.connect(cctx, name, e)
	return e
}

// connect runs the attempt of e (P5) and settles the entry.
func (p *Pool) connect(ctx context.Context, name string, e *entry) {
	defer p.bg.Done()
	defer e.cancel()
	p.event("connect-start " + name)
	defer p.event("connect-done " + name)

	cctx, cancel := context.WithTimeout(ctx, p.connectTimeout(e.cfg.Command))
	defer cancel()
	cs, tools, err := p.open(cctx, e.cfg)

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sessions[name] != e {
		// P2: invalidated while connecting: never published, and what it
		// opened is closed.
		if cs != nil {
			_ = cs.Close()
		}
		cs, tools, err = nil, nil, errInvalidated
	} else {
		p.publishLocked(name, tools)
	}
	e.session, e.tools, e.err = cs, tools, err
	close(e.done)
}

// open runs the handshake: initialize, notifications/initialized, then the
// first page of tools/list (P5); in the modern era server/discover first,
// the handshake only when the server refuses it (E2). A failed tools/list keeps the session
// (P16: connected, with the error and no tools).
func (p *Pool) open(ctx context.Context, cfg MCPServerConfig) (*mcp.ClientSession, []*mcp.Tool, error) {
	client := mcp.NewClient(clientImpl, nil) // answers server pings (P6)
	t := p.newTransport(cfg)
	cs, err := client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: p.era()})
	if err != nil {
		// The SDK closed the connection: a stdio server that did not finish
		// its handshake has had its process group ended (groupConn.Close).
		if errors.Is(err, context.DeadlineExceeded) {
			err = errors.New(TimeoutMessage(cfg.Command)) // P4
		}
		return nil, nil, p.notFound(err)
	}
	if gt, ok := t.(*groupTransport); ok {
		gt.established()
	}
	res, err := cs.ListTools(ctx, nil) // P5: first page only
	if err != nil {
		return cs, nil, p.notFound(err) // P16: the raw text, a deadline's included
	}
	return cs, res.Tools, nil
}

// publishLocked implements P7's registry: the exposed names of a server's
// tools, hidden ones included, replace the server's previous ones. When
// two servers expose the same name, the last published wins.
func (p *Pool) publishLocked(name string, tools []*mcp.Tool) {
	p.unpublishLocked(name)
	for _, t := range tools {
		p.registry[ExposedName(name, t.Name)] = toolRef{server: name, tool: t.Name}
	}
}

func (p *Pool) unpublishLocked(name string) {
	for exposed, ref := range p.registry {
		if ref.server == name {
			delete(p.registry, exposed)
		}
	}
}

// era is the protocol version the client asks for: the handshake era's
// pins initialize to it (P5.1); the modern era's makes the go-sdk try
// server/discover first (E2).
func (p *Pool) era() string {
	if p.opts.Era == "" {
		return EraHandshake
	}
	return p.opts.Era
}

// lookup resolves an exposed name through the registry (P7, P9).
func (p *Pool) lookup(exposed string) (toolRef, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	ref, ok := p.registry[exposed]
	return ref, ok
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

// Invalidate drops the session of a server and its tools (C7); the next
// use reconnects. An attempt in flight is cancelled and never published
// (P2).
func (p *Pool) Invalidate(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unpublishLocked(name)
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
	clear(p.registry)
	p.mu.Unlock()
	p.cancel()
	p.bg.Wait()
	return nil
}

// connected returns the entry of a server if it has a session now.
func (p *Pool) connected(name string) *entry {
	p.mu.Lock()
	defer p.mu.Unlock()
	if e := p.sessions[name]; e != nil && isSettled(e) && e.session != nil {
		return e
	}
	return nil
}

func isSettled(e *entry) bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// Test forces a reconnection of a server (the "tester" button): its
// session is dropped, configured or not (C5 does not apply).
func (p *Pool) Test(name string) { p.Invalidate(name) }

// Prewarm connects every enabled server in the background (H4.4). It
// reads the store and starts the attempts before it returns, so that a
// change after it finds them in flight (P2.1) instead of a prewarm that
// read the store later connecting a server since disabled.
func (p *Pool) Prewarm() {
	cfg := p.store.Load()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	for name, c := range cfg {
		if wantsSession(c) && p.sessions[name] == nil {
			p.startLocked(name, c)
		}
	}
}
