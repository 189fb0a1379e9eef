package gateway

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
)

// RPCError is an error the gateway answered with ({"ok":false,"error":{…}}).
type RPCError struct {
	Method       string          `json:"-"`
	Code         string          `json:"code"`
	Message      string          `json:"message"`
	Details      json.RawMessage `json:"details,omitempty"`
	Retryable    bool            `json:"retryable,omitempty"`
	RetryAfterMs int64           `json:"retryAfterMs,omitempty"`
}

func (e *RPCError) Error() string {
	if e.Method != "" {
		return fmt.Sprintf("gateway %s: %s", e.Method, e.Message)
	}
	return "gateway: " + e.Message
}

// DetailCode is details.code (2026.9: AUTH_TOKEN_MISMATCH, PAIRING_REQUIRED,
// MISSING_SCOPE, PROTOCOL_MISMATCH, ...), or "".
func (e *RPCError) DetailCode() string { return e.detail("code") }

// RequestID is details.requestId of a pairing request, or "".
func (e *RPCError) RequestID() string { return e.detail("requestId") }

// MissingScope is the scope a "missing scope: X" refusal names, or "".
func (e *RPCError) MissingScope() string {
	if s := e.detail("missingScope"); s != "" {
		return s
	}
	if _, rest, ok := strings.Cut(e.Message, "missing scope: "); ok {
		return strings.TrimSpace(rest)
	}
	return ""
}

func (e *RPCError) detail(key string) string {
	if len(e.Details) == 0 {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(e.Details, &m) != nil {
		return ""
	}
	s, _ := m[key].(string)
	return s
}

// ErrClosed is the cause of calls failing because the client was closed.
var ErrClosed = errors.New("gateway connection closed")

// Errors of the connection and handshake, mapped to exit codes.

func unreachable(url string, err error) error {
	return apperr.Statef("gateway %s unreachable: %v", url, err).Wrap(err)
}

func handshakeFailed(url, format string, args ...any) *apperr.Error {
	return apperr.Statef("gateway %s: handshake failed: %s", url, fmt.Sprintf(format, args...))
}

// connectError classifies the gateway's refusal of our connect request.
func connectError(url string, e *RPCError, usedDevice bool) error {
	msg := strings.ToLower(e.Message)
	dc := e.DetailCode()
	switch {
	case dc == "PROTOCOL_MISMATCH" || strings.Contains(msg, "protocol mismatch"):
		return apperr.Statef("gateway %s speaks an unsupported protocol version (%s; this client speaks 3 and 4: OpenClaw 2026.1.30 to 2026.9.x)", url, e.Message).Wrap(e)
	case dc == "PAIRING_REQUIRED" || strings.Contains(msg, "pairing required"):
		return pairingRequired(url, e)
	case strings.Contains(msg, "device identity required") || dc == "DEVICE_IDENTITY_REQUIRED":
		if usedDevice {
			return apperr.Forbiddenf("gateway %s refused our device identity: %s", url, e.Message).Wrap(e)
		}
		return apperr.Forbiddenf("gateway %s refused the connection: %s (give a token: $OPENCLAW_GATEWAY_TOKEN, --gateway-token-file or the context's token)", url, e.Message).Wrap(e)
	case strings.Contains(msg, "unauthorized") || strings.HasPrefix(dc, "AUTH_") || e.Code == "FORBIDDEN" || e.Code == "NOT_PAIRED":
		return apperr.Forbiddenf("gateway %s refused our credentials: %s", url, e.Message).Wrap(e)
	}
	return handshakeFailed(url, "%s: %s", e.Code, e.Message).Wrap(e)
}

// ApproveCommand is the command that approves a pending device pairing on
// the gateway host (both versions have `openclaw devices approve <id>`).
func ApproveCommand(requestID string) string {
	if requestID == "" {
		return "openclaw devices list"
	}
	return "openclaw devices approve " + requestID
}

func pairingRequired(url string, e *RPCError) error {
	id := e.RequestID()
	how := fmt.Sprintf("run `%s` on the gateway host, then retry", ApproveCommand(id))
	if id == "" {
		how = "run `openclaw devices list` on the gateway host and `openclaw devices approve <requestId>` for this device, then retry"
	}
	ae := apperr.Forbiddenf("gateway %s: pairing required for this device: %s", url, how).Wrap(e)
	ae = ae.With("approveCommand", ApproveCommand(id))
	if id != "" {
		ae = ae.With("requestId", id)
	}
	return ae
}

// callError classifies an error answer to a method call. Missing scopes are
// forbidden (3), an unknown method is "unsupported" (10), the rest exit 1;
// commands can inspect the wrapped *RPCError to refine.
func callError(e *RPCError) error {
	if scope := e.MissingScope(); scope != "" {
		return apperr.Forbiddenf("gateway refused %s: the credentials lack the %s scope", e.Method, scope).Wrap(e)
	}
	if strings.HasPrefix(e.Message, "unknown method") {
		return apperr.Statef("gateway does not support %s (%s)", e.Method, e.Message).Wrap(e)
	}
	return apperr.Errorf("%s", e.Error()).Wrap(e)
}

// AsRPCError returns the gateway's own error in err's chain, if any.
func AsRPCError(err error) (*RPCError, bool) {
	var e *RPCError
	ok := errors.As(err, &e)
	return e, ok
}
