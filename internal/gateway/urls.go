package gateway

import (
	"net"
	"net/url"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
)

// ValidateURL parses a gateway URL: ws:// or wss:// with a host. Plain ws://
// to a host that is not loopback is refused unless allowInsecure: the token
// would cross the network in clear text.
func ValidateURL(raw string, allowInsecure bool) (*url.URL, error) {
	s := strings.TrimSpace(raw)
	if s == "" {
		return nil, apperr.Usagef("no gateway URL")
	}
	u, err := url.Parse(s)
	if err != nil {
		return nil, apperr.Usagef("invalid gateway URL %q: %v", RedactURL(s), scrubURLError(err))
	}
	switch u.Scheme {
	case "ws", "wss":
	default:
		return nil, apperr.Usagef("invalid gateway URL %q: the scheme must be ws:// or wss://", RedactURL(s))
	}
	if u.Hostname() == "" {
		return nil, apperr.Usagef("invalid gateway URL %q: no host", RedactURL(s))
	}
	if u.User != nil {
		return nil, apperr.Usagef("invalid gateway URL %q: credentials in the URL are not accepted (use $OPENCLAW_GATEWAY_TOKEN or --gateway-token-file)", RedactURL(s))
	}
	if u.Scheme == "ws" && !IsLoopbackHost(u.Hostname()) && !allowInsecure {
		return nil, apperr.Usagef("refusing plain ws:// to %s, which is not loopback: use wss://, an SSH tunnel to 127.0.0.1, or --insecure-gateway", u.Host)
	}
	return u, nil
}

// IsLoopbackHost reports whether host (no port) is loopback: localhost,
// 127.0.0.0/8 or ::1.
func IsLoopbackHost(host string) bool {
	h := strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// RedactURL drops userinfo, query and fragment from a URL for messages.
func RedactURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Host == "" {
		if i := strings.IndexAny(raw, "?#@"); i >= 0 {
			return raw[:i] + "…"
		}
		return raw
	}
	u.User = nil
	u.RawQuery = ""
	u.Fragment = ""
	return u.String()
}

func scrubURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}
