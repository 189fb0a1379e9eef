package mcpserver

import (
	"context"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// detached are the methods whose work is an operation on the state dir
// (files, SQLite, a gateway): their wait ends when the call's context does.
var detached = map[string]bool{"tools/call": true, "resources/list": true, "resources/read": true}

// inFlight counts the calls whose work has not returned yet, cancelled or
// not (a call stuck in a system call stays counted).
var inFlight atomic.Int64

// InFlight is how many calls' work is still running: what a server that
// stops without waiting for them leaves behind.
func InFlight() int64 { return inFlight.Load() }

// stuckCall, when set (only by the test seam of the sessions_stuckcall
// build tag), runs first in a tool call's work: a call stuck as one in a
// system call would be.
var stuckCall func(tool string)

// detach is the outermost middleware: the work of a call runs on its own
// goroutine, and the call answers when the work does or when its context
// ends — a client's notifications/cancelled, the session closing (input
// gone), the server stopping — whichever comes first. A call whose work is
// stuck (a system call that never returns) then no longer holds the
// session: the client gets the cancellation, other calls go on being
// served, and the server can end. The work itself goes on until it returns.
func (s *Server) detach(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if !detached[method] {
			return next(ctx, method, req)
		}
		type answer struct {
			res mcp.Result
			err error
		}
		done := make(chan answer, 1) // the work never blocks on sending
		inFlight.Add(1)
		go func() {
			defer inFlight.Add(-1)
			res, err := next(ctx, method, req)
			done <- answer{res, err}
		}()
		select {
		case a := <-done:
			return a.res, a.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
