package mcpserver_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/mcpserver"
)

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// post sends an initialize request with the headers given and returns
// the status and body.
func post(t *testing.T, url string, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url+mcpserver.Path, strings.NewReader(initBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for k, v := range headers {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// Every HTTP request needs the bearer token, and one from a page that is
// not local (its Origin) is refused even with it.
func TestHTTPAuthAndOrigin(t *testing.T) {
	s := newState(t, fixtures[0])
	hs := httpServer(t, s.server(false))
	auth := "Bearer " + testToken
	cases := []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
		{"not bearer", map[string]string{"Authorization": "Basic " + testToken}, http.StatusUnauthorized},
		{"foreign origin", map[string]string{"Authorization": auth, "Origin": "https://evil.example"}, http.StatusForbidden},
		{"foreign origin naming localhost", map[string]string{"Authorization": auth, "Origin": "http://localhost.evil.example"}, http.StatusForbidden},
		{"foreign origin without a token", map[string]string{"Origin": "http://attacker.test:8080"}, http.StatusForbidden},
		{"null origin", map[string]string{"Authorization": auth, "Origin": "null"}, http.StatusForbidden},
		{"foreign host", map[string]string{"Authorization": auth, "Host": "evil.example"}, http.StatusForbidden},
		{"foreign host without a token", map[string]string{"Host": "evil.example:8765"}, http.StatusForbidden},
		{"foreign host naming localhost", map[string]string{"Authorization": auth, "Host": "localhost.evil.example:8765"}, http.StatusForbidden},
		{"localhost host", map[string]string{"Authorization": auth, "Host": "localhost:8765"}, http.StatusOK},
		{"ipv6 loopback host", map[string]string{"Authorization": auth, "Host": "[::1]:8765"}, http.StatusOK},
		{"no origin", map[string]string{"Authorization": auth}, http.StatusOK},
		{"localhost origin", map[string]string{"Authorization": auth, "Origin": "http://localhost:3000"}, http.StatusOK},
		{"loopback origin", map[string]string{"Authorization": auth, "Origin": "http://127.0.0.1:6274"}, http.StatusOK},
		{"ipv6 loopback origin", map[string]string{"Authorization": auth, "Origin": "http://[::1]:8080"}, http.StatusOK},
	}
	for _, c := range cases {
		code, body := post(t, hs.URL, c.headers)
		if code != c.want {
			t.Errorf("%s: status %d, want %d (%s)", c.name, code, c.want, body)
		}
		if strings.Contains(body, testToken) {
			t.Errorf("%s: the answer holds the token", c.name)
		}
	}
	// the SDK's own client: refused without the token or from elsewhere,
	// served with both right
	if _, err := connectHTTPWith(t, hs.URL, bearer{}, nil); err == nil {
		t.Error("a client without the token connected")
	}
	if _, err := connectHTTPWith(t, hs.URL, bearer{token: testToken, origin: "https://evil.example"}, nil); err == nil {
		t.Error("a client from a foreign origin connected")
	}
	cs, err := connectHTTPWith(t, hs.URL, bearer{token: testToken, origin: "http://localhost:5173"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	ok(t, cs, "sessions_list", map[string]any{"limit": 1})
}

func TestReadTokenFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good", "tok-123-0123456789abcdef01234567\n", 0o600)
	if tok, err := mcpserver.ReadTokenFile(good); err != nil || tok != "tok-123-0123456789abcdef01234567" {
		t.Fatalf("ReadTokenFile: %q %v", tok, err)
	}
	for _, c := range []struct {
		path, want string
	}{
		{"", "--http needs --token-file"},
		{filepath.Join(dir, "missing"), "no such file"},
		{write("open", "tok-456-0123456789abcdef01234567", 0o644), "can be read by others (mode 0644): chmod 600 it"},
		{write("group", "tok-789-0123456789abcdef01234567", 0o640), "can be read by others (mode 0640)"},
		{write("empty", " \n", 0o600), "is empty"},
		{write("short", "tok-31-0123456789abcdef01234567\n", 0o600), "holds a token shorter than 32 bytes"},
		{dir, "not a regular file"},
	} {
		_, err := mcpserver.ReadTokenFile(c.path)
		if err == nil || apperr.CodeOf(err) != apperr.CodeUsage || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ReadTokenFile(%q): %v (exit %d), want exit 2 with %q", c.path, err, apperr.CodeOf(err), c.want)
		}
		if err != nil && strings.Contains(err.Error(), "tok-") {
			t.Errorf("ReadTokenFile(%q): the token is in the error: %v", c.path, err)
		}
	}
}

func TestCheckBind(t *testing.T) {
	for _, c := range []struct {
		addr     string
		insecure bool
		ok       bool
	}{
		{"127.0.0.1:0", false, true},
		{"127.0.0.2:8765", false, true},
		{"localhost:8765", false, true},
		{"[::1]:8765", false, true},
		{"0.0.0.0:8765", false, false},
		{":8765", false, false},
		{"192.168.1.5:8765", false, false},
		{"0.0.0.0:8765", true, true},
		{"8765", false, false},
	} {
		err := mcpserver.CheckBind(c.addr, c.insecure)
		if (err == nil) != c.ok || (err != nil && apperr.CodeOf(err) != apperr.CodeUsage) {
			t.Errorf("CheckBind(%q, %v): %v", c.addr, c.insecure, err)
		}
	}
}
