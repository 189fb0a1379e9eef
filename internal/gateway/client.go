package gateway

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/google/uuid"
	"github.com/openclaw/sessions/internal/apperr"
)

// Protocol versions this client speaks: 3 (OpenClaw 2026.1.x) and 4 (2026.9.x).
const (
	MinProtocol = 3
	MaxProtocol = 4
)

// DefaultReadLimit bounds one inbound frame: the largest frame a 2026.9
// gateway sends (25 MiB after auth). A bigger frame closes the connection.
const DefaultReadLimit = 25 << 20

// DefaultScopes are requested unless Options.Scopes says otherwise: a local
// shared-secret connection gets all of them on both versions.
var DefaultScopes = []string{"operator.admin"}

// DeviceMode says when the handshake carries our device identity.
type DeviceMode int

const (
	// DeviceAuto: only when the gateway is 2026.9.x (its challenge carries
	// capabilities) and the connection is not loopback — there, without a
	// device, a shared secret gets no scopes. 2026.1.30 accepts a token
	// from anywhere, and a device would need pairing for nothing.
	DeviceAuto DeviceMode = iota
	// DeviceAlways sends the identity on every connection.
	DeviceAlways
	// DeviceNever never sends one.
	DeviceNever
)

// Options configure Dial.
type Options struct {
	URL      string
	Token    string // shared gateway token (never logged)
	Password string // shared gateway password (never logged)
	// AllowInsecure permits plain ws:// to a host that is not loopback.
	AllowInsecure bool
	// Fingerprint pins the server certificate of a wss:// URL: the SHA-256 of
	// its DER, hex (colons and a "sha256:" prefix allowed). Empty: the
	// system's CA verification.
	Fingerprint string
	// RootCAs overrides the system roots (tests).
	RootCAs *x509.CertPool
	// Header is added to the upgrade request (e.g. what a reverse proxy in
	// front of the gateway needs; a "Host" entry sets the Host header).
	// Never put a secret here: use Token.
	Header http.Header

	Device   DeviceMode
	Identity *Identity // our device key; needed for a device connection
	// IdentityPath, when Identity is nil, is the key file loaded (or
	// created, mode 0600) only once a connection needs a device.
	IdentityPath string
	Tokens       *TokenStore // device tokens issued per gateway (may be nil)

	Scopes        []string // default DefaultScopes
	ClientVersion string   // client.version; default "dev"
	ReadLimit     int64    // default DefaultReadLimit
	// Log receives debug lines (never secrets); nil discards them.
	Log func(msg string)
	// Now is the clock for device signatures (tests); default time.Now.
	Now func() time.Time
}

// Hello is what the gateway said about itself in hello-ok.
type Hello struct {
	Protocol int `json:"protocol"`
	Server   struct {
		Version string `json:"version"`
		Host    string `json:"host"`
		ConnID  string `json:"connId"`
	} `json:"server"`
	Features struct {
		Methods []string `json:"methods"`
		Events  []string `json:"events"`
	} `json:"features"`
	Auth *struct {
		DeviceToken string   `json:"deviceToken,omitempty"`
		Role        string   `json:"role,omitempty"`
		Scopes      []string `json:"scopes,omitempty"`
	} `json:"auth,omitempty"`
	Policy struct {
		MaxPayload     int64 `json:"maxPayload"`
		TickIntervalMs int64 `json:"tickIntervalMs"`
	} `json:"policy"`
}

// HasMethod reports whether hello-ok advertised method (2026.9 also has
// callable methods it does not advertise).
func (h *Hello) HasMethod(m string) bool {
	for _, x := range h.Features.Methods {
		if x == m {
			return true
		}
	}
	return false
}

// Event is a gateway event frame.
type Event struct {
	Event   string          `json:"event"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Seq     int64           `json:"seq,omitempty"`
}

// frame is any inbound frame.
type frame struct {
	Type    string          `json:"type"`
	ID      string          `json:"id,omitempty"`
	OK      bool            `json:"ok,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Error   *RPCError       `json:"error,omitempty"`
	Event   string          `json:"event,omitempty"`
	Seq     int64           `json:"seq,omitempty"`
}

