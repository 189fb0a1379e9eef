package httpserve

import (
	"container/list"
	"net"
	"sync"
	"time"
)

// Limits bound what a client of the HTTP transport can hold. A zero
// field takes its default.
type Limits struct {
	// MaxConns is how many connections are open at once (default 256,
	// fewer when the process may open few files: half of what the file
	// limit leaves beyond 32 for the state files). When all are taken, a
	// new connection pushes out the oldest one that has not yet shown the
	// token; only when every one has, it waits.
	MaxConns int
	// HeaderTimeout is the time a connection has to send a request's
	// headers (default 5 s): a connection that sends nothing, or stalls in
	// its headers, is closed then.
	HeaderTimeout time.Duration
	// IdleTimeout is how long a kept-alive connection may wait for its
	// next request (default 60 s).
	IdleTimeout time.Duration
	// BodyTimeout is the time an authenticated request has to send its
	// body (default 30 s). A request without the token is answered before
	// its body is read, and its connection closed.
	BodyTimeout time.Duration
}

// The defaults of Limits.
const (
	DefaultMaxConns      = 256
	DefaultHeaderTimeout = 5 * time.Second
	DefaultIdleTimeout   = 60 * time.Second
	DefaultBodyTimeout   = 30 * time.Second
)

func (l Limits) WithDefaults() Limits {
	if l.MaxConns <= 0 {
		l.MaxConns = DefaultMaxConns
	}
	if l.HeaderTimeout <= 0 {
		l.HeaderTimeout = DefaultHeaderTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.BodyTimeout <= 0 {
		l.BodyTimeout = DefaultBodyTimeout
	}
	return l
}

// fdReserve is what the connection cap leaves of the file limit for the
// files the calls open (stores, transcripts, locks) and the process's own.
const fdReserve = 32

// connCap is the connection cap for a wanted maximum and a file limit
// (0: none known): never so many that a call cannot open its files, and
// never fewer than 4.
func connCap(max, nofile int) int {
	if nofile > 0 {
		// one more than the cap is open for a moment while the oldest
		// unauthenticated connection is pushed out
		if room := (nofile - fdReserve) / 2; room < max {
			max = room
		}
	}
	if max < 4 {
		max = 4
	}
	return max
}

// connKey is the request context's key of the *limitConn it came on.
type connKey struct{}

// limitListener caps the connections open at once. A connection counts
// as unauthenticated until a request on it shows the token; when the cap
// is reached, a new connection is accepted and the oldest unauthenticated
// one closed, so connections that never authenticate cannot keep a token
// holder out. Only when every connection is authenticated does Accept
// wait for one to close.
type limitListener struct {
	net.Listener
	max int

	mu     sync.Mutex
	cond   *sync.Cond
	done   bool // the listener is closed
	open   int
	authed int
	unauth list.List // *limitConn, oldest first
}

func newLimitListener(ln net.Listener, max int) *limitListener {
	l := &limitListener{Listener: ln, max: max}
	l.cond = sync.NewCond(&l.mu)
	return l
}

func (l *limitListener) Accept() (net.Conn, error) {
	l.mu.Lock()
	for l.authed >= l.max && !l.done {
		l.cond.Wait()
	}
	l.mu.Unlock()
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	lc := &limitConn{Conn: c, l: l}
	var evict *limitConn
	l.mu.Lock()
	l.open++
	lc.elem = l.unauth.PushBack(lc)
	if l.open > l.max {
		evict = l.unauth.Front().Value.(*limitConn)
	}
	l.mu.Unlock()
	if evict != nil {
		_ = evict.Close()
	}
	return lc, nil
}

// Close closes the listener and wakes an Accept waiting for room (it
// then fails on the closed listener).
func (l *limitListener) Close() error {
	err := l.Listener.Close()
	l.mu.Lock()
	l.done = true
	l.cond.Broadcast()
	l.mu.Unlock()
	return err
}

// limitConn is one connection the listener counts.
type limitConn struct {
	net.Conn
	l       *limitListener
	elem    *list.Element // in l.unauth while unauthenticated
	authed  bool
	closed  bool
	closeMu sync.Once
}

// markAuthed: a request on the connection showed the token.
func (c *limitConn) markAuthed() {
	l := c.l
	l.mu.Lock()
	defer l.mu.Unlock()
	if c.closed || c.authed {
		return
	}
	l.unauth.Remove(c.elem)
	c.elem = nil
	c.authed = true
	l.authed++
}

func (c *limitConn) Close() error {
	err := c.Conn.Close()
	c.closeMu.Do(func() {
		l := c.l
		l.mu.Lock()
		c.closed = true
		l.open--
		if c.authed {
			l.authed--
			l.cond.Broadcast()
		} else {
			l.unauth.Remove(c.elem)
		}
		l.mu.Unlock()
	})
	return err
}
