package gateway

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/hex"
	"io"
	"log"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
)

func newTLSFake(t *testing.T) (*fakeGateway, string) {
	g := &fakeGateway{t: t, protocol: 3, token: "tls-token"}
	g.srv = httptest.NewUnstartedServer(httpHandler(g))
	g.srv.Config.ErrorLog = log.New(io.Discard, "", 0)
	g.srv.StartTLS()
	t.Cleanup(g.srv.Close)
	sum := sha256.Sum256(g.srv.Certificate().Raw)
	return g, hex.EncodeToString(sum[:])
}

func TestTLSVerifiesCertificates(t *testing.T) {
	g, fp := newTLSFake(t)
	u := "wss" + strings.TrimPrefix(g.srv.URL, "https")

	// The test server's certificate is not in the system roots: refused.
	_, err := Dial(context.Background(), Options{URL: u, Token: g.token})
	if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "certificate") {
		t.Fatalf("unverified: %d %v", apperr.CodeOf(err), err)
	}
	// Trusted roots: accepted.
	pool := x509.NewCertPool()
	pool.AddCert(g.srv.Certificate())
	dial(t, Options{URL: u, Token: g.token, RootCAs: pool})

	// The right pin replaces CA verification; formats with colons and prefix work.
	var colons []string
	for i := 0; i < len(fp); i += 2 {
		colons = append(colons, strings.ToUpper(fp[i:i+2]))
	}
	dial(t, Options{URL: u, Token: g.token, Fingerprint: "sha256:" + strings.Join(colons, ":")})

	// A wrong pin is refused, even with trusted roots.
	wrong := strings.Repeat("ab", 32)
	_, err = Dial(context.Background(), Options{URL: u, Token: g.token, Fingerprint: wrong, RootCAs: pool})
	if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "does not match the pinned") {
		t.Fatalf("wrong pin: %d %v", apperr.CodeOf(err), err)
	}
	// A malformed pin is a usage error.
	_, err = Dial(context.Background(), Options{URL: u, Token: g.token, Fingerprint: "abc"})
	if apperr.CodeOf(err) != apperr.CodeUsage {
		t.Fatalf("bad pin: %v", err)
	}
}

func TestValidateURL(t *testing.T) {
	for _, tc := range []struct {
		url      string
		insecure bool
		ok       bool
	}{
		{"ws://127.0.0.1:18789", false, true},
		{"ws://localhost:1", false, true},
		{"ws://[::1]:1", false, true},
		{"wss://gw.example.com", false, true},
		{"ws://gw.example.com:18789", false, false},
		{"ws://10.0.0.5:18789", false, false},
		{"ws://gw.example.com:18789", true, true},
		{"http://127.0.0.1:18789", false, false},
		{"ws://", false, false},
		{"wss://user:pw@gw.example.com", false, false},
		{"", false, false},
	} {
		_, err := ValidateURL(tc.url, tc.insecure)
		if (err == nil) != tc.ok {
			t.Errorf("%q insecure=%v: %v", tc.url, tc.insecure, err)
		}
		if err != nil && apperr.CodeOf(err) != apperr.CodeUsage {
			t.Errorf("%q: code %d", tc.url, apperr.CodeOf(err))
		}
		if err != nil && strings.Contains(err.Error(), "pw@") {
			t.Errorf("%q: credentials in the error: %v", tc.url, err)
		}
	}
}