type request struct {
	Type   string `json:"type"`
	ID     string `json:"id"`
	Method string `json:"method"`
	Params any    `json:"params,omitempty"`
}

type result struct {
	payload json.RawMessage
	err     error
}

// pending is a call waiting for its response.
type pending struct {
	method     string
	final      bool                  // skip {"status":"accepted"} answers
	onAccepted func(json.RawMessage) // called (reader goroutine) with an accepted answer
	ch         chan result           // buffered 1
}

// Client is one authenticated connection. Safe for concurrent use.
type Client struct {
	url      string
	conn     *websocket.Conn
	hello    Hello
	loopback bool
	device   bool
	log      func(string)

	nextID atomic.Uint64

	mu      sync.Mutex
	calls   map[string]*pending
	subs    map[*Subscription]struct{}
	closed  bool
	doneErr error // why the connection ended

	done      chan struct{} // closed when the reader stops
	cancelRd  context.CancelFunc
	closeOnce sync.Once
}

// DefaultHandshakeTimeout bounds a handshake whose context has no deadline
// (2026.9 gives a client 15 s before auth).
const DefaultHandshakeTimeout = 15 * time.Second

// Dial connects, answers the challenge and authenticates. The context bounds
// the whole handshake (DefaultHandshakeTimeout when it has no deadline); its
// deadline running out is a handshake failure.
func Dial(ctx context.Context, o Options) (*Client, error) {
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, DefaultHandshakeTimeout)
		defer cancel()
	}
	u, err := ValidateURL(o.URL, o.AllowInsecure)
	if err != nil {
		return nil, err
	}
	logf := o.Log
	if logf == nil {
		logf = func(string) {}
	}
	httpClient, err := httpClientFor(u, o)
	if err != nil {
		return nil, err
	}
	display := RedactURL(o.URL)
	for attempt := 0; ; attempt++ {
		c, retryAfter, err := dialOnce(ctx, u, display, o, httpClient, logf)
		if err == nil || retryAfter <= 0 || attempt >= 5 {
			return c, err
		}
		// The gateway is still starting (UNAVAILABLE, retryable): wait and retry.
		logf(fmt.Sprintf("gateway %s starting; retrying in %s", display, retryAfter))
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(retryAfter):
		}
	}
}

