// Package runner performs a run: the detached process `sessions send` and
// `sessions spawn` start, which does the agent turns of format §6.3 (the
// target's turn, the reply ping-pong, the announce step) or a sub-agent's
// task, writes them into the transcripts and the store, and delivers the
// announce. It records every step in the run record (package runs).
package runner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"charm.land/log/v2"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/delivery"
	"github.com/openclaw/sessions/internal/engine"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/lock"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
)

// DefaultTurnTimeout bounds one agent turn when agents.defaults.timeoutSeconds
// is not set (OpenClaw's default is 600 s).
const DefaultTurnTimeout = 600 * time.Second

// Runner executes runs against one state dir.
type Runner struct {
	State       *state.State
	Runs        *runs.Store
	Log         *log.Logger
	Now         func() time.Time
	LockTimeout time.Duration // store lock (--lock-timeout)
	// NewEngine builds the engine of a run (engine.New by default; tests
	// inject fakes).
	NewEngine func(spec string, cfg *config.Config) (engine.Engine, error)
	// GatewayEndpoint is the gateway a `gateway` engine turn runs in (the
	// invocation's explicit endpoint, else this host's live gateway).
	GatewayEndpoint func() (gateway.Endpoint, error)
	// Gateways are how this host's writes reach its live gateway (the
	// options each agent's writes are opened with); nil: the local state
	// only.
	Gateways *sessionwrite.Gateways
	// Route says where an agent's session writes go, as the host the run
	// was made on decides it (hostset.Writes.Route: this host's state dir
	// — its files, its 2026.8+ store or its live gateway — or the named
	// gateway the run went through, State then being its run home). The
	// runner does not choose.
	Route func(agent string) (sessionwrite.Route, error)
}

func (r *Runner) now() time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return time.Now()
}

// Execute runs runID to its end. It holds the run's flock for its whole
// life; a second runner for the same run exits at once.
func (r *Runner) Execute(ctx context.Context, runID string) error {
	fl := lock.NewFlock(r.Runs.LockPath(runID))
	ok, err := fl.TryLock()
	if err != nil {
		return err
	}
	if !ok {
		return apperr.Errorf("run %s already has a runner (pid %d)", runID, lock.FlockHolder(r.Runs.LockPath(runID)))
	}
	defer fl.Unlock()
	rec, err := r.Runs.Load(runID)
	if err != nil {
		return err
	}
	if runs.Terminal(rec.Status) {
		return nil
	}
	rec.Status = runs.StatusRunning
	rec.RunnerPID = os.Getpid()
	rec.StartedAt = r.now().UnixMilli()
	if err := r.Runs.Save(rec); err != nil {
		return err
	}
	newEngine := r.NewEngine
	if newEngine == nil {
		newEngine = engine.New
	}
	eng, err := newEngine(rec.Engine, r.State.Cfg)
	if err != nil {
		return r.finish(rec, err)
	}
	if oc, ok := eng.(*engine.OpenClaw); ok { // this invocation's state dir
		oc.StateDir = r.State.Dir.Path
		oc.CacheDir = filepath.Join(r.State.Dir.Path, "sessions-cli")
	}
	if g, ok := eng.(*engine.Gateway); ok {
		g.Endpoint = r.GatewayEndpoint
		g.Log = func(m string) { r.Log.Debug(m) }
	}
	x := &job{r: r, rec: rec, eng: eng}
	defer x.closeWrites()
	switch rec.Kind {
	case runs.KindSend:
		err = x.send(ctx)
	case runs.KindSpawn:
		err = x.spawn(ctx)
	default:
		err = fmt.Errorf("unknown run kind %q", rec.Kind)
	}
	// the writes closed (a SQLite writer checkpoints its WAL) before the
	// run says it ended: whoever sees "ok" sees everything it wrote
	x.closeWrites()
	return r.finish(rec, err)
}

