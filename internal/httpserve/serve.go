// Package httpserve is what the tool's HTTP servers (sessions mcp --http,
// sessions metrics --listen) share: the bearer token read from a file
// treated like a private key, the loopback-only bind, the guard every
// request passes (a local Origin, the token, a deadline on the body) and
// the server with its limits (connections at once, header, idle and body
// timeouts).
package httpserve

import (
	"context"
	"crypto/subtle"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
)

// ReadTokenFile reads the bearer token every HTTP request must carry;
// listenFlag is the flag that serves HTTP (--http, --listen), named in
// the refusal when no file is given. The file is treated as ssh treats a
// private key: it must be a regular file (not a symbolic link, a FIFO or
// a device), owned by the user running the server, and not readable by
// group or others; a missing or empty file is refused too. Each refusal
// is a usage error (exit 2) naming the reason — the token is never part
// of the message.
func ReadTokenFile(path, listenFlag string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", apperr.Usagef("%s needs --token-file F: a file holding the token every request must carry (Authorization: Bearer)", listenFlag)
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

// CheckBind refuses an address (given with flag, e.g. --http) that is not
// loopback unless insecure is set: the servers answer for every session of
// this host.
func CheckBind(addr, flag string, insecure bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return apperr.Usagef("invalid %s address %q: %v (want HOST:PORT, e.g. 127.0.0.1:8765)", flag, addr, err)
	}
	if insecure || isLoopbackHost(host) {
		return nil
	}
	return apperr.Usagef("%s %s is not a loopback address: bind 127.0.0.1 or [::1], or give --insecure-bind to serve other hosts", flag, addr)
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

// Guard is what every request passes before h sees it: a local Origin (a
// page elsewhere must not reach the server through a browser: 403), then
// the bearer token (401), both before any of its body is read. A refused
// request's connection is closed after the answer (Connection: close): a
// client without the token holds nothing once it is answered. An
// authenticated request's body must arrive within lim.BodyTimeout.
func Guard(h http.Handler, token string, lim Limits) http.Handler {
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
		h.ServeHTTP(w, r)
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

// Serve serves h (Guard's) on ln until ctx ends, then shuts down (the
// requests in flight get a moment to answer). What a client can hold is
// bounded by lim: connections at once, the time to send headers, the
// time a connection may idle.
func Serve(ctx context.Context, ln net.Listener, h http.Handler, lim Limits) error {
	lim = lim.WithDefaults()
	ll := newLimitListener(ln, connCap(lim.MaxConns, fdLimit()))
	srv := &http.Server{
		Handler:           h,
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
		return err
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