func dialOnce(ctx context.Context, u *url.URL, display string, o Options, hc *http.Client, logf func(string)) (*Client, time.Duration, error) {
	start := time.Now()
	hdr := o.Header.Clone()
	host := hdr.Get("Host")
	hdr.Del("Host")
	conn, resp, err := websocket.Dial(ctx, u.String(), &websocket.DialOptions{
		HTTPClient:      hc,
		HTTPHeader:      hdr,
		Host:            host,
		CompressionMode: websocket.CompressionDisabled,
	})
	if err != nil {
		if resp != nil && resp.StatusCode != http.StatusSwitchingProtocols {
			// It answered, but not as a gateway socket (a proxy, the wrong
			// path, or forwarding headers from an untrusted address).
			return nil, 0, handshakeFailed(display, "the WebSocket upgrade was refused: HTTP %s", resp.Status).Wrap(err)
		}
		return nil, 0, unreachable(display, scrubDialError(err))
	}
	limit := o.ReadLimit
	if limit <= 0 {
		limit = DefaultReadLimit
	}
	conn.SetReadLimit(limit)
	fail := func(err error) (*Client, time.Duration, error) {
		conn.CloseNow() // the gateway closes a failed handshake itself
		return nil, 0, err
	}

	// 1. The challenge.
	var ch frame
	if err := readFrame(ctx, conn, &ch); err != nil {
		return fail(handshakeErr(display, "no challenge", err))
	}
	if ch.Type != "event" || ch.Event != "connect.challenge" {
		return fail(handshakeFailed(display, "expected connect.challenge, got %s %s", ch.Type, ch.Event))
	}
	var chal struct {
		Nonce        string   `json:"nonce"`
		TS           int64    `json:"ts"`
		Capabilities []string `json:"capabilities"`
	}
	if err := json.Unmarshal(ch.Payload, &chal); err != nil || chal.Nonce == "" {
		return fail(handshakeFailed(display, "malformed connect.challenge"))
	}

	// 2. connect.
	loopback := IsLoopbackHost(u.Hostname())
	useDevice := wantDevice(o.Device, loopback, chal.Capabilities != nil)
	if useDevice && o.Identity == nil && o.IdentityPath != "" {
		id, err := LoadOrCreateIdentity(o.IdentityPath, time.Now())
		if err != nil {
			return fail(err)
		}
		o.Identity = id
	}
	if useDevice && o.Identity == nil {
		return fail(apperr.Usagef("gateway %s needs a device identity for a non-loopback 2026.9 connection, and none is available", display))
	}
	// The signature time is the gateway's (the challenge's ts) when given:
	// both versions bound the skew against their own clock.
	signedAt := time.Now()
	if o.Now != nil {
		signedAt = o.Now()
	}
	if chal.TS > 0 {
		signedAt = time.UnixMilli(chal.TS)
	}
	params, err := connectParams(o, chal.Nonce, useDevice, signedAt)
	if err != nil {
		return fail(err)
	}
	if err := writeJSON(ctx, conn, request{Type: "req", ID: "connect", Method: "connect", Params: params}); err != nil {
		return fail(handshakeErr(display, "sending connect", err))
	}
	var res frame
	for {
		if err := readFrame(ctx, conn, &res); err != nil {
			return fail(handshakeErr(display, "no answer to connect", err))
		}
		if res.Type == "res" && res.ID == "connect" {
			break
		}
		// Events before hello-ok (e.g. a second challenge) are ignored.
	}
	if !res.OK {
		if res.Error == nil {
			return fail(handshakeFailed(display, "connect refused without an error"))
		}
		res.Error.Method = "connect"
		if res.Error.Retryable && res.Error.Code == "UNAVAILABLE" {
			after := time.Duration(res.Error.RetryAfterMs) * time.Millisecond
			if after <= 0 {
				after = 500 * time.Millisecond
			}
			conn.Close(websocket.StatusNormalClosure, "")
			return nil, after, apperr.Statef("gateway %s unavailable: %s", display, res.Error.Message).Wrap(res.Error)
		}
		return fail(connectError(display, res.Error, useDevice))
	}
	var hello Hello
	if err := json.Unmarshal(res.Payload, &hello); err != nil {
		return fail(handshakeFailed(display, "malformed hello-ok: %v", err))
	}
	if hello.Protocol < MinProtocol || hello.Protocol > MaxProtocol {
		return fail(apperr.Statef("gateway %s negotiated protocol %d; this client speaks %d..%d", display, hello.Protocol, MinProtocol, MaxProtocol))
	}
	if useDevice && hello.Auth != nil && hello.Auth.DeviceToken != "" && o.Tokens != nil {
		if err := o.Tokens.Put(TokenKey(o.URL, "operator"), DeviceToken{
			Token: hello.Auth.DeviceToken, Role: hello.Auth.Role, Scopes: hello.Auth.Scopes, Protocol: hello.Protocol,
		}); err != nil {
			logf(fmt.Sprintf("gateway: could not keep the device token: %v", err))
		}
	}
	if hello.Auth != nil && hello.Auth.Scopes != nil && len(hello.Auth.Scopes) == 0 {
		return fail(apperr.Forbiddenf("gateway %s accepted the connection but granted no scopes (a non-loopback 2026.9 gateway needs a paired device: connect with a device identity)", display))
	}
	logf(fmt.Sprintf("gateway %s: protocol %d, server %s, device %v, handshake %s", display, hello.Protocol, hello.Server.Version, useDevice, time.Since(start).Round(time.Microsecond)))

	rctx, cancel := context.WithCancel(context.Background())
	c := &Client{
		url: display, conn: conn, hello: hello, loopback: loopback, device: useDevice, log: logf,
		calls: map[string]*pending{}, subs: map[*Subscription]struct{}{},
		done: make(chan struct{}), cancelRd: cancel,
	}
	go c.readLoop(rctx)
	return c, 0, nil
}

