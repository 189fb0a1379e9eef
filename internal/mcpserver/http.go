package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/apperr"
)

// Path is where the streamable HTTP transport is served.
const Path = "/mcp"

// ReadTokenFile reads the bearer token every HTTP request must carry.
// The file is treated as ssh treats a private key: it must be a regular
// file (not a symbolic link, a FIFO or a device), owned by the user
// running the server, and not readable by group or others; a missing or
// empty file is refused too. Each refusal is a usage error (exit 2)
// naming the reason — the token is never part of the message.
func ReadTokenFile(path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", apperr.Usagef("--http needs --token-file F: a file holding the token every request must carry (Authorization: Bearer)")
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return "", apperr.Usagef("--token-file: %v", err)
	}
	if fi.Mode()&os.ModeSymlink != 0 {
		return "", apperr.Usagef("--token-file %s is a symbolic link: give the file itself", path)
	}
	if !fi.Mode().IsRegular() {
		return "", apperr.Usagef("--token-file %s is not a regular file", path)
	}
	b, err := readTokenFile(path)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", apperr.Usagef("--token-file %s is empty", path)
	}
	return tok, nil
}

// maxTokenFile is the largest token file read: a token is a line.
const maxTokenFile = 64 << 10

// readAllTokenFile reads an open token file, refusing one larger than
// maxTokenFile.
func readAllTokenFile(f *os.File, path string) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(f, maxTokenFile+1))
	if err != nil {
		return nil, apperr.Usagef("--token-file: %v", err)
	}
	if len(b) > maxTokenFile {
		return nil, apperr.Usagef("--token-file %s is larger than %d KiB: it must hold only the token", path, maxTokenFile>>10)
	}
	return b, nil
}

// CheckBind refuses an address that is not loopback unless insecure is
// set: the server answers for every session of this host.
func CheckBind(addr string, insecure bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return apperr.Usagef("invalid --http address %q: %v (want HOST:PORT, e.g. 127.0.0.1:8765)", addr, err)
	}
	if insecure || isLoopbackHost(host) {
		return nil
	}
	return apperr.Usagef("--http %s is not a loopback address: bind 127.0.0.1 or [::1], or give --insecure-bind to serve other hosts", addr)
}

// isLoopbackHost: localhost, or an address of the loopback network.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// localOrigin reports whether an Origin header names this machine
// (localhost, 127.0.0.1 or [::1], any port and scheme).
func localOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	h := u.Hostname()
	return strings.EqualFold(h, "localhost") || h == "127.0.0.1" || h == "::1"
}

// Handler is the HTTP side of the server: the streamable transport at
// Path, each request checked first for a local Origin (a page elsewhere
// must not reach the server through a browser: 403) and then for the
// bearer token (401), both before any of its body is read. A refused
// request's connection is closed after the answer (Connection: close):
// a client without the token holds nothing once it is answered.
func (s *Server) Handler(token string) http.Handler {
	return s.handler(token, s.opts.HTTP.withDefaults())
}

func (s *Server) handler(token string, lim HTTPLimits) http.Handler {
	stream := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{})
	mux := http.NewServeMux()
	mux.Handle(Path, stream)
	refuse := func(w http.ResponseWriter, code int, msg string) {
		// the body is never read: not even the few KiB net/http would
		// read after the answer to keep the connection, which a client
		// stalling in its body would hold
		_ = http.NewResponseController(w).SetReadDeadline(time.Now())
		w.Header().Set("Connection", "close")
		http.Error(w, msg, code)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !localOrigin(o) {
			refuse(w, http.StatusForbidden, "forbidden: requests from origin "+o+" are refused")
			return
		}
		if !validBearer(r, token) {
			w.Header().Set("WWW-Authenticate", "Bearer")
			refuse(w, http.StatusUnauthorized, "unauthorized: the request needs Authorization: Bearer TOKEN with the server's token")
			return
		}
		// the connection is a token holder's from now on: it is not
		// one a newer unauthenticated connection may push out
		if c, ok := r.Context().Value(connKey{}).(*limitConn); ok {
			c.markAuthed()
		}
		if lim.BodyTimeout > 0 && r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
			// a body that stalls is cut off after BodyTimeout; once it is
			// read the deadline goes (a POST may answer as a long SSE
			// stream, whose end the server watches on the connection)
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(lim.BodyTimeout)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
		}
		mux.ServeHTTP(w, r)
	})
}

// validBearer: the request carries "Authorization: Bearer TOKEN" with the
// server's token, compared in constant time. A token anywhere else (the
// query string, Basic) is none.
func validBearer(r *http.Request, token string) bool {
	f := strings.Fields(r.Header.Get("Authorization"))
	if len(f) != 2 || !strings.EqualFold(f[0], "bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(f[1]), []byte(token)) == 1
}

// deadlineBody clears the connection's read deadline once the body has
// been read to its end. After a failure (the deadline passed) it stays:
// what net/http reads of the rest after the answer must fail too.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// ServeHTTP serves the HTTP transport on ln until ctx ends, then shuts
// down (the calls in flight get a moment to answer). What a client can
// hold is bounded by the server's HTTPLimits: connections at once, the
// time to send headers and a body, the time a connection may idle.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, token string) error {
	lim := s.opts.HTTP.withDefaults()
	ll := newLimitListener(ln, connCap(lim.MaxConns, fdLimit()))
	srv := &http.Server{
		Handler:           s.handler(token, lim),
		ReadHeaderTimeout: lim.HeaderTimeout,
		IdleTimeout:       lim.IdleTimeout,
		// no ReadTimeout nor WriteTimeout: an authenticated client's GET
		// (or a POST answered as SSE) is a stream that lasts; a ReadTimeout
		// would cancel its context, a WriteTimeout cut it
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			if lc, ok := c.(*limitConn); ok {
				return context.WithValue(ctx, connKey{}, lc)
			}
			return ctx
		},
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ll) }()
	select {
	case err := <-errc:
		return fmt.Errorf("mcp http: %w", err)
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err := srv.Shutdown(sctx)
		if errors.Is(err, context.DeadlineExceeded) {
			err = srv.Close()
		}
		return err
	}
}