// finish records the run's end.
func (r *Runner) finish(rec *runs.Record, err error) error {
	rec.EndedAt = r.now().UnixMilli()
	rec.ReplyDone = true
	if err != nil {
		rec.Status = runs.StatusError
		if rec.Error == "" {
			rec.Error = err.Error()
		}
	} else if !runs.Terminal(rec.Status) {
		rec.Status = runs.StatusOK
	}
	if rec.Delivery != nil && rec.Delivery.Status == "pending" {
		rec.Delivery.Status = "skipped"
	}
	if serr := r.Runs.Save(rec); serr != nil {
		return serr
	}
	return err
}

type job struct {
	r   *Runner
	rec *runs.Record
	eng engine.Engine
	// located is the entry each session's latest turn of this run read
	// (by stored key).
	located map[string]*store.Entry
	// writes is where each agent's session writes go (by agent id).
	writes map[string]sessionwrite.Writes
}

// writesFor opens (once) where agent's session writes go: its JSON store,
// its OpenClaw 2026.8+ SQLite database, or a gateway, as Route says.
func (x *job) writesFor(agent string) (sessionwrite.Writes, error) {
	if w, ok := x.writes[agent]; ok {
		return w, nil
	}
	o := sessionwrite.Options{LockTimeout: x.r.LockTimeout, Now: x.r.now, Gateways: x.r.Gateways}
	if x.r.Route == nil {
		return nil, errors.New("runner: no route for the session writes (Runner.Route unset)")
	}
	route, err := x.r.Route(agent)
	if err != nil {
		return nil, err
	}
	if route.Why != "" {
		x.r.Log.Debug("writes of agent "+agent+": "+route.Why, "era", route.Via())
	}
	w, err := sessionwrite.OpenRoute(x.r.State, agent, route, o)
	if err != nil {
		return nil, err
	}
	if x.writes == nil {
		x.writes = map[string]sessionwrite.Writes{}
	}
	x.writes[agent] = w
	return w, nil
}

func (x *job) closeWrites() {
	for a, w := range x.writes {
		_ = w.Close()
		delete(x.writes, a)
	}
}

func (x *job) save() {
	if err := x.r.Runs.Save(x.rec); err != nil {
		x.r.Log.Error("cannot save run", "run", x.rec.RunID, "err", err)
	}
}

// send performs the steps of format §6.3.
func (x *job) send(ctx context.Context) error {
	rec := x.rec
	tgt := rec.Target
	c := Context{TargetKey: displayOf(tgt)}
	if rec.Requester != nil {
		c.RequesterKey = displayOf(*rec.Requester)
		c.RequesterChannel = rec.Requester.Channel
	}
	reply, err := x.step(ctx, "turn", 0, tgt, rec.Message, MessageContext(c))
	rec.ReplyDone = true
	if err != nil {
		rec.Status = runs.StatusError
		if rec.Steps[len(rec.Steps)-1].Status == runs.StatusTimeout {
			rec.Status = runs.StatusTimeout
		}
		rec.Error = err.Error()
		x.save()
		return nil
	}
	rec.Reply = reply
	rec.Delivery = &runs.Delivery{Status: "pending", Mode: "announce"}
	x.save()
	if strings.TrimSpace(reply) == "" {
		rec.Delivery.Status = "skipped"
		rec.Delivery.Error = "no reply"
		return nil
	}
	// the route from the entry the target's turn has just read (OpenClaw
	// lists the sessions at this point; a third parse of a large store
	// would find the same route)
	target := x.announceTargetFrom(tgt, x.located[tgt.Key])
	c.TargetChannel = "unknown"
	if target != nil {
		c.TargetChannel = target.Channel
	}
	latest := reply
	max := x.r.State.Cfg.PingPongTurns()
	if st := rec.Settings; st != nil && st.PingPongTurns != nil {
		max = *st.PingPongTurns
	}
	if rec.Requester != nil && rec.Requester.Key != "" && rec.Requester.Key != tgt.Key && max > 0 {
		current, next := *rec.Requester, tgt
		requesterTurn := true
		incoming := reply
		for turn := 1; turn <= max; turn++ {
			out, err := x.step(ctx, "reply", turn, current, incoming, ReplyContext(c, requesterTurn, turn, max))
			if err != nil || strings.TrimSpace(out) == "" || IsSkip(out, ReplySkip) {
				break
			}
			latest, incoming = out, out
			current, next = next, current
			requesterTurn = !requesterTurn
		}
	}
	ann, err := x.step(ctx, "announce", 0, tgt, AnnounceMessage, AnnounceContext(c, rec.Message, reply, latest))
	switch {
	case err != nil:
		rec.Delivery.Status = "failed"
		rec.Delivery.Error = "announce step: " + err.Error()
	case strings.TrimSpace(ann) == "" || IsSkip(ann, AnnounceSkip):
		rec.Delivery.Status = "skipped"
		if strings.TrimSpace(ann) != "" {
			rec.Delivery.Error = AnnounceSkip
		}
	case target == nil:
		rec.Delivery.Status = "skipped"
		rec.Delivery.Error = "no delivery route for " + displayOf(tgt)
	default:
		x.deliver(ctx, tgt, *target, strings.TrimSpace(ann))
	}
	x.save()
	return nil
}

