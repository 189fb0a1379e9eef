// Package engine performs one agent turn (CONTRACT §5): given the context of a
// session and a new user message, it produces the assistant reply in pi format
// (format §4.3) with usage and cost.
//
// Two engines are built in:
//
//   - "provider" calls the model provider configured in openclaw.json
//     (models.providers.<p>, api "openai-completions" or "anthropic-messages"),
//     non-streaming, with the transcript's leaf path as context and the
//     agent's persona as system prompt (package persona); it runs no tools;
//   - "openclaw" runs a real OpenClaw turn, `openclaw agent --local`, which
//     writes the transcript and the store itself (see OpenClaw);
//   - "gateway" runs the turn in a live OpenClaw gateway (`agent` +
//     `agent.wait`), which writes the transcript and the store itself (see
//     Gateway);
//   - "exec:<command>" runs `sh -c <command>`, writes a JSON request on its
//     stdin and reads a JSON or plain-text reply from its stdout, so that
//     `openclaw agent --local …` or any script can be the agent.
//
// The engine never writes the transcript or the store: the runner appends the
// user message and Result.Assistant, unless an exec engine reports (or is seen)
// to have written the turn itself (Result.WroteTranscript).
package engine

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/jsonx"
)

// API names as they appear in models.providers.<p>.api and in the "api"
// field of assistant messages.
const (
	APIOpenAICompletions = "openai-completions"
	APIAnthropicMessages = "anthropic-messages"
	// APIExec is the "api" of assistant messages produced by an exec engine.
	APIExec = "exec"
)

// DefaultTimeout bounds a turn when neither Request.Timeout,
// agents.defaults.timeoutSeconds nor the context gives a deadline (OpenClaw's
// own default agent timeout is 600 s).
const DefaultTimeout = 600 * time.Second

// DefaultMaxTokens is the Anthropic max_tokens when the model has no maxTokens.
const DefaultMaxTokens = 4096

// Request is one agent turn: the engine gets the context and the new user
// message, and returns the assistant reply.
//
// History must not contain the new message: append the user message (and
// Result.Assistant) after the turn, and only when !Result.WroteTranscript —
// an exec engine such as `openclaw agent --local` appends both itself.
type Request struct {
	AgentID, SessionKey, SessionID string
	Channel, ChatType              string            // the session's channel and chat type ("" when unknown)
	TranscriptPath                 string            // absolute
	History                        []json.RawMessage // pi-format messages on the leaf path, root→leaf
	Message                        string            // the new user message text (not in History)
	ExtraSystemPrompt              string            // the step's context, may be ""
	Provider, Model                string            // resolved model ("mock", "mock-1")
	Thinking                       string            // "", off, minimal, low, medium, high, xhigh
	Timeout                        time.Duration     // whole-turn bound; ctx also cancels
	Env                            []string          // extra environment for exec engines
	// RunID and Step name the turn within its run (the gateway engine
	// derives its idempotency key from them: a retry never sends twice).
	RunID, Step string
	// AwaitRunID: the turn was started already on the gateway under this
	// run id (a sub-agent's task, started by sessions.create on 2026.9.x):
	// the gateway engine waits for it and reads its reply instead of
	// starting a turn. Only the gateway engine takes it (the runner checks).
	AwaitRunID string
}

// CostBreakdown is a cost in USD, as in pi's Usage.cost.
type CostBreakdown struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Usage is pi's Usage (format §4.3); it marshals with pi's field names.
type Usage struct {
	Input       int           `json:"input"`
	Output      int           `json:"output"`
	CacheRead   int           `json:"cacheRead"`
	CacheWrite  int           `json:"cacheWrite"`
	TotalTokens int           `json:"totalTokens"`
	Cost        CostBreakdown `json:"cost"`
}

// PromptTokens is what the store's totalTokens should be (format §2.2):
// input+cacheRead+cacheWrite when positive, else totalTokens, else input.
func (u Usage) PromptTokens() int {
	if p := u.Input + u.CacheRead + u.CacheWrite; p > 0 {
		return p
	}
	if u.TotalTokens > 0 {
		return u.TotalTokens
	}
	return u.Input
}

