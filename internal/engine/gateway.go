package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway"
)

// APIGateway is the "api" the gateway engine reports (the reply's own api
// is in the transcript the gateway wrote).
const APIGateway = "gateway"

// Gateway runs the turn in a live OpenClaw gateway: an `agent` RPC on the
// session key (the agent's persona, tools and channels, as OpenClaw's own
// turn), then `agent.wait` bounded by the turn's timeout. The gateway
// writes the transcript and the store itself (Result.WroteTranscript and
// WroteStore): the runner appends nothing.
//
// The idempotency key is derived from the run id and the step, so a retry
// of the turn — after a lost connection, or a runner started again — is the
// same run on the gateway (both versions deduplicate on it): never sent
// twice.
type Gateway struct {
	Config *config.Config
	// Endpoint resolves the gateway to use (set by the runner: the explicit
	// --gateway/--context of the invocation, else this host's gateway with
	// the config's credentials).
	Endpoint func() (gateway.Endpoint, error)
	// Dial connects (default gateway.Dial with our device files).
	Dial func(ctx context.Context, o gateway.Options) (*gateway.Client, error)
	Log  func(string)
	// Poll is the pause between replays of the idempotency key while the
	// gateway finishes the call after agent.wait said the run ended
	// (default 25ms).
	Poll time.Duration
}

// IdempotencyKey is the key of a run's step: "sessions-<runId>-<step>".
func IdempotencyKey(runID, step string) string {
	if runID == "" {
		return gateway.NewIdempotencyKey()
	}
	return "sessions-" + runID + "-" + step
}

// Turn implements Engine.
func (g *Gateway) Turn(ctx context.Context, req Request) (*Result, error) {
	if g.Endpoint == nil {
		return nil, fail(ErrConfig, "gateway engine: no gateway endpoint")
	}
	timeout := turnTimeout(ctx, g.Config, req.Timeout)
	tctx, cancel := withTurnTimeout(ctx, timeout)
	defer cancel()
	ep, err := g.Endpoint()
	if err != nil {
		return nil, err
	}
	p := gateway.AgentParams{
		Message:           req.Message,
		SessionKey:        req.SessionKey,
		IdempotencyKey:    IdempotencyKey(req.RunID, req.Step),
		ExtraSystemPrompt: req.ExtraSystemPrompt, // both 1.30 and 9.x take it
		Thinking:          req.Thinking,
	}
	if timeout > 0 {
		p.TimeoutSeconds = int(math.Ceil(timeout.Seconds()))
	}
	if req.AwaitRunID != "" {
		res, err := g.await(tctx, ep, req)
		if err != nil {
			if f := ctxFailure(tctx, ctx); f != nil && !errors.Is(err, ErrTimeout) {
				return nil, fail(f, fmt.Sprintf("gateway %s: turn on %s: %v", ep.URL, req.SessionKey, f))
			}
			return nil, err
		}
		return res, nil
	}
	var fin *gateway.AgentFinal
	// One retry after a lost connection: the same idempotency key, so the
	// gateway answers the run it already has instead of starting another.
	for attempt := 0; ; attempt++ {
		fin, err = g.turnOnce(tctx, ep, p)
		if err == nil || attempt == 1 || !lostConnection(err) || tctx.Err() != nil {
			break
		}
		g.log(fmt.Sprintf("gateway engine: %v; retrying with the same idempotency key %s", err, p.IdempotencyKey))
	}
	if err != nil {
		if f := ctxFailure(tctx, ctx); f != nil && !errors.Is(err, ErrTimeout) {
			return nil, fail(f, fmt.Sprintf("gateway %s: turn on %s: %v", ep.URL, req.SessionKey, f))
		}
		return nil, err
	}
	res := &Result{Reply: fin.Text(), API: APIGateway, StopReason: "stop", WroteTranscript: true, WroteStore: true}
	var meta struct {
		AgentMeta struct {
			Provider string `json:"provider"`
			Model    string `json:"model"`
			Usage    struct {
				Input      int `json:"input"`
				Output     int `json:"output"`
				CacheRead  int `json:"cacheRead"`
				CacheWrite int `json:"cacheWrite"`
				Total      int `json:"total"`
			} `json:"usage"`
		} `json:"agentMeta"`
	}
	if len(fin.Result.Meta) > 0 {
		_ = json.Unmarshal(fin.Result.Meta, &meta)
	}
	am := meta.AgentMeta
	res.Provider, res.Model = am.Provider, am.Model
	res.Usage = Usage{Input: am.Usage.Input, Output: am.Usage.Output, CacheRead: am.Usage.CacheRead, CacheWrite: am.Usage.CacheWrite, TotalTokens: am.Usage.Total}
	if res.Usage.TotalTokens == 0 {
		res.Usage.TotalTokens = res.Usage.Input + res.Usage.Output + res.Usage.CacheRead + res.Usage.CacheWrite
	}
	res.Usage.Cost = EstimateCost(g.Config, res.Provider, res.Model, res.Usage)
	res.PromptTokens = res.Usage.PromptTokens()
	return res, nil
}