// wantDevice decides whether the handshake carries our device identity.
// A 2026.9 challenge carries "capabilities"; a 2026.1.30 one does not.
func wantDevice(mode DeviceMode, loopback, challengeHasCaps bool) bool {
	switch mode {
	case DeviceAlways:
		return true
	case DeviceAuto:
		return !loopback && challengeHasCaps
	}
	return false
}

func handshakeErr(display, what string, err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return handshakeFailed(display, "%s: timed out", what).Wrap(err)
	}
	if isTooBig(err) {
		return handshakeFailed(display, "%s: frame larger than the read limit", what).Wrap(err)
	}
	return handshakeFailed(display, "%s: %v", what, closeReason(err)).Wrap(err)
}

// connectParams builds the connect request: only fields both protocol
// versions know (both schemas are closed).
func connectParams(o Options, nonce string, useDevice bool, now time.Time) (map[string]any, error) {
	scopes := o.Scopes
	if len(scopes) == 0 {
		scopes = DefaultScopes
	}
	ver := o.ClientVersion
	if ver == "" {
		ver = "dev"
	}
	auth := map[string]any{}
	token := o.Token
	switch {
	case o.Token != "":
		auth["token"] = o.Token
	case o.Password != "":
		auth["password"] = o.Password
	}
	p := map[string]any{
		"minProtocol": MinProtocol,
		"maxProtocol": MaxProtocol,
		"client": map[string]any{
			"id": "cli", "mode": "cli", "version": ver, "platform": runtime.GOOS,
		},
		"role":   "operator",
		"scopes": scopes,
		"caps":   []string{},
	}
	if useDevice {
		// Without a shared secret, a device token issued earlier authenticates:
		// 2026.1.30 takes it as auth.token, 2026.9 as auth.deviceToken.
		if token == "" && o.Password == "" && o.Tokens != nil {
			if dt, ok := o.Tokens.Get(TokenKey(o.URL, "operator")); ok {
				if dt.Protocol >= 4 {
					auth["deviceToken"] = dt.Token
				} else {
					auth["token"] = dt.Token
				}
				token = dt.Token
			}
		}
		p["device"] = o.Identity.Sign(SignInput{
			ClientID: "cli", ClientMode: "cli", Role: "operator", Scopes: scopes,
			SignedAt: now, Token: token, Nonce: nonce,
		})
	}
	if len(auth) > 0 {
		p["auth"] = auth
	}
	return p, nil
}

// URL is the gateway's URL without credentials.
func (c *Client) URL() string { return c.url }

// Hello is the gateway's hello-ok.
func (c *Client) Hello() Hello { return c.hello }

// Protocol is the negotiated protocol version (3: 2026.1.x, 4: 2026.9.x).
func (c *Client) Protocol() int { return c.hello.Protocol }

// UsedDevice reports whether the connection authenticated a device identity.
func (c *Client) UsedDevice() bool { return c.device }

// Done is closed when the connection has ended.
func (c *Client) Done() <-chan struct{} { return c.done }

// Call sends method with params and decodes the payload of its answer into
// out (nil: ignore it). The context bounds the call: its deadline running
// out is a timeout (exit 5); the call's late answer is then dropped. Without
// a deadline a call waits until answered or the connection ends.
func (c *Client) Call(ctx context.Context, method string, params, out any) error {
	return c.call(ctx, method, params, out, false, nil)
}

// CallFinal is Call for methods that answer twice (agent): an answer with
// {"status":"accepted"} is passed to onAccepted (may be nil, runs on the
// reader goroutine: keep it short) and the call waits for the final one.
func (c *Client) CallFinal(ctx context.Context, method string, params, out any, onAccepted func(json.RawMessage)) error {
	return c.call(ctx, method, params, out, true, onAccepted)
}

