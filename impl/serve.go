package impl

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"
)

// readTimeout bounds the reading of a request, body included: a client
// that sends less than its Content-Length does not hold a connection.
var readTimeout = 10 * time.Second

// Server is the reference target: the contract handler over a pool, on a
// listener.
type Server struct {
	Pool *Pool
	srv  *http.Server
	ln   net.Listener
	done chan error
}

// Start opens the store of stateDir, listens on addr and serves the
// contract until Shutdown.
func Start(addr, stateDir string, opts Options) (*Server, error) {
	store, err := NewStore(stateDir)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	pool := NewPool(store, opts)
	s := &Server{
		Pool: pool,
		srv:  &http.Server{Handler: Handler(pool), ReadHeaderTimeout: readTimeout, ReadTimeout: readTimeout},
		ln:   ln,
		done: make(chan error, 1),
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the bound address.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the base URL of the contract.
func (s *Server) URL() string { return "http://" + s.Addr() }

// Close stops at once: the listener and every connection are closed, then
// every session and server process is ended. For a caller that knows no
// request is in flight (Shutdown would wait for connections to go idle).
func (s *Server) Close() error {
	err := s.srv.Close()
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if cerr := s.Pool.Close(); err == nil {
		err = cerr
	}
	return err
}

// Shutdown stops accepting requests, waits for those in flight (until ctx
// ends), then closes every session and ends every server process.
func (s *Server) Shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close()
	}
	if serr := <-s.done; !errors.Is(serr, http.ErrServerClosed) && err == nil {
		err = serr
	}
	if cerr := s.Pool.Close(); err == nil {
		err = cerr
	}
	return err
}