// Result is the outcome of a successful turn.
type Result struct {
	Reply        string          // assistant text ("" allowed)
	Assistant    json.RawMessage // the assistant message in pi format, ready to append
	Usage        Usage
	PromptTokens int // what the store's totalTokens should be
	Provider     string
	Model        string
	API          string
	StopReason   string // pi stop reason: stop, length, toolUse, error
	// WroteTranscript: an exec engine appended the turn itself (it said so,
	// or its reply was found appended to the transcript during the run).
	WroteTranscript bool
	// IgnoredToolCalls names tool calls the model asked for; the engine has
	// no tools, so they are not executed and not recorded.
	IgnoredToolCalls []string
	// DroppedMessages: the oldest history messages left out so that the
	// request fits ContextWindow (provider engine).
	DroppedMessages int
	ContextWindow   int
	// WroteStore: the engine updated the session's store entry itself (the
	// openclaw engine); the runner leaves it alone.
	WroteStore bool
}

// Engine performs agent turns.
type Engine interface {
	Turn(ctx context.Context, req Request) (*Result, error)
}

// Errors a caller may test with errors.Is. Every error an engine returns is an
// *apperr.Error (exit 1, or exit 5 for timeouts) wrapping one of these or a
// *ProviderError.
var (
	// ErrTimeout: the turn did not finish within its bound.
	ErrTimeout = errors.New("agent turn timed out")
	// ErrCanceled: the context was canceled.
	ErrCanceled = errors.New("agent turn canceled")
	// ErrConfig: the provider/model is not usable as configured (unknown
	// provider or model, unsupported api, unresolved ${VAR}).
	ErrConfig = errors.New("engine configuration")
	// ErrResponse: the provider or command answered with something that is
	// not a usable reply (non-JSON, no choices/content, connection closed
	// mid-body, output too large).
	ErrResponse = errors.New("unusable response")
	// ErrExec: the exec engine's command failed (could not start, non-zero
	// exit, reported an error).
	ErrExec = errors.New("exec engine command failed")
)

// ProviderError is an HTTP error answered by a model provider.
type ProviderError struct {
	Provider   string
	API        string
	StatusCode int
	Type       string // the provider's error type/code, when given
	Message    string // the provider's error message (or a body snippet)
}

