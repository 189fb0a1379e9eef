package gateway

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/gatewaysel"
)

// DefaultPort is OpenClaw's default gateway port.
const DefaultPort = 18789

// Environment variables read by Resolve.
const (
	EnvURL      = "OPENCLAW_GATEWAY_URL"
	EnvToken    = "OPENCLAW_GATEWAY_TOKEN"
	EnvPassword = "OPENCLAW_GATEWAY_PASSWORD"
	EnvPort     = "OPENCLAW_GATEWAY_PORT"
)

// Endpoint is one gateway to talk to, with its credentials. The secrets are
// never marshalled; String and the JSON form show where they came from only.
type Endpoint struct {
	Context     string `json:"context,omitempty"` // the named context, if any
	URL         string `json:"url"`
	URLSource   string `json:"urlSource"`            // flag | env | context | config | default
	AuthSource  string `json:"authSource,omitempty"` // e.g. "env OPENCLAW_GATEWAY_TOKEN", "file /x", "config gateway.auth.token"
	Fingerprint string `json:"fingerprint,omitempty"`
	Insecure    bool   `json:"insecure,omitempty"`
	Token       string `json:"-"`
	Password    string `json:"-"`
}

// String names the endpoint without secrets.
func (e Endpoint) String() string {
	if e.Context != "" {
		return e.Context + " (" + e.URL + ")"
	}
	return e.URL
}

// Options returns Dial options for the endpoint (identity, tokens and
// logging are the caller's to add).
func (e Endpoint) Options() Options {
	return Options{URL: e.URL, Token: e.Token, Password: e.Password, Fingerprint: e.Fingerprint, AllowInsecure: e.Insecure}
}

// Inputs are everything Resolve looks at; it does no I/O of its own beyond
// ReadFile (token files) and Getenv.
type Inputs struct {
	// Selector is what the invocation names: --gateway URL,
	// --gateway-token-file, --insecure-gateway, --gateway-fingerprint,
	// --context (repeatable, comma-separated, or "all").
	gatewaysel.Selector

	Getenv   func(string) string
	ReadFile func(string) ([]byte, error) // default os.ReadFile
	Store    *Contexts                    // the contexts file (nil: none)
	Config   map[string]any               // openclaw.json (raw tree; nil: none)
}

func (in Inputs) getenv(k string) string {
	if in.Getenv == nil {
		return ""
	}
	return strings.TrimSpace(in.Getenv(k))
}

func (in Inputs) readFile(p string) ([]byte, error) {
	if in.ReadFile != nil {
		return in.ReadFile(p)
	}
	return fsutil.ReadFileRegular(p)
}