func displayOf(s runs.Session) string {
	if s.DisplayKey != "" {
		return s.DisplayKey
	}
	return s.Key
}

// announceTarget resolves the target's channel route from its key or its
// entry (format §6.3 resolveAnnounceTarget), reading the store.
func (x *job) announceTarget(s runs.Session) *delivery.Target {
	return x.announceTargetFrom(s, nil)
}

// announceTargetFrom is announceTarget with the session's entry as read a
// moment ago (nil: read the store now).
func (x *job) announceTargetFrom(s runs.Session, e *store.Entry) *delivery.Target {
	if e == nil {
		l, err := x.locate(s)
		if err != nil {
			return delivery.FromKey(s.Key)
		}
		e = l.Entry
	}
	var route delivery.Route
	if e != nil {
		if e.DC != nil {
			route.DCChannel, route.DCTo, route.DCAccountID = e.DC.Channel, e.DC.To, e.DC.AccountID
		}
		route.LastChannel, route.LastTo, route.LastAccountID = e.LastChannel, e.LastTo, e.LastAccountID
	}
	return delivery.Resolve(s.Key, route)
}

// deliver records the announce in the outbox, mirrors it into the target's
// transcript like OpenClaw mirrors deliveries, and sends it through the
// hook when one is configured.
func (x *job) deliver(ctx context.Context, s runs.Session, t delivery.Target, text string) {
	if x.dispatch(ctx, s, t, text) {
		if err := x.mirror(ctx, s, transcript.MirrorText(text, nil)); err != nil {
			x.r.Log.Warn("cannot mirror the delivery into the transcript", "session", s.Key, "err", err)
		}
	}
}

// dispatch records the announce in the outbox and sends it through the
// hook when one is configured; false when the hook failed.
func (x *job) dispatch(ctx context.Context, s runs.Session, t delivery.Target, text string) bool {
	rec := x.rec
	d := rec.Delivery
	d.Channel, d.To, d.AccountID, d.ThreadID, d.Message = t.Channel, t.To, t.AccountID, t.ThreadID, text
	d.At = x.r.now().UnixMilli()
	item := delivery.Item{ID: runs.NewID(), RunID: rec.RunID, Kind: "announce", SessionKey: s.Key, Target: t, Message: text, At: d.At, Status: "recorded"}
	if rec.Deliver != "" {
		if err := delivery.Hook(ctx, rec.Deliver, item, 0); err != nil {
			item.Status, item.Error = "failed", err.Error()
		} else {
			item.Status = "delivered"
		}
	}
	if err := delivery.Record(x.r.State.Dir.Path, item); err != nil {
		x.r.Log.Warn("cannot record delivery in the outbox", "err", err)
	}
	d.Status, d.Error = item.Status, item.Error
	return item.Status != "failed"
}

func (x *job) mirror(ctx context.Context, s runs.Session, text string) error {
	if text == "" {
		return nil
	}
	l, err := x.locate(s)
	if err != nil {
		return err
	}
	w, err := x.writesFor(s.AgentID)
	if err != nil {
		return err
	}
	return w.Append(ctx, l, "sessions-cli:"+x.rec.RunID+":mirror:"+s.Key, x.workspace(s.AgentID), nil,
		transcript.DeliveryMirrorMessage(text, x.r.now()))
}

