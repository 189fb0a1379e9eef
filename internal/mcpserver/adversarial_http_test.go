package mcpserver_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/mcpserver"
)

// serveLimited runs the HTTP transport with the limits given on a
// loopback port and returns its base URL.
func serveLimited(t *testing.T, s *state, lim mcpserver.HTTPLimits) string {
	t.Helper()
	c := s.config()
	srv := mcpserver.New(mcpserver.Options{Ops: c, HTTP: lim})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.ServeHTTP(ctx, ln, testToken) }()
	t.Cleanup(func() { cancel(); <-done })
	return "http://" + ln.Addr().String()
}

// hostile opens a connection and sends what it is given, then holds it.
func hostile(t *testing.T, addr, send string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	if send != "" {
		if _, err := io.WriteString(c, send); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// closedWithin reports whether the server closes c within d (it may
// answer first): nil if it did.
func closedWithin(c net.Conn, d time.Duration) error {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("still open after %v", d)
	}
	return nil // EOF or a reset: closed
}

// The kinds of connection a client without the token (or a slow one with
// it) may leave open.
func hostileKinds(host string) map[string]string {
	return map[string]string{
		"idle":                   "",
		"stalled in the headers": "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n",
		"stalled in the body without the token": "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":",
		"idle after a 401":                   "GET /mcp HTTP/1.1\r\nHost: " + host + "\r\nAccept: text/event-stream\r\n\r\n",
		"idle after a 403":                   "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nOrigin: https://evil.example\r\nContent-Length: 2\r\n\r\n{}",
		"idle after a 404 without the token": "GET /nothing HTTP/1.1\r\nHost: " + host + "\r\n\r\n",
		"stalled in the body with the token": "POST /mcp HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n" +
			"Accept: application/json, text/event-stream\r\nAuthorization: Bearer " + testToken + "\r\nContent-Length: 1000\r\n\r\n{\"jsonrpc\":",
	}
}

// Idle and stalled connections, with or without the token, are closed by
// the server within its timeouts, and a client with the token is served
// while they are open.
func TestAdversarialHTTPClosesIdleAndStalled(t *testing.T) {
	s := newState(t, fixtures[0])
	lim := mcpserver.HTTPLimits{HeaderTimeout: 200 * time.Millisecond, IdleTimeout: 200 * time.Millisecond, BodyTimeout: 200 * time.Millisecond}
	url := serveLimited(t, s, lim)
	addr := strings.TrimPrefix(url, "http://")
	type held struct {
		kind string
		c    net.Conn
	}
	var conns []held
	for i := 0; i < 5; i++ {
		for kind, send := range hostileKinds(addr) {
			conns = append(conns, held{kind, hostile(t, addr, send)})
		}
	}
	// served while they are open
	cs, err := connectHTTPWith(t, url, bearer{token: testToken}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ok(t, cs, "sessions_list", map[string]any{"limit": 1})
	// each is closed: well within 10 s for timeouts of 200 ms (the bound
	// is generous for a loaded machine, the default timeouts are seconds)
	var wg sync.WaitGroup
	errs := make([]error, len(conns))
	for i, h := range conns {
		wg.Add(1)
		go func() { defer wg.Done(); errs[i] = closedWithin(h.c, 10*time.Second) }()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("%s: %v", conns[i].kind, err)
		}
	}
	ok(t, cs, "sessions_list", map[string]any{"limit": 1})
}

// A refused request is answered without its body being read, and its
// connection is closed (Connection: close).
func TestAdversarialHTTPRefusalCloses(t *testing.T) {
	s := newState(t, fixtures[0])
	url := serveLimited(t, s, mcpserver.HTTPLimits{HeaderTimeout: time.Minute, IdleTimeout: time.Minute, BodyTimeout: time.Minute})
	addr := strings.TrimPrefix(url, "http://")
	for kind, want := range map[string]int{"stalled in the body without the token": 401, "idle after a 401": 401, "idle after a 403": 403, "idle after a 404 without the token": 401} {
		c := hostile(t, addr, hostileKinds(addr)[kind])
		_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("%s: no answer before the body: %v", kind, err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != want || !resp.Close {
			t.Errorf("%s: status %d close %v, want %d and Connection: close", kind, resp.StatusCode, resp.Close, want)
		}
		if err := closedWithin(c, 10*time.Second); err != nil {
			t.Errorf("%s: %v (the timeouts are a minute: only the refusal closes it)", kind, err)
		}
	}
}

// With every slot of the connection cap taken by connections that never
// show the token, a client with it is still served: the oldest of them
// make room.
func TestAdversarialHTTPCapKeepsRoomForTheToken(t *testing.T) {
	s := newState(t, fixtures[0])
	url := serveLimited(t, s, mcpserver.HTTPLimits{MaxConns: 8, HeaderTimeout: time.Minute, IdleTimeout: time.Minute, BodyTimeout: time.Minute})
	addr := strings.TrimPrefix(url, "http://")
	var conns []net.Conn
	for i := 0; i < 24; i++ {
		send := hostileKinds(addr)["stalled in the headers"]
		if i%2 == 0 {
			send = ""
		}
		conns = append(conns, hostile(t, addr, send))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: url + mcpserver.Path, HTTPClient: &http.Client{Transport: bearer{token: testToken}}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "sessions_list", Arguments: map[string]any{"limit": 1}}); err != nil {
		t.Fatal(err)
	}
	// the oldest were pushed out: at most the cap is open
	closed := 0
	for _, c := range conns {
		if closedWithin(c, 50*time.Millisecond) == nil {
			closed++
		}
	}
	if closed < len(conns)-8 {
		t.Errorf("%d of %d held connections closed, want at least %d (cap 8)", closed, len(conns), len(conns)-8)
	}
}

// An authenticated client's stream (the standalone GET of the streamable
// transport) outlives every timeout: they bound what a client holds
// before it is served, not a stream it was given.
func TestAdversarialHTTPStreamOutlivesTimeouts(t *testing.T) {
	s := newState(t, fixtures[0])
	lim := mcpserver.HTTPLimits{HeaderTimeout: 100 * time.Millisecond, IdleTimeout: 100 * time.Millisecond, BodyTimeout: 100 * time.Millisecond}
	url := serveLimited(t, s, lim)
	addr := strings.TrimPrefix(url, "http://")
	rpc := func(body, session string) *http.Response {
		req, _ := http.NewRequest(http.MethodPost, url+mcpserver.Path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	resp := rpc(initBody, "")
	session := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || session == "" {
		t.Fatalf("initialize: %d, session %q", resp.StatusCode, session)
	}
	rpc(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session)
	c := hostile(t, addr, "GET /mcp HTTP/1.1\r\nHost: "+addr+"\r\nAccept: text/event-stream\r\nAuthorization: Bearer "+testToken+
		"\r\nMcp-Session-Id: "+session+"\r\nMcp-Protocol-Version: 2025-06-18\r\n\r\n")
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	head, err := http.ReadResponse(br, nil)
	if err != nil || head.StatusCode != 200 {
		t.Fatalf("GET stream: %v %v", head, err)
	}
	// ten times the timeouts later, the stream is still open
	deadline := time.Now().Add(time.Second)
	_ = c.SetReadDeadline(deadline)
	for {
		_, err := br.ReadByte()
		if err == nil {
			continue
		}
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			break
		}
		t.Fatalf("the stream was closed after %v: %v", time.Until(deadline)+time.Second, err)
	}
}