// Resolve returns the gateways the invocation selects, in this order:
// --gateway URL; else --context NAME... (or all); else $OPENCLAW_GATEWAY_URL;
// else the current context (`sessions context use`). None of them: an empty
// list — the command works on the local state dir. Credentials of a URL
// given by flag or environment: --gateway-token-file, else
// $OPENCLAW_GATEWAY_TOKEN, else $OPENCLAW_GATEWAY_PASSWORD (never the
// config's: they belong to the config's own gateway).
func Resolve(in Inputs) ([]Endpoint, error) {
	if in.URL != "" && len(in.Contexts) > 0 {
		return nil, apperr.Usagef("--gateway and --context are mutually exclusive")
	}
	if len(in.Contexts) > 0 {
		if in.TokenFile != "" || in.Fingerprint != "" || in.Insecure {
			return nil, apperr.Usagef("--gateway-token-file, --gateway-fingerprint and --insecure-gateway apply to --gateway URL; a context keeps its own (sessions context add)")
		}
		store := in.Store
		if store == nil {
			store = &Contexts{}
		}
		sel, err := store.Select(in.Contexts)
		if err != nil {
			return nil, err
		}
		out := make([]Endpoint, 0, len(sel))
		for _, c := range sel {
			e, err := in.fromContext(c)
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	}
	url, src := in.URL, "flag"
	if url == "" {
		url, src = in.getenv(EnvURL), "env"
	}
	if url != "" {
		e := Endpoint{URL: strings.TrimSpace(url), URLSource: src, Insecure: in.Insecure}
		if err := in.finish(&e, in.Fingerprint); err != nil {
			return nil, err
		}
		if err := in.explicitCreds(&e); err != nil {
			return nil, err
		}
		return []Endpoint{e}, nil
	}
	if in.TokenFile != "" || in.Fingerprint != "" || in.Insecure {
		return nil, apperr.Usagef("--gateway-token-file, --gateway-fingerprint and --insecure-gateway need --gateway URL (or $%s)", EnvURL)
	}
	if in.Store != nil && in.Store.Current != "" {
		c, ok := in.Store.Get(in.Store.Current)
		if !ok {
			return nil, apperr.Statef("the current context %q is not defined (sessions context use NAME, or context use --none)", in.Store.Current)
		}
		e, err := in.fromContext(c)
		if err != nil {
			return nil, err
		}
		return []Endpoint{e}, nil
	}
	return nil, nil
}

func (in Inputs) finish(e *Endpoint, fingerprint string) error {
	if _, err := ValidateURL(e.URL, e.Insecure); err != nil {
		return err
	}
	if fingerprint != "" {
		fp, err := ParseFingerprint(fingerprint)
		if err != nil {
			return err
		}
		if !strings.HasPrefix(strings.ToLower(e.URL), "wss://") {
			return apperr.Usagef("--gateway-fingerprint pins a TLS certificate: it needs a wss:// URL")
		}
		e.Fingerprint = fp
	}
	return nil
}

// explicitCreds: the token file, else the environment.
func (in Inputs) explicitCreds(e *Endpoint) error {
	if in.TokenFile != "" {
		tok, err := in.tokenFromFile(in.TokenFile)
		if err != nil {
			return err
		}
		e.Token, e.AuthSource = tok, "file "+in.TokenFile
		return nil
	}
	if t := in.getenv(EnvToken); t != "" {
		e.Token, e.AuthSource = t, "env "+EnvToken
	} else if p := in.getenv(EnvPassword); p != "" {
		e.Password, e.AuthSource = p, "env "+EnvPassword
	}
	return nil
}

func (in Inputs) tokenFromFile(path string) (string, error) {
	data, err := in.readFile(path)
	if err != nil {
		return "", apperr.Usagef("cannot read the gateway token file %s: %v", path, unwrapPath(err))
	}
	tok := strings.TrimSpace(string(data))
	if tok == "" {
		return "", apperr.Usagef("the gateway token file %s is empty", path)
	}
	if strings.ContainsAny(tok, "\r\n") {
		return "", apperr.Usagef("the gateway token file %s holds more than one line", path)
	}
	return tok, nil
}

func (in Inputs) fromContext(c Context) (Endpoint, error) {
	e := Endpoint{Context: c.Name, URL: c.Gateway, URLSource: "context", Insecure: c.Insecure}
	if err := in.finish(&e, c.Fingerprint); err != nil {
		return Endpoint{}, apperr.Usagef("context %q: %v", c.Name, err)
	}
	switch {
	case c.TokenFile != "":
		tok, err := in.tokenFromFile(c.TokenFile)
		if err != nil {
			return Endpoint{}, apperr.Usagef("context %q: %v", c.Name, err)
		}
		e.Token, e.AuthSource = tok, "file "+c.TokenFile
	case c.TokenEnv != "":
		tok := in.getenv(c.TokenEnv)
		if tok == "" {
			return Endpoint{}, apperr.Usagef("context %q: $%s is not set", c.Name, c.TokenEnv)
		}
		e.Token, e.AuthSource = tok, "env "+c.TokenEnv
	default:
		if err := in.explicitCreds(&e); err != nil {
			return Endpoint{}, err
		}
	}
	return e, nil
}

// LocalEndpoint is the gateway the config describes for this state dir, the
// way OpenClaw's CLI finds it: gateway.mode "remote" → gateway.remote.url
// (+ remote token/password/tlsFingerprint); otherwise ws://127.0.0.1:<port>
// (wss when gateway.tls.enabled), port $OPENCLAW_GATEWAY_PORT >
// gateway.port > 18789, credentials $OPENCLAW_GATEWAY_TOKEN /
// $OPENCLAW_GATEWAY_PASSWORD, then gateway.auth.token / .password (then
// gateway.remote.token / .password). A --gateway-token-file wins over all.
func LocalEndpoint(in Inputs) (Endpoint, error) {
	gw := obj(in.Config, "gateway")
	var e Endpoint
	if str(gw, "mode") == "remote" {
		remote := obj(gw, "remote")
		u := str(remote, "url")
		if u == "" {
			return Endpoint{}, apperr.Statef("gateway.mode is \"remote\" but gateway.remote.url is not set")
		}
		e = Endpoint{URL: u, URLSource: "config", Insecure: in.Insecure}
		fp := in.Fingerprint
		if fp == "" {
			fp = str(remote, "tlsFingerprint")
		}
		if err := in.finish(&e, fp); err != nil {
			return Endpoint{}, err
		}
		return e, in.configCreds(&e, []string{"remote", "auth"})
	}
	port, psrc, err := in.port(gw)
	if err != nil {
		return Endpoint{}, err
	}
	scheme := "ws"
	if b, _ := obj(gw, "tls")["enabled"].(bool); b {
		scheme = "wss"
	}
	e = Endpoint{URL: fmt.Sprintf("%s://127.0.0.1:%d", scheme, port), URLSource: psrc, Insecure: in.Insecure}
	if err := in.finish(&e, in.Fingerprint); err != nil {
		return Endpoint{}, err
	}
	return e, in.configCreds(&e, []string{"auth", "remote"})
}

func (in Inputs) port(gw map[string]any) (int, string, error) {
	if v := in.getenv(EnvPort); v != "" {
		p, err := strconv.Atoi(v)
		if err != nil || p < 1 || p > 65535 {
			return 0, "", apperr.Usagef("invalid $%s %q", EnvPort, v)
		}
		return p, "env", nil
	}
	switch v := gw["port"].(type) {
	case float64:
		if v >= 1 && v <= 65535 && v == float64(int(v)) {
			return int(v), "config", nil
		}
	case string:
		if p, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && p >= 1 && p <= 65535 {
			return p, "config", nil
		}
	}
	return DefaultPort, "default", nil
}

// configCreds: token file, then environment, then the config's sections in
// order (token before password within each).
func (in Inputs) configCreds(e *Endpoint, sections []string) error {
	if in.TokenFile != "" || in.getenv(EnvToken) != "" || in.getenv(EnvPassword) != "" {
		return in.explicitCreds(e)
	}
	gw := obj(in.Config, "gateway")
	for _, field := range []string{"token", "password"} {
		for _, sect := range sections {
			v, err := in.secret(obj(gw, sect)[field], "gateway."+sect+"."+field)
			if err != nil {
				return err
			}
			if v == "" {
				continue
			}
			if field == "token" {
				e.Token = v
			} else {
				e.Password = v
			}
			e.AuthSource = "config gateway." + sect + "." + field
			return nil
		}
	}
	return nil
}

// secret resolves a config secret: a string, or a 2026.9 secret ref
// {source:"env", id} / {source:"file", path}.
func (in Inputs) secret(v any, where string) (string, error) {
	switch x := v.(type) {
	case nil:
		return "", nil
	case string:
		s := strings.TrimSpace(x)
		if strings.HasPrefix(s, "${") {
			return "", nil // an unset ${VAR}: config.Load keeps the literal
		}
		return s, nil
	case map[string]any:
		src, _ := x["source"].(string)
		switch src {
		case "env":
			name, _ := x["id"].(string)
			if name == "" {
				name, _ = x["name"].(string)
			}
			return in.getenv(name), nil
		case "file":
			p, _ := x["path"].(string)
			if p == "" {
				p, _ = x["id"].(string)
			}
			if p == "" {
				return "", apperr.Statef("%s: a file secret ref without a path", where)
			}
			return in.tokenFromFile(p)
		}
		return "", apperr.Statef("%s: secret refs of source %q are not supported here (set $%s instead)", where, src, EnvToken)
	}
	return "", apperr.Statef("%s: not a string", where)
}

func obj(m map[string]any, k string) map[string]any {
	if m == nil {
		return nil
	}
	o, _ := m[k].(map[string]any)
	return o
}

func str(m map[string]any, k string) string {
	s, _ := m[k].(string)
	return strings.TrimSpace(s)
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