// awaitEnd waits (agent.wait, until ctx's deadline) for runID to end: an
// error when it failed (ErrResponse) or did not end in time (ErrTimeout).
func awaitEnd(ctx context.Context, c *gateway.Client, ep gateway.Endpoint, runID string) (*gateway.WaitResult, error) {
	wait := time.Duration(math.MaxInt64)
	if dl, ok := ctx.Deadline(); ok {
		wait = time.Until(dl)
	}
	w, err := c.WaitAgent(ctx, runID, wait)
	if err != nil {
		return nil, err
	}
	switch w.Status {
	case "ok":
		return w, nil
	case "error":
		return nil, fail(ErrResponse, fmt.Sprintf("gateway %s: the turn failed: %s", ep.URL, w.Error))
	default: // timeout, pending
		return nil, fail(ErrTimeout, fmt.Sprintf("gateway %s: the turn did not end within %s (agent.wait: %s)", ep.URL, wait.Round(time.Second), w.Status))
	}
}

// connect dials ep with our device files (g.Dial, else gateway.Dial).
func (g *Gateway) connect(ctx context.Context, ep gateway.Endpoint) (*gateway.Client, error) {
	return gateway.Connect(ctx, ep, g.Dial, g.Log)
}

// turnOnce: connect, agent (accepted, or the cached answer of the key),
// agent.wait for the run's end, then the call's final answer — replaying
// the key until the gateway has it (agent.wait answers at the run's
// lifecycle end, a moment before the call has written the store).
func (g *Gateway) turnOnce(ctx context.Context, ep gateway.Endpoint, p gateway.AgentParams) (*gateway.AgentFinal, error) {
	c, err := g.connect(ctx, ep)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	fin, err := g.replay(ctx, c, p)
	if err != nil {
		return nil, err
	}
	if fin == nil { // accepted: the run is going on
		if _, err := awaitEnd(ctx, c, ep, p.IdempotencyKey); err != nil {
			return nil, err
		}
		poll := g.Poll
		if poll <= 0 {
			poll = 25 * time.Millisecond
		}
		for fin == nil {
			select {
			case <-ctx.Done():
				return nil, fail(ErrTimeout, fmt.Sprintf("gateway %s: the turn ended but its result did not arrive in time", ep.URL))
			case <-time.After(poll):
			}
			if fin, err = g.replay(ctx, c, p); err != nil {
				return nil, err
			}
		}
	}
	switch fin.Status {
	case "ok":
		return fin, nil
	case "timeout":
		return nil, fail(ErrTimeout, fmt.Sprintf("gateway %s: the turn timed out: %s", ep.URL, fin.Summary))
	}
	return nil, fail(ErrResponse, fmt.Sprintf("gateway %s: the turn ended with %s: %s", ep.URL, fin.Status, fin.Summary))
}

// replay sends agent with the key; nil, nil: accepted (running).
func (g *Gateway) replay(ctx context.Context, c *gateway.Client, p gateway.AgentParams) (*gateway.AgentFinal, error) {
	var raw json.RawMessage
	params, err := p.Params(c)
	if err != nil {
		return nil, err
	}
	if err := c.Call(ctx, "agent", params, &raw); err != nil {
		return nil, err
	}
	var fin gateway.AgentFinal
	if err := json.Unmarshal(raw, &fin); err != nil {
		return nil, fail(ErrResponse, "gateway agent: unexpected answer: "+err.Error())
	}
	switch fin.Status {
	case "", "accepted", "started", "in_flight":
		// still running: 1.30 replays the key's ack ("accepted"); 9.x
		// answers "in_flight" while the call is finishing (seen live)
		return nil, nil
	}
	return &fin, nil
}

func (g *Gateway) log(m string) {
	if g.Log != nil {
		g.Log(m)
	}
}

// lostConnection: the gateway went away mid-turn (not a refusal, not a
// timeout) — worth one retry with the same key.
func lostConnection(err error) bool {
	if _, ok := gateway.AsRPCError(err); ok {
		return false
	}
	return apperr.CodeOf(err) == apperr.CodeState && !errors.Is(err, context.DeadlineExceeded)
}

// await waits for a turn the gateway started itself (Request.AwaitRunID:
// 9.x's sessions.create starts a spawned child's task through chat.send,
// under a run id of its own) and reads its reply: agent.wait's
// terminalReply when 9.x gives it, else the session's last assistant
// message (chat.history), whose usage and model the result carries.
func (g *Gateway) await(ctx context.Context, ep gateway.Endpoint, req Request) (*Result, error) {
	c, err := g.connect(ctx, ep)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	w, err := awaitEnd(ctx, c, ep, req.AwaitRunID)
	if err != nil {
		return nil, err
	}
	res := &Result{API: APIGateway, StopReason: "stop", WroteTranscript: true, WroteStore: true}
	h, err := c.ChatHistory(ctx, gateway.HistoryParams{SessionKey: req.SessionKey, Limit: 20})
	if err != nil {
		return nil, err
	}
	var last struct {
		Role     string `json:"role"`
		Provider string `json:"provider"`
		Model    string `json:"model"`
		Content  []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Usage Usage `json:"usage"`
	}
	for i := len(h.Messages) - 1; i >= 0; i-- {
		if json.Unmarshal(h.Messages[i], &last) == nil && last.Role == "assistant" {
			break
		}
		last.Role = ""
	}
	if last.Role == "assistant" {
		var parts []string
		for _, b := range last.Content {
			if b.Type == "text" && b.Text != "" {
				parts = append(parts, b.Text)
			}
		}
		res.Reply = strings.Join(parts, "\n")
		res.Provider, res.Model, res.Usage = last.Provider, last.Model, last.Usage
		res.Usage.Cost = EstimateCost(g.Config, res.Provider, res.Model, res.Usage)
		res.PromptTokens = res.Usage.PromptTokens()
	}
	if w.TerminalReply != nil && w.TerminalReply.Text != "" {
		res.Reply = w.TerminalReply.Text
	}
	return res, nil
}
