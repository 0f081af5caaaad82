package impl

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// sentLog is a client transport that notes the methods it writes.
type sentLog struct {
	mcp.Transport
	mu      sync.Mutex
	methods []string
}

func (s *sentLog) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := s.Transport.Connect(ctx)
	return &sentConn{Connection: c, log: s}, err
}

func (s *sentLog) sent(method string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.methods {
		if m == method {
			return true
		}
	}
	return false
}

type sentConn struct {
	mcp.Connection
	log *sentLog
}

func (c *sentConn) Write(ctx context.Context, m jsonrpc.Message) error {
	if r, ok := m.(*jsonrpc.Request); ok {
		c.log.mu.Lock()
		c.log.methods = append(c.log.methods, r.Method)
		c.log.mu.Unlock()
	}
	return c.Connection.Write(ctx, m)
}

// TestCancelBeforeReturn: a call past its deadline has sent its
// notifications/cancelled when it returns, as the Go pool's go-sdk v1.6.1
// does (P10.2), so that a session closed right after has sent it.
func TestCancelBeforeReturn(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "slow", Version: "1"}, nil)
	release := make(chan struct{})
	defer close(release)
	mcp.AddTool(server, &mcp.Tool{Name: "wait"}, func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
		select {
		case <-ctx.Done():
		case <-release:
		}
		return &mcp.CallToolResult{}, nil, nil
	})
	st, ct := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	log := &sentLog{Transport: ct}
	cs, err := mcp.NewClient(clientImpl, nil).Connect(ctx, log, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	for i := 0; i < 20; i++ {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		_, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
		cancel()
		if err == nil {
			t.Fatal("the call outlived its deadline")
		}
		if !log.sent("notifications/cancelled") {
			t.Fatalf("call %d returned before its notifications/cancelled was sent", i+1)
		}
		log.mu.Lock()
		log.methods = nil
		log.mu.Unlock()
	}
}
