package mcpserver

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/apperr"
)

// Path is where the streamable HTTP transport is served.
const Path = "/mcp"

// ReadTokenFile reads the bearer token every HTTP request must carry. A
// missing or empty file, or one that group or others may read, is refused
// (a usage error: exit 2) — the token is never part of the message.
func ReadTokenFile(path string) (string, error) {
	if strings.TrimSpace(path) == "" {
		return "", apperr.Usagef("--http needs --token-file F: a file holding the token every request must carry (Authorization: Bearer)")
	}
	fi, err := os.Stat(path)
	if err != nil {
		return "", apperr.Usagef("--token-file: %v", err)
	}
	if !fi.Mode().IsRegular() {
		return "", apperr.Usagef("--token-file %s is not a regular file", path)
	}
	// Windows has no POSIX mode bits (a file reads as 0666 or 0444): its
	// ACLs decide who reads the file, and the check is left to them.
	if perm := fi.Mode().Perm(); runtime.GOOS != "windows" && perm&0o077 != 0 {
		return "", apperr.Usagef("--token-file %s can be read by others (mode %04o): chmod 600 it", path, perm)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", apperr.Usagef("--token-file: %v", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", apperr.Usagef("--token-file %s is empty", path)
	}
	return tok, nil
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
// bearer token (401).
func (s *Server) Handler(token string) http.Handler {
	stream := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{})
	verify := func(_ context.Context, got string, _ *http.Request) (*auth.TokenInfo, error) {
		if subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{}, nil
	}
	authed := auth.RequireBearerToken(verify, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(stream)
	mux := http.NewServeMux()
	mux.Handle(Path, authed)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && !localOrigin(o) {
			http.Error(w, "forbidden: requests from origin "+o+" are refused", http.StatusForbidden)
			return
		}
		mux.ServeHTTP(w, r)
	})
}

// ServeHTTP serves the HTTP transport on ln until ctx ends, then shuts
// down (the calls in flight get a moment to answer).
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, token string) error {
	srv := &http.Server{Handler: s.Handler(token), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
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