func (x *job) storePath(agent string) string {
	p, _ := x.r.State.StorePath(agent)
	return p
}

// locate reads the session's current entry and transcript afresh (the
// store may have changed since the run was accepted).
func (x *job) locate(s runs.Session) (*sessionwrite.Located, error) {
	w, err := x.writesFor(s.AgentID)
	if err != nil {
		return nil, err
	}
	return w.Locate(s.Key)
}

// workspace is the header cwd for a transcript we create: the agent's
// configured workspace, else OpenClaw's default beside the state dir.
func (x *job) workspace(agent string) string {
	cfg := x.r.State.Cfg
	if a := cfg.Agent(agent); a != nil && a.Workspace != "" {
		return a.Workspace
	}
	if cfg.Defaults.Workspace != "" && agent == x.r.State.Default {
		return cfg.Defaults.Workspace
	}
	if agent == x.r.State.Default {
		return filepath.Join(x.r.State.Dir.Path, "workspace")
	}
	return filepath.Join(x.r.State.Dir.Path, "workspace-"+agent)
}

// sessionLock serialises our own turns on one session.
func (x *job) sessionLock(s runs.Session) *lock.Flock {
	h := sha256.Sum256([]byte(x.storePath(s.AgentID) + "\x00" + s.Key))
	dir := filepath.Join(x.r.State.Dir.Path, "sessions-cli", "locks")
	_ = os.MkdirAll(dir, 0o700)
	return lock.NewFlock(filepath.Join(dir, hex.EncodeToString(h[:12])+".lock"))
}

func (x *job) turnTimeout() time.Duration {
	if st := x.rec.Settings; st != nil && st.TurnTimeoutSeconds != nil && *st.TurnTimeoutSeconds > 0 {
		return time.Duration(*st.TurnTimeoutSeconds * float64(time.Second))
	}
	if t := x.r.State.Cfg.Defaults.TimeoutSeconds; t != nil && *t > 0 {
		return time.Duration(*t * float64(time.Second))
	}
	return DefaultTurnTimeout
}

// turnOptions adjust one agent turn (zero value: the defaults).
type turnOptions struct {
	Timeout  time.Duration // the turn's bound (default turnTimeout)
	Thinking string        // engine.Request.Thinking
	Env      []string      // engine.Request.Env (exec engines)
	// AwaitRunID: the gateway started the turn already (engine.Request.AwaitRunID).
	AwaitRunID string
}

// step runs one agent turn and records it as a step of the run.
func (x *job) step(ctx context.Context, name string, turn int, s runs.Session, message, extra string) (string, error) {
	return x.stepWith(ctx, name, turn, s, message, extra, turnOptions{})
}

// stepWith is step with turn options.
func (x *job) stepWith(ctx context.Context, name string, turn int, s runs.Session, message, extra string, o turnOptions) (string, error) {
	rec := x.rec
	rec.Steps = append(rec.Steps, runs.Step{Name: name, Session: displayOf(s), Turn: turn, Status: runs.StatusRunning, StartedAt: x.r.now().UnixMilli()})
	i := len(rec.Steps) - 1
	x.save()
	res, err := x.agentTurn(ctx, s, message, extra, o)
	st := &rec.Steps[i]
	st.EndedAt = x.r.now().UnixMilli()
	if err != nil {
		st.Status = runs.StatusError
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, engine.ErrTimeout) {
			st.Status = runs.StatusTimeout
		}
		st.Error = err.Error()
		x.save()
		return "", err
	}
	st.Status = runs.StatusOK
	st.Reply = res.Reply
	st.Model = res.Model
	st.Usage = &runs.Usage{Input: res.Usage.Input, Output: res.Usage.Output, Total: res.Usage.Input + res.Usage.Output, Cost: res.Usage.Cost.Total}
	x.save()
	return res.Reply, nil
}

