package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/persona"
)

// MaxResponseBytes caps a provider response body.
const MaxResponseBytes = 32 << 20

// connRefusedRetryDelay is the pause before the single retry of a refused
// connection.
const connRefusedRetryDelay = 500 * time.Millisecond

// Provider is the "provider" engine: it calls the model provider configured in
// models.providers.<p> (non-streaming).
//
// Retries: a request is retried once, after 500 ms, only when the connection
// was refused — the request then never reached the provider, so a retry can
// neither double-bill nor duplicate a turn (and it covers a local server that
// is just starting). Nothing else is retried: HTTP errors, timeouts and
// broken responses are reported at once.
type Provider struct {
	Config *config.Config
	// Client sends the requests; nil means a client with
	// http.DefaultTransport's settings. Its Timeout is not used: the turn's
	// context bounds every request.
	Client *http.Client
	// Getenv looks up OPENAI_API_KEY / ANTHROPIC_API_KEY for the built-in
	// provider names when the config gives no apiKey; nil means os.Getenv.
	Getenv func(string) string
	// Now stamps the assistant message; nil means time.Now.
	Now func() time.Time
	// PersonaEnv is the home directory, environment and host time zone the
	// system prompt is built with (workspace, $OPENCLAW_PROFILE, time
	// zone); nil means this process's.
	PersonaEnv *persona.Env
	// Warn gets OpenClaw's bootstrap warnings (a truncated workspace
	// file); nil drops them.
	Warn func(string)
}

// target is a resolved provider model.
type target struct {
	Name     string // provider key
	API      string
	BaseURL  string
	APIKey   string
	Headers  map[string]string
	Model    string
	Def      config.ModelDef
	HasDef   bool
	Images   bool
	MaxToken int
}

func (e *Provider) now() time.Time {
	if e.Now != nil {
		return e.Now()
	}
	return time.Now()
}

func (e *Provider) client() *http.Client {
	if e.Client != nil {
		return e.Client
	}
	return defaultClient()
}

// defaultClient is made on first use (by a provider turn, not by every
// process at start).
var defaultClient = sync.OnceValue(func() *http.Client {
	return &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
})

// resolve finds the provider and model of req in the config.
func (e *Provider) resolve(req Request) (*target, error) {
	cfg := e.Config
	if req.Provider == "" || req.Model == "" {
		return nil, fail(ErrConfig, fmt.Sprintf("no model for this turn (provider %q, model %q): set the agent's model or agents.defaults.model", req.Provider, req.Model))
	}
	key, p, ok := LookupProvider(cfg, req.Provider)
	if !ok {
		return nil, fail(ErrConfig, fmt.Sprintf("unknown model provider %q: it is not configured in models.providers", req.Provider))
	}
	t := &target{Name: key, BaseURL: strings.TrimSpace(p.BaseURL), APIKey: strings.TrimSpace(p.APIKey), Headers: p.Headers, Model: req.Model}
	if d := p.Model(req.Model); d != nil {
		t.Def, t.HasDef = *d, true
	} else if p.Models != nil {
		ids := make([]string, 0, len(p.Models))
		for _, m := range p.Models {
			ids = append(ids, m.ID)
		}
		return nil, fail(ErrConfig, fmt.Sprintf("unknown model %q for provider %q (models.providers.%s.models has: %s)", req.Model, key, key, strings.Join(ids, ", ")))
	}
	t.API = strings.TrimSpace(p.API)
	if t.HasDef { // a per-model "api" overrides the provider's
		for _, raw := range rawModels(p) {
			if id, _ := raw["id"].(string); id == req.Model {
				if a, _ := raw["api"].(string); strings.TrimSpace(a) != "" {
					t.API = strings.TrimSpace(a)
				}
				break
			}
		}
	}
	if t.API == "" {
		t.API = APIOpenAICompletions
		if strings.EqualFold(key, "anthropic") {
			t.API = APIAnthropicMessages
		}
	}
	if t.API != APIOpenAICompletions && t.API != APIAnthropicMessages {
		return nil, fail(ErrConfig, fmt.Sprintf("provider %q: api %q is not supported by the provider engine (supported: %s, %s; use --engine exec:… for others)", key, t.API, APIOpenAICompletions, APIAnthropicMessages))
	}
	if t.BaseURL == "" {
		switch {
		case t.API == APIAnthropicMessages && strings.EqualFold(key, "anthropic"):
			t.BaseURL = "https://api.anthropic.com"
		case strings.EqualFold(key, "openai"):
			t.BaseURL = "https://api.openai.com/v1"
		default:
			return nil, fail(ErrConfig, fmt.Sprintf("provider %q has no baseUrl (models.providers.%s.baseUrl)", key, key))
		}
	}
	if t.APIKey == "" {
		getenv := e.Getenv
		if getenv == nil {
			getenv = os.Getenv
		}
		switch strings.ToLower(key) {
		case "openai":
			t.APIKey = strings.TrimSpace(getenv("OPENAI_API_KEY"))
		case "anthropic":
			t.APIKey = strings.TrimSpace(getenv("ANTHROPIC_API_KEY"))
		}
	}
	// unresolved ${VAR}s
	check := func(field, v string) error {
		if miss := cfg.MissingIn(v); len(miss) > 0 {
			return fail(ErrConfig, fmt.Sprintf("models.providers.%s.%s uses ${%s}, which is not set (set the environment variable or the config's env block)", key, field, strings.Join(miss, "}, ${")))
		}
		return nil
	}
	if err := check("apiKey", t.APIKey); err != nil {
		return nil, err
	}
	if err := check("baseUrl", t.BaseURL); err != nil {
		return nil, err
	}
	for _, h := range sortedKeys(t.Headers) {
		if err := check("headers."+h, t.Headers[h]); err != nil {
			return nil, err
		}
	}
	t.Images = slices.Contains(t.Def.Input, "image")
	t.MaxToken = int(t.Def.MaxTokens)
	if t.MaxToken <= 0 {
		t.MaxToken = DefaultMaxTokens
	}
	return t, nil
}