func (c *Client) call(ctx context.Context, method string, params, out any, final bool, onAccepted func(json.RawMessage)) error {
	id := "r" + strconv.FormatUint(c.nextID.Add(1), 10)
	p := &pending{method: method, final: final, onAccepted: onAccepted, ch: make(chan result, 1)}
	c.mu.Lock()
	if c.closed {
		err := c.doneErr
		c.mu.Unlock()
		return c.connLost(method, err)
	}
	c.calls[id] = p
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.calls, id)
		c.mu.Unlock()
	}()

	if params == nil {
		params = map[string]any{}
	}
	data, err := json.Marshal(request{Type: "req", ID: id, Method: method, Params: params})
	if err != nil {
		return apperr.Errorf("gateway %s: %s: cannot encode the params: %v", c.url, method, err)
	}
	// The gateway closes the connection on a frame over its maxPayload:
	// refuse it here, with a message that says why.
	if maxP := c.hello.Policy.MaxPayload; maxP > 0 && int64(len(data)) > maxP {
		return apperr.Errorf("gateway %s: %s request is %d bytes, over the gateway's limit of %d", c.url, method, len(data), maxP)
	}
	if err := c.conn.Write(ctx, websocket.MessageText, data); err != nil {
		if ctx.Err() != nil {
			return c.ctxError(ctx, method)
		}
		return c.connLost(method, err)
	}
	select {
	case r := <-p.ch:
		if r.err != nil {
			return r.err
		}
		if out != nil && len(r.payload) > 0 {
			if err := json.Unmarshal(r.payload, out); err != nil {
				return apperr.Statef("gateway %s: unexpected %s answer: %v", c.url, method, err)
			}
		}
		return nil
	case <-ctx.Done():
		return c.ctxError(ctx, method)
	case <-c.done:
		// A result may have been delivered just before the connection ended.
		select {
		case r := <-p.ch:
			if r.err == nil && out != nil && len(r.payload) > 0 {
				if err := json.Unmarshal(r.payload, out); err != nil {
					return apperr.Statef("gateway %s: unexpected %s answer: %v", c.url, method, err)
				}
			}
			return r.err
		default:
		}
		c.mu.Lock()
		err := c.doneErr
		c.mu.Unlock()
		return c.connLost(method, err)
	}
}

func (c *Client) ctxError(ctx context.Context, method string) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return apperr.Timeoutf("gateway %s: %s timed out", c.url, method).Wrap(context.DeadlineExceeded)
	}
	return apperr.Errorf("gateway %s: %s canceled", c.url, method).Wrap(ctx.Err())
}

func (c *Client) connLost(method string, err error) error {
	if errors.Is(err, ErrClosed) {
		return apperr.Errorf("gateway %s: %s: client closed", c.url, method).Wrap(ErrClosed)
	}
	if isTooBig(err) {
		return apperr.Statef("gateway %s: connection closed during %s: a frame exceeded the read limit", c.url, method).Wrap(err)
	}
	return apperr.Statef("gateway %s: connection lost during %s: %v", c.url, method, closeReason(err)).Wrap(err)
}

// readLoop routes every inbound frame until the connection ends.
func (c *Client) readLoop(ctx context.Context) {
	var err error
	for {
		var f frame
		if err = readFrame(ctx, c.conn, &f); err != nil {
			break
		}
		switch f.Type {
		case "res":
			c.deliver(f)
		case "event":
			c.dispatch(Event{Event: f.Event, Payload: f.Payload, Seq: f.Seq})
		}
	}
	c.mu.Lock()
	if c.closed {
		err = ErrClosed
	}
	c.closed = true
	c.doneErr = err
	subs := c.subs
	c.subs = map[*Subscription]struct{}{}
	c.mu.Unlock()
	for s := range subs {
		s.end(c.connLost("subscription", err))
	}
	if !errors.Is(err, ErrClosed) {
		c.log(fmt.Sprintf("gateway %s: connection ended: %v", c.url, closeReason(err)))
	}
	close(c.done)
}

func (c *Client) deliver(f frame) {
	c.mu.Lock()
	p := c.calls[f.ID]
	if p == nil {
		c.mu.Unlock()
		return // already settled (agent's second answer after agent.wait), or abandoned
	}
	if p.final && f.OK && isAccepted(f.Payload) {
		c.mu.Unlock()
		if p.onAccepted != nil {
			p.onAccepted(f.Payload)
		}
		return
	}
	delete(c.calls, f.ID)
	c.mu.Unlock()
	if !f.OK {
		e := f.Error
		if e == nil {
			e = &RPCError{Code: "UNKNOWN", Message: "error without details"}
		}
		e.Method = p.method
		p.ch <- result{payload: f.Payload, err: callError(e)}
		return
	}
	p.ch <- result{payload: f.Payload}
}

