// Package httpserve is what the tool's HTTP servers (sessions mcp --http,
// sessions metrics --listen) share: the bearer token read from a file
// treated like a private key, the loopback-only bind, the guard every
// request passes (a loopback Host, a local Origin, the token, a deadline
// on the body) and the server with its limits (connections at once,
// header, idle and body timeouts).
package httpserve

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

	"github.com/openclaw/sessions/internal/apperr"
)

// ReadTokenFile reads the bearer token every HTTP request must carry;
// listenFlag is the flag that serves HTTP (--http, --listen), named in
// the refusal when no file is given. The file is treated as ssh treats a
// private key: it must be a regular file (not a symbolic link, a FIFO or
// a device), owned by the user running the server, and not readable by
// group or others; a missing or empty file is refused too, and so is a
// token (what the file holds, blanks and newlines around it trimmed)
// shorter than MinTokenLen bytes. Each refusal is a usage error (exit 2)
// naming the reason — the token is never part of the message.
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
	if len(tok) < MinTokenLen {
		return "", apperr.Usagef("--token-file %s holds a token shorter than %d bytes: write a longer one (e.g. openssl rand -hex 32 > %s)", path, MinTokenLen, path)
	}
	return tok, nil
}

// MinTokenLen is the shortest bearer token a token file may hold, in
// bytes: a short one is guessed (the servers answer every guess).
const MinTokenLen = 32

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

// loopbackHost reports whether a request's Host names this machine by a
// loopback name: localhost or an address of the loopback network
// (127.0.0.0/8, [::1]), with or without a port. A page elsewhere that
// rebinds its own name to 127.0.0.1 (DNS rebinding) sends its own name.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	} else if strings.HasPrefix(hostport, "[") && strings.HasSuffix(hostport, "]") {
		host = hostport[1 : len(hostport)-1]
	} else if strings.Contains(hostport, ":") {
		return false // a bare IPv6 address is no Host a client sends
	}
	return host != "" && isLoopbackHost(host)
}

// Access is whom a server answers, what Guard checks.
type Access struct {
	// Token is the bearer token every request must carry. Empty, none is
	// asked: only sessions metrics --listen on loopback without
	// --token-file serves so (mcp --http always has one).
	Token string
	// InsecureBind is --insecure-bind: the server is bound for other
	// hosts, whose requests name it as they reach it, so any Host is
	// taken (the token, which --insecure-bind requires, decides). Without
	// it a request's Host must be a loopback name.
	InsecureBind bool
}

// Guard is what every request passes before h sees it: a loopback name
// in its Host unless a.InsecureBind and a local Origin (a page elsewhere
// must not reach the server through a browser, nor by rebinding its name
// to this machine: 403), then the bearer token when a.Token is set
// (401), all before any of its body is read. A refused request's
// connection is closed after the answer (Connection: close): a client
// refused holds nothing once it is answered. An accepted request's body
// must arrive within lim.BodyTimeout.
func Guard(h http.Handler, a Access, lim Limits) http.Handler {
	token := a.Token
	refuse := func(w http.ResponseWriter, code int, msg string) {
		// the body is never read: not even the few KiB net/http would
		// read after the answer to keep the connection, which a client
		// stalling in its body would hold
		_ = http.NewResponseController(w).SetReadDeadline(time.Now())
		w.Header().Set("Connection", "close")
		http.Error(w, msg, code)
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !a.InsecureBind && !loopbackHost(r.Host) {
			refuse(w, http.StatusForbidden, fmt.Sprintf("forbidden: requests for host %q are refused: this server answers loopback names only (localhost, 127.0.0.1, [::1])", r.Host))
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !localOrigin(o) {
			refuse(w, http.StatusForbidden, "forbidden: requests from origin "+o+" are refused")
			return
		}
		if token == "" {
			h.ServeHTTP(w, bodyDeadline(w, r, lim))
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
		h.ServeHTTP(w, bodyDeadline(w, r, lim))
	})
}

// bodyDeadline: a request's body that stalls is cut off after
// lim.BodyTimeout; once it is read the deadline goes (a POST may answer
// as a long SSE stream, whose end the server watches on the connection).
func bodyDeadline(w http.ResponseWriter, r *http.Request, lim Limits) *http.Request {
	if lim.BodyTimeout > 0 && r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
		rc := http.NewResponseController(w)
		if rc.SetReadDeadline(time.Now().Add(lim.BodyTimeout)) == nil {
			r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
		}
	}
	return r
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