// agentTurn: one turn on a session — context from its transcript, the
// engine, then the user and assistant messages appended in one batch and
// the store entry updated.
func (x *job) agentTurn(ctx context.Context, s runs.Session, message, extra string, o turnOptions) (*engine.Result, error) {
	timeout := x.turnTimeout()
	if o.Timeout > 0 {
		timeout = o.Timeout
	}
	tt := newTurnTimer()
	defer func() { x.r.Log.Debug("turn timing", append([]any{"session", s.Key}, tt.parts...)...) }()
	sl := x.sessionLock(s)
	if err := sl.Lock(ctx, timeout); err != nil {
		return nil, fmt.Errorf("waiting for another turn on %s: %w", s.Key, err)
	}
	defer sl.Unlock()
	tt.mark("wait")
	idem := fmt.Sprintf("sessions-cli:%s:step:%d", x.rec.RunID, len(x.rec.Steps)-1)
	w, err := x.writesFor(s.AgentID)
	if err != nil {
		return nil, err
	}
	loc, err := w.Locate(s.Key)
	if err != nil {
		return nil, err
	}
	path, entry := loc.Path, loc.Entry
	if x.located == nil {
		x.located = map[string]*store.Entry{}
	}
	x.located[s.Key] = entry
	tt.mark("locate")
	var history []json.RawMessage
	if needsHistory(x.eng) {
		// JSON era: under OpenClaw's transcript lock (a turn OpenClaw is
		// appending right now is complete in our context, not half-read)
		if history, err = w.History(ctx, loc, func(m string) { x.r.Log.Warn(m) }); err != nil {
			return nil, err
		}
	}
	tt.mark("history")
	provider, model := entry.ProviderOverride, entry.ModelOverride
	if model == "" {
		provider, model = x.r.State.Cfg.ModelFor(s.AgentID)
	} else if provider == "" {
		provider, model = x.r.State.Cfg.ResolveModel(model)
	}
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	started := x.r.now()
	req := engine.Request{
		AgentID: s.AgentID, SessionKey: s.Key, SessionID: entry.SessionID,
		Channel: sessionChannel(entry), ChatType: entry.ChatType,
		TranscriptPath: path, History: history, Message: message, ExtraSystemPrompt: extra,
		Provider: provider, Model: model, Timeout: timeout,
		Thinking: o.Thinking, Env: o.Env,
		RunID: x.rec.RunID, Step: x.stepID(), AwaitRunID: o.AwaitRunID,
	}
	if o.AwaitRunID != "" {
		if _, ok := x.eng.(*engine.Gateway); !ok {
			return nil, fmt.Errorf("the turn on %s was started by the gateway (run %s): only the gateway engine can wait for it, not %s", s.Key, o.AwaitRunID, x.rec.Engine)
		}
	}
	res, turnErr := x.eng.Turn(tctx, req)
	tt.mark("engine")
	if turnErr == nil && res.DroppedMessages > 0 {
		x.r.Log.Debug("context fitted to the model", "session", s.Key, "window", res.ContextWindow, "dropped", res.DroppedMessages, "kept", len(history)-res.DroppedMessages)
	}
	if turnErr == nil && res.WroteTranscript {
		if res.WroteStore { // OpenClaw recorded the turn in the store itself
			return res, nil
		}
		err := w.UpdateEntry(ctx, s.Key, x.turnUpdate(res))
		tt.mark("store")
		return res, err
	}
	user := engine.UserMessage(message, started)
	var assistant json.RawMessage
	if turnErr != nil {
		// keep the engine's own timeout message (it names the provider or
		// the command); give one only when the engine did not
		if tctx.Err() != nil && ctx.Err() == nil && !errors.Is(turnErr, engine.ErrTimeout) {
			turnErr = fmt.Errorf("%w after %s", engine.ErrTimeout, timeout)
		}
		assistant = transcript.AssistantMessage{API: "sessions-cli", Provider: provider, Model: model, StopReason: "error", ErrorMessage: turnErr.Error(), Timestamp: x.r.now()}.JSON()
	} else {
		assistant = res.Assistant
	}
	var update sessionwrite.TurnUpdate
	if turnErr == nil {
		update = x.turnUpdate(res)
	}
	if err := w.Append(ctx, loc, idem, x.workspace(s.AgentID), update, user, assistant); err != nil {
		if turnErr != nil {
			return nil, turnErr
		}
		if ee := (*sessionwrite.EntryError)(nil); errors.As(err, &ee) {
			return nil, ee.Err // appended; the store update failed
		}
		return nil, fmt.Errorf("cannot append the turn to %s: %w", loc.Where, err)
	}
	tt.mark("append+store")
	if turnErr != nil {
		return nil, turnErr
	}
	return res, nil
}

