package httpserve

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
)

const (
	testToken = "0123456789abcdef0123456789abcdef" // 32 bytes
	secret    = "the-data-behind-the-guard"
)

// guarded is a server whose handler answers secret behind Guard.
func guarded(t *testing.T, a Access) *httptest.Server {
	t.Helper()
	data := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, secret) })
	hs := httptest.NewServer(Guard(data, a, Limits{}))
	t.Cleanup(hs.Close)
	return hs
}

// do sends a GET with the Host and headers given (a Host of "" leaves
// the one the URL names) and returns the status and the body.
func do(t *testing.T, url, host string, headers map[string]string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// A request must name this machine by a loopback name in its Host (a page
// elsewhere that rebinds its own name to 127.0.0.1 names itself there):
// refused 403, with none of the data, before the token is looked at.
func TestGuardHost(t *testing.T) {
	auth := map[string]string{"Authorization": "Bearer " + testToken}
	hs := guarded(t, Access{Token: testToken})
	for _, h := range []string{"localhost", "LOCALHOST:9464", "127.0.0.1", "127.0.0.1:8765", "127.3.4.5:80", "[::1]", "[::1]:9464"} {
		if code, body := do(t, hs.URL, h, auth); code != http.StatusOK || body != secret {
			t.Errorf("Host %q: %d %q, want 200", h, code, body)
		}
	}
	for _, h := range []string{"evil.example", "evil.example:9464", "localhost.evil.example", "127.0.0.1.nip.io:80", "10.0.0.7:9464", "[::2]:80", "0.0.0.0", "localhost.:80"} {
		for _, hd := range []map[string]string{auth, nil} {
			code, body := do(t, hs.URL, h, hd)
			if code != http.StatusForbidden || strings.Contains(body, secret) {
				t.Errorf("Host %q (token %v): %d %q, want 403 without the data", h, hd != nil, code, body)
			}
		}
	}
	// bound for other hosts (--insecure-bind), any name is theirs to use;
	// the token still decides
	open := guarded(t, Access{Token: testToken, InsecureBind: true})
	if code, body := do(t, open.URL, "metrics.example:9464", auth); code != http.StatusOK || body != secret {
		t.Errorf("--insecure-bind, Host metrics.example: %d %q", code, body)
	}
	if code, body := do(t, open.URL, "metrics.example:9464", nil); code != http.StatusUnauthorized || strings.Contains(body, secret) {
		t.Errorf("--insecure-bind, no token: %d %q", code, body)
	}
}

// Without a token (metrics --listen on loopback without --token-file)
// Host and Origin are checked all the same.
func TestGuardNoToken(t *testing.T) {
	hs := guarded(t, Access{})
	if code, body := do(t, hs.URL, "", nil); code != http.StatusOK || body != secret {
		t.Errorf("loopback: %d %q", code, body)
	}
	for _, c := range []struct {
		host   string
		header map[string]string
	}{
		{"evil.example", nil},
		{"evil.example:80", map[string]string{"Origin": "http://evil.example"}},
		{"", map[string]string{"Origin": "http://evil.example"}},
		{"", map[string]string{"Origin": "null"}},
	} {
		if code, body := do(t, hs.URL, c.host, c.header); code != http.StatusForbidden || strings.Contains(body, secret) {
			t.Errorf("Host %q %v: %d %q, want 403 without the data", c.host, c.header, code, body)
		}
	}
	if code, body := do(t, hs.URL, "localhost:1", map[string]string{"Origin": "http://127.0.0.1:3000"}); code != http.StatusOK || body != secret {
		t.Errorf("local origin: %d %q", code, body)
	}
}

func writeTokenFile(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A bearer token shorter than MinTokenLen bytes (what the file holds,
// its surrounding blanks and newline trimmed) is refused: a usage error
// that names neither the token nor its bytes.
func TestReadTokenFileShort(t *testing.T) {
	long := strings.Repeat("k", MinTokenLen)
	for _, content := range []string{long, long + "\n", "  " + long + "\r\n"} {
		if tok, err := ReadTokenFile(writeTokenFile(t, content), "--listen"); err != nil || tok != long {
			t.Errorf("%q: %q %v", content, tok, err)
		}
	}
	for _, content := range []string{"x", "x\n", strings.Repeat("Q", MinTokenLen-1) + "\n", "  " + strings.Repeat("Q", MinTokenLen-1) + "  \n"} {
		_, err := ReadTokenFile(writeTokenFile(t, content), "--http")
		if err == nil || apperr.CodeOf(err) != apperr.CodeUsage || !strings.Contains(err.Error(), "shorter than 32 bytes") {
			t.Errorf("%q: %v (exit %d), want exit 2 naming the 32 bytes", content, err, apperr.CodeOf(err))
		}
		if err != nil && strings.Contains(err.Error(), "QQ") {
			t.Errorf("the token is in the error: %v", err)
		}
	}
}