func isAccepted(payload json.RawMessage) bool {
	var s struct {
		Status string `json:"status"`
	}
	return json.Unmarshal(payload, &s) == nil && s.Status == "accepted"
}

// Close ends the connection (normal closure) and fails calls still waiting.
func (c *Client) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		done := make(chan struct{})
		go func() {
			_ = c.conn.Close(websocket.StatusNormalClosure, "bye")
			close(done)
		}()
		select {
		case <-done:
		case <-ctx.Done():
			_ = c.conn.CloseNow()
		}
		c.cancelRd()
		<-c.done
	})
	return nil
}

func readFrame(ctx context.Context, conn *websocket.Conn, f *frame) error {
	for {
		typ, data, err := conn.Read(ctx)
		if err != nil {
			return err
		}
		if typ != websocket.MessageText {
			continue
		}
		*f = frame{}
		if err := json.Unmarshal(data, f); err != nil {
			return fmt.Errorf("malformed frame: %w", err)
		}
		return nil
	}
}

func writeJSON(ctx context.Context, conn *websocket.Conn, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return conn.Write(ctx, websocket.MessageText, data)
}

func isTooBig(err error) bool {
	return websocket.CloseStatus(err) == websocket.StatusMessageTooBig || (err != nil && strings.Contains(err.Error(), "read limited at"))
}

// closeReason describes how a connection ended, without Go internals.
func closeReason(err error) string {
	if err == nil {
		return "closed"
	}
	var ce websocket.CloseError
	if errors.As(err, &ce) {
		if ce.Reason != "" {
			return fmt.Sprintf("closed by the gateway (%d %s)", int(ce.Code), ce.Reason)
		}
		return fmt.Sprintf("closed by the gateway (%d)", int(ce.Code))
	}
	if errors.Is(err, net.ErrClosed) || strings.Contains(err.Error(), "EOF") {
		return "closed by the gateway"
	}
	return err.Error()
}

// scrubDialError drops the URL from dial errors (it may carry userinfo).
func scrubDialError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// httpClientFor builds the HTTP client of the upgrade: TLS verification, or
// the certificate pin.
func httpClientFor(u *url.URL, o Options) (*http.Client, error) {
	if u.Scheme != "wss" {
		return &http.Client{}, nil
	}
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, RootCAs: o.RootCAs}
	if o.Fingerprint != "" {
		want, err := ParseFingerprint(o.Fingerprint)
		if err != nil {
			return nil, err
		}
		// The pin replaces CA verification (like OpenClaw's tlsFingerprint).
		cfg.InsecureSkipVerify = true
		cfg.VerifyConnection = func(cs tls.ConnectionState) error {
			if len(cs.PeerCertificates) == 0 {
				return errors.New("no server certificate")
			}
			got := sha256.Sum256(cs.PeerCertificates[0].Raw)
			if hex.EncodeToString(got[:]) != want {
				return fmt.Errorf("server certificate fingerprint %s does not match the pinned %s", hex.EncodeToString(got[:]), want)
			}
			return nil
		}
	}
	return &http.Client{Transport: &http.Transport{TLSClientConfig: cfg, Proxy: http.ProxyFromEnvironment}}, nil
}

// ParseFingerprint normalizes a SHA-256 certificate fingerprint: 64 hex
// digits, colons and a "sha256:" prefix allowed, any case.
func ParseFingerprint(s string) (string, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimPrefix(t, "sha256:")
	t = strings.TrimPrefix(t, "sha256 ")
	t = strings.ReplaceAll(t, ":", "")
	if len(t) != 64 {
		return "", apperr.Usagef("invalid --gateway-fingerprint: want the SHA-256 of the certificate, 64 hex digits")
	}
	if _, err := hex.DecodeString(t); err != nil {
		return "", apperr.Usagef("invalid --gateway-fingerprint: not hex")
	}
	return t, nil
}

// NewIdempotencyKey returns a fresh key for agent calls (it becomes the runId).
func NewIdempotencyKey() string { return "sessions-" + uuid.NewString() }