// stepID names the run's current step ("<index>-<name>-<turn>"): with the
// run id, the gateway engine's idempotency key.
func (x *job) stepID() string {
	i := len(x.rec.Steps) - 1
	if i < 0 {
		return "0"
	}
	st := x.rec.Steps[i]
	return fmt.Sprintf("%d-%s-%d", i, st.Name, st.Turn)
}

// sessionChannel is the channel a session talks on: its delivery context's,
// else lastChannel, else channel.
func sessionChannel(e *store.Entry) string {
	if e.DC != nil && e.DC.Channel != "" {
		return e.DC.Channel
	}
	if e.LastChannel != "" {
		return e.LastChannel
	}
	return e.Channel
}

// needsHistory: an exec engine gets the transcript's path, not its messages
// (its command reads what it wants), so the leaf path — seconds on a
// transcript of hundreds of MB — is read only for the other engines.
func needsHistory(e engine.Engine) bool {
	switch e.(type) {
	case *engine.Exec, *engine.OpenClaw, *engine.Gateway:
		return false
	}
	return true
}

// turnTimer records where a turn's time goes, for the debug log line
// "turn timing" (SESSIONS_LOG_LEVEL=debug; the runner logs to its run's
// .log file).
type turnTimer struct {
	last  time.Time
	parts []any
}

func newTurnTimer() *turnTimer { return &turnTimer{last: time.Now()} }

// mark records the time since the previous mark under name.
func (t *turnTimer) mark(name string) {
	now := time.Now()
	t.parts = append(t.parts, name, now.Sub(t.last).Round(10*time.Microsecond))
	t.last = now
}

// turnUpdate records the turn in the store entry like OpenClaw does after
// a run (updateSessionStoreAfterAgentRun: updatedAt — set by the writer —,
// model, modelProvider, contextTokens, abortedLastRun, and — only when the
// turn reported usage — the token counts; totalTokens is the prompt size).
func (x *job) turnUpdate(res *engine.Result) sessionwrite.TurnUpdate {
	ctxTokens := contextTokens(x.r.State.Cfg, res.Provider, res.Model)
	u := res.Usage
	hasUsage := u.Input > 0 || u.Output > 0 || u.CacheRead > 0 || u.CacheWrite > 0 || u.TotalTokens > 0
	return func(e *jsonx.Object) {
		if res.Provider != "" {
			_ = e.Set("modelProvider", res.Provider)
		}
		if res.Model != "" {
			_ = e.Set("model", res.Model)
		}
		_ = e.Set("contextTokens", ctxTokens)
		_ = e.Set("abortedLastRun", false)
		if hasUsage { // like OpenClaw: a turn without usage keeps the old counts
			_ = e.Set("inputTokens", u.Input)
			_ = e.Set("outputTokens", u.Output)
			_ = e.Set("totalTokens", res.PromptTokens)
		}
	}
}

// defaultContextTokens is OpenClaw's DEFAULT_CONTEXT_TOKENS.
const defaultContextTokens = 200_000

// contextTokens is what OpenClaw records as an entry's contextTokens after a
// run: agents.defaults.contextTokens when set, else the model's
// contextWindow (looked up by model id), else 200000.
func contextTokens(cfg *config.Config, provider, model string) float64 {
	if cfg == nil {
		return defaultContextTokens
	}
	if t := cfg.Defaults.ContextTokens; t != nil && *t > 0 {
		return *t
	}
	if p, ok := cfg.Models.Providers[provider]; ok {
		if m := p.Model(model); m != nil && m.ContextWindow > 0 {
			return m.ContextWindow
		}
	}
	for _, p := range cfg.Models.Providers {
		if m := p.Model(model); m != nil && m.ContextWindow > 0 {
			return m.ContextWindow
		}
	}
	return defaultContextTokens
}
