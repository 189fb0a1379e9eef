package mcpserver

import (
	"context"
	"fmt"
	"net"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/httpserve"
)

// Path is where the streamable HTTP transport is served.
const Path = "/mcp"

// ReadTokenFile reads the bearer token every HTTP request must carry
// (httpserve.ReadTokenFile, for --http).
func ReadTokenFile(path string) (string, error) { return httpserve.ReadTokenFile(path, "--http") }

// CheckBind refuses an --http address that is not loopback unless
// insecure is set: the server answers for every session of this host.
func CheckBind(addr string, insecure bool) error {
	return httpserve.CheckBind(addr, "--http", insecure)
}

// HTTPLimits bound what a client of the HTTP transport can hold
// (httpserve.Limits).
type HTTPLimits = httpserve.Limits

// Handler is the HTTP side of the server: the streamable transport at
// Path, each request checked first for a loopback name in its Host
// (unless Options.InsecureBind) and a local Origin (a page elsewhere must
// not reach the server through a browser, nor by rebinding its name to
// this machine: 403) and then for the bearer token (401), all before any
// of its body is read (httpserve.Guard). A refused request's connection
// is closed after the answer (Connection: close): a client without the
// token holds nothing once it is answered.
func (s *Server) Handler(token string) http.Handler {
	return s.handler(token, s.opts.HTTP.WithDefaults())
}

func (s *Server) handler(token string, lim HTTPLimits) http.Handler {
	stream := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp }, &mcp.StreamableHTTPOptions{})
	mux := http.NewServeMux()
	mux.Handle(Path, stream)
	if token == "" {
		panic("mcpserver: the HTTP transport needs a token") // ReadTokenFile never gives an empty one
	}
	return httpserve.Guard(mux, httpserve.Access{Token: token, InsecureBind: s.opts.InsecureBind}, lim)
}

// ServeHTTP serves the HTTP transport on ln until ctx ends, then shuts
// down (the calls in flight get a moment to answer). What a client can
// hold is bounded by the server's HTTPLimits: connections at once, the
// time to send headers and a body, the time a connection may idle.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, token string) error {
	lim := s.opts.HTTP.WithDefaults()
	if err := httpserve.Serve(ctx, ln, s.handler(token, lim), lim); err != nil {
		return fmt.Errorf("mcp http: %w", err)
	}
	return nil
}