func rawModels(p config.Provider) []map[string]any {
	list, _ := p.Raw["models"].([]any)
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// systemPrompt is the agent's persona as OpenClaw builds it (package
// persona: workspace bootstrap files, identity, date and time zone, the
// session's channel, the step's context), saying that the turn runs no
// tools.
func (e *Provider) systemPrompt(req Request) string {
	env := persona.Env{Getenv: os.Getenv}
	if e.PersonaEnv != nil {
		env = *e.PersonaEnv
	} else {
		env.Home, _ = os.UserHomeDir()
		env.HostTZ = persona.HostTimezone(os.Getenv)
	}
	def := ""
	if e.Config != nil {
		def = e.Config.DefaultAgentID()
	}
	agent := req.AgentID
	if agent == "" {
		agent = def
	}
	s, _ := persona.Build(e.Config, persona.Params{
		AgentID: agent, DefaultAgent: def, SessionKey: req.SessionKey,
		Channel: req.Channel, ChatType: req.ChatType, Extra: req.ExtraSystemPrompt,
		Provider: req.Provider, Model: req.Model, Thinking: req.Thinking,
		Now: e.now(), Env: env, Warn: e.Warn,
	})
	return s
}

// apiResponse is what an API adapter extracts from a response body.
type apiResponse struct {
	Text, Thinking, ThinkingSig string
	Usage                       Usage
	StopReason                  string // pi stop reason
	ErrorMessage                string
	ToolCalls                   []string
}

// Turn implements Engine.
func (e *Provider) Turn(ctx context.Context, req Request) (*Result, error) {
	t, err := e.resolve(req)
	if err != nil {
		return nil, err
	}
	var (
		url     string
		headers = map[string]string{"Content-Type": "application/json", "Accept": "application/json"}
		body    []byte
		parse   func([]byte) (*apiResponse, error)
	)
	system := e.systemPrompt(req)
	var def *config.ModelDef
	if t.HasDef {
		def = &t.Def
	}
	window := ContextWindow(e.Config, def)
	var dropped int
	req.History, dropped = FitHistory(req.History, HistoryBudget(window, t.MaxToken, system, req.Message))
	switch t.API {
	case APIOpenAICompletions:
		url = strings.TrimRight(t.BaseURL, "/") + "/chat/completions"
		if t.APIKey != "" {
			headers["Authorization"] = "Bearer " + t.APIKey
		}
		body, err = jsonx.Marshal(openAIRequest(t, system, req))
		parse = func(b []byte) (*apiResponse, error) { return parseOpenAI(t, b) }
	case APIAnthropicMessages:
		base := strings.TrimRight(t.BaseURL, "/")
		if strings.HasSuffix(base, "/v1") {
			url = base + "/messages"
		} else {
			url = base + "/v1/messages"
		}
		if t.APIKey != "" {
			headers["x-api-key"] = t.APIKey
		}
		headers["anthropic-version"] = "2023-06-01"
		body, err = jsonx.Marshal(anthropicRequest(t, system, req))
		parse = func(b []byte) (*apiResponse, error) { return parseAnthropic(t, b) }
	}
	if err != nil {
		return nil, fail(ErrConfig, fmt.Sprintf("provider %s: cannot encode the request: %v", t.Name, err))
	}
	for k, v := range t.Headers { // configured headers last: they may override
		headers[k] = v
	}

	tctx, cancel := withTurnTimeout(ctx, turnTimeout(ctx, e.Config, req.Timeout))
	defer cancel()
	start := time.Now()
	status, respBody, ctype, err := e.post(tctx, ctx, t, url, headers, body, start)
	if err != nil {
		return nil, err
	}
	if status < 200 || status > 299 {
		return nil, providerHTTPError(t, status, ctype, respBody)
	}
	r, err := parse(respBody)
	if err != nil {
		return nil, err
	}
	r.Usage.Cost = EstimateCost(e.Config, t.Name, t.Model, r.Usage)
	msg := AssistantMessage(r.Text, r.Thinking, r.ThinkingSig, t.API, t.Name, t.Model, r.Usage, r.StopReason, r.ErrorMessage, e.now())
	return &Result{
		Reply:            r.Text,
		Assistant:        msg,
		Usage:            r.Usage,
		PromptTokens:     r.Usage.PromptTokens(),
		Provider:         t.Name,
		Model:            t.Model,
		API:              t.API,
		StopReason:       r.StopReason,
		IgnoredToolCalls: r.ToolCalls,
		DroppedMessages:  dropped,
		ContextWindow:    window,
	}, nil
}

// post sends the request within tctx and reads the whole body.
func (e *Provider) post(tctx, parent context.Context, t *target, url string, headers map[string]string, body []byte, start time.Time) (int, []byte, string, error) {
	for attempt := 0; ; attempt++ {
		hreq, err := http.NewRequestWithContext(tctx, http.MethodPost, url, bytes.NewReader(body))
		if err != nil {
			return 0, nil, "", fail(ErrConfig, fmt.Sprintf("provider %s: bad baseUrl %q: %v", t.Name, t.BaseURL, err))
		}
		for k, v := range headers {
			hreq.Header.Set(k, v)
		}
		resp, err := e.client().Do(hreq)
		if err != nil {
			if cerr := ctxFailure(tctx, parent); cerr != nil {
				return 0, nil, "", ctxError(cerr, t, start, tctx)
			}
			if attempt == 0 && errors.Is(err, syscall.ECONNREFUSED) {
				select {
				case <-time.After(connRefusedRetryDelay):
					continue
				case <-tctx.Done():
					return 0, nil, "", ctxError(ctxFailure(tctx, parent), t, start, tctx)
				}
			}
			return 0, nil, "", fail(ErrResponse, fmt.Sprintf("provider %s: cannot reach %s: %v", t.Name, url, unwrapURLError(err)))
		}
		data, rerr := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
		resp.Body.Close()
		ctype := resp.Header.Get("Content-Type")
		if rerr != nil {
			if cerr := ctxFailure(tctx, parent); cerr != nil {
				return 0, nil, "", ctxError(cerr, t, start, tctx)
			}
			return 0, nil, "", fail(ErrResponse, fmt.Sprintf("provider %s: connection closed while reading the response (HTTP %d, %d bytes read): %v", t.Name, resp.StatusCode, len(data), rerr))
		}
		if len(data) > MaxResponseBytes {
			return 0, nil, "", fail(ErrResponse, fmt.Sprintf("provider %s: response larger than %d MiB", t.Name, MaxResponseBytes>>20))
		}
		return resp.StatusCode, data, ctype, nil
	}
}

// ctxError words a context failure; a timeout names the limit in force (the
// turn's deadline), not the time measured, which a loaded host stretches.
func ctxError(cerr error, t *target, start time.Time, tctx context.Context) error {
	if errors.Is(cerr, ErrTimeout) {
		limit := time.Since(start)
		if dl, ok := tctx.Deadline(); ok {
			limit = dl.Sub(start)
		}
		return fail(ErrTimeout, fmt.Sprintf("provider %s: no complete response within %s (timed out)", t.Name, roundDur(limit)))
	}
	return fail(ErrCanceled, fmt.Sprintf("provider %s: request canceled", t.Name))
}

func unwrapURLError(err error) error {
	var ue interface{ Unwrap() error }
	if errors.As(err, &ue) {
		if inner := ue.Unwrap(); inner != nil {
			return inner
		}
	}
	return err
}

// providerHTTPError reports a non-2xx answer with the provider's own message.
func providerHTTPError(t *target, status int, ctype string, body []byte) error {
	pe := &ProviderError{Provider: t.Name, API: t.API, StatusCode: status}
	pe.Type, pe.Message = errorFromBody(body)
	if pe.Message == "" {
		pe.Message = snippet(body, ctype)
	}
	if pe.Message == "" {
		pe.Message = http.StatusText(status)
	}
	return fail(pe, pe.Error())
}

// errorFromBody extracts an error type and message from the JSON error
// shapes in use: OpenAI {"error":{"message","type","code"}}, Anthropic
// {"type":"error","error":{"type","message"}}, {"error":"…"},
// {"message":"…"}, {"detail":"…"}.
func errorFromBody(body []byte) (typ, msg string) {
	var v map[string]any
	if json.Unmarshal(body, &v) != nil {
		return "", ""
	}
	str := func(x any) string { s, _ := x.(string); return strings.TrimSpace(s) }
	switch e := v["error"].(type) {
	case map[string]any:
		msg = str(e["message"])
		typ = str(e["type"])
		if typ == "" {
			if c, ok := e["code"]; ok && c != nil {
				typ = strings.Trim(fmt.Sprint(c), " ")
			}
		}
		if msg == "" {
			b, _ := json.Marshal(e)
			msg = string(b)
		}
	case string:
		msg = strings.TrimSpace(e)
	}
	if msg == "" {
		msg = str(v["message"])
	}
	if msg == "" {
		msg = str(v["detail"])
	}
	return typ, msg
}

// snippet is a printable prefix of a body for error messages.
func snippet(body []byte, ctype string) string {
	s := strings.TrimSpace(string(body))
	if s == "" {
		return ""
	}
	if !utf8.ValidString(s) {
		return fmt.Sprintf("(%d bytes of binary data)", len(body))
	}
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 300 {
		cut := 300
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	if mt, _, _ := mime.ParseMediaType(ctype); mt != "" && mt != "application/json" {
		return "(" + mt + ") " + s
	}
	return s
}

// decodeBody parses a 2xx body as a JSON object, reporting non-JSON bodies
// and JSON error documents.
func decodeBody(t *target, body []byte, v any) error {
	var probe map[string]json.RawMessage
	if err := json.Unmarshal(body, &probe); err != nil {
		s := snippet(body, "")
		if s == "" {
			s = "(empty body)"
		}
		return fail(ErrResponse, fmt.Sprintf("provider %s: response is not JSON: %s", t.Name, s))
	}
	if raw, ok := probe["error"]; ok && string(raw) != "null" {
		typ, msg := errorFromBody(body)
		pe := &ProviderError{Provider: t.Name, API: t.API, StatusCode: 200, Type: typ, Message: msg}
		return fail(pe, pe.Error())
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fail(ErrResponse, fmt.Sprintf("provider %s: unexpected response shape: %v", t.Name, err))
	}
	return nil
}