func (e *ProviderError) Error() string {
	var b strings.Builder
	b.WriteString("provider ")
	b.WriteString(e.Provider)
	b.WriteString(": HTTP ")
	b.WriteString(strconv.Itoa(e.StatusCode))
	if e.Type != "" {
		b.WriteString(" (" + e.Type + ")")
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	return b.String()
}

// fail builds an *apperr.Error (exit 1, or 5 for ErrTimeout) with msg and
// cause.
func fail(cause error, msg string) *apperr.Error {
	if errors.Is(cause, ErrTimeout) {
		return &apperr.Error{Code: apperr.CodeTimeout, Status: "timeout", Msg: msg, Err: cause}
	}
	return &apperr.Error{Code: apperr.CodeError, Status: "error", Msg: msg, Err: cause}
}

// New builds the engine named by spec: "provider" (also ""),
// "openclaw" (the executable found by FindOpenClaw), "openclaw:<path>",
// "gateway" (its Endpoint is the caller's to set) or
// "exec:<shell command>".
func New(spec string, cfg *config.Config) (Engine, error) {
	s := strings.TrimSpace(spec)
	switch {
	case s == "" || s == "provider":
		return &Provider{Config: cfg}, nil
	case strings.HasPrefix(s, "exec:"):
		cmd := strings.TrimSpace(strings.TrimPrefix(s, "exec:"))
		if cmd == "" {
			return nil, apperr.Usagef("engine %q: exec: needs a command (exec:<shell command>)", spec)
		}
		return &Exec{Command: cmd, Config: cfg}, nil
	case s == SpecGateway:
		return &Gateway{Config: cfg}, nil
	case s == "openclaw" || strings.HasPrefix(s, "openclaw:"):
		bin, err := FindOpenClaw(strings.TrimPrefix(strings.TrimPrefix(s, "openclaw"), ":"), os.Getenv)
		if err != nil {
			return nil, fail(ErrConfig, "openclaw engine: "+err.Error())
		}
		return &OpenClaw{Bin: bin, Config: cfg}, nil
	}
	return nil, apperr.Usagef("unknown engine %q (want provider, openclaw[:PATH], gateway or exec:<command>)", spec)
}

// UserMessage returns the pi-format user message for text at time t:
// {"role":"user","content":[{"type":"text","text":…}],"timestamp":ms}.
func UserMessage(text string, t time.Time) json.RawMessage {
	m := struct {
		Role      string      `json:"role"`
		Content   []textBlock `json:"content"`
		Timestamp int64       `json:"timestamp"`
	}{"user", []textBlock{{"text", text}}, t.UnixMilli()}
	b, _ := jsonx.Marshal(m)
	return b
}

type textBlock struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type thinkingBlock struct {
	Type              string `json:"type"`
	Thinking          string `json:"thinking"`
	ThinkingSignature string `json:"thinkingSignature,omitempty"`
}

// AssistantMessage builds a pi-format assistant message (format §4.3), key
// order as pi writes it. thinking, when non-empty, becomes a thinking block
// before the text; the text block is always present (possibly "").
func AssistantMessage(text, thinking, thinkingSig, api, provider, model string, u Usage, stopReason, errorMessage string, t time.Time) json.RawMessage {
	content := make([]any, 0, 2)
	if thinking != "" {
		content = append(content, thinkingBlock{"thinking", thinking, thinkingSig})
	}
	content = append(content, textBlock{"text", text})
	m := struct {
		Role         string `json:"role"`
		Content      []any  `json:"content"`
		API          string `json:"api"`
		Provider     string `json:"provider"`
		Model        string `json:"model"`
		Usage        Usage  `json:"usage"`
		StopReason   string `json:"stopReason"`
		ErrorMessage string `json:"errorMessage,omitempty"`
		Timestamp    int64  `json:"timestamp"`
	}{"assistant", content, api, provider, model, u, stopReason, errorMessage, t.UnixMilli()}
	b, _ := jsonx.Marshal(m)
	return b
}

// LookupProvider finds models.providers.<name>: exact key first, then
// case-insensitively (OpenClaw lowercases provider ids).
func LookupProvider(cfg *config.Config, name string) (key string, p config.Provider, ok bool) {
	if cfg == nil || name == "" {
		return "", config.Provider{}, false
	}
	if p, ok := cfg.Models.Providers[name]; ok {
		return name, p, true
	}
	for k, p := range cfg.Models.Providers {
		if strings.EqualFold(k, name) {
			return k, p, true
		}
	}
	return "", config.Provider{}, false
}

// EstimateCost computes the cost of usage from the provider model's
// configured cost (USD per million tokens); zero when not configured.
func EstimateCost(cfg *config.Config, provider, model string, u Usage) CostBreakdown {
	_, p, ok := LookupProvider(cfg, provider)
	if !ok {
		return CostBreakdown{}
	}
	def := p.Model(model)
	if def == nil || def.Cost == nil {
		return CostBreakdown{}
	}
	c := CostBreakdown{
		Input:      def.Cost.Input / 1e6 * float64(u.Input),
		Output:     def.Cost.Output / 1e6 * float64(u.Output),
		CacheRead:  def.Cost.CacheRead / 1e6 * float64(u.CacheRead),
		CacheWrite: def.Cost.CacheWrite / 1e6 * float64(u.CacheWrite),
	}
	c.Total = c.Input + c.Output + c.CacheRead + c.CacheWrite
	return c
}

// turnTimeout is the bound of a turn: req.Timeout, else
// agents.defaults.timeoutSeconds, else DefaultTimeout — unless ctx already
// has a deadline and no explicit Timeout was given (then 0: ctx alone).
func turnTimeout(ctx context.Context, cfg *config.Config, d time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	if _, ok := ctx.Deadline(); ok {
		return 0
	}
	if cfg != nil && cfg.Defaults.TimeoutSeconds != nil && *cfg.Defaults.TimeoutSeconds > 0 {
		return time.Duration(*cfg.Defaults.TimeoutSeconds * float64(time.Second))
	}
	return DefaultTimeout
}

// withTurnTimeout derives the turn's context.
func withTurnTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if d > 0 {
		return context.WithTimeout(ctx, d)
	}
	return context.WithCancel(ctx)
}

// ctxFailure turns a finished turn context into ErrTimeout / ErrCanceled
// (nil when ctx is not done). parent tells a cancel from a deadline.
func ctxFailure(tctx, parent context.Context) error {
	if tctx.Err() == nil {
		return nil
	}
	if errors.Is(tctx.Err(), context.DeadlineExceeded) {
		return ErrTimeout
	}
	if parent.Err() != nil && errors.Is(parent.Err(), context.DeadlineExceeded) {
		return ErrTimeout
	}
	return ErrCanceled
}

// roundDur formats a duration for messages ("5s", "1.5s", "250ms").
func roundDur(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return d.Round(time.Second).String()
	case d >= time.Second:
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Millisecond).String()
}
