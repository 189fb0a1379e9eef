// Package spawn implements `sessions spawn`: OpenClaw's sessions_spawn
// without a gateway. The child session is created in the target agent's
// store, a run is recorded, and a detached runner performs the sub-agent's
// task, the announce back to the requester, the cleanup; the command
// returns as soon as the child exists and its runner is started.
package spawn

import (
	"context"
	"fmt"
	"github.com/openclaw/sessions/internal/era"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/archive"
	"github.com/openclaw/sessions/internal/cmd/send"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
	"github.com/spf13/cobra"
	"github.com/tidwall/gjson"
)

// Options are the parsed flags of `sessions spawn`.
type Options struct {
	f          *cmdutil.Factory
	Task       string
	Label      string
	Model      string
	Thinking   string
	RunTimeout int
	Cleanup    string
	Engine     string
	OpenClaw   string
	Deliver    string
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "spawn TASK [flags]",
		Short: "Spawn a background sub-agent run and announce its result to the requester",
		Long: `Spawn a sub-agent, as OpenClaw's sessions_spawn does, without a gateway: a new
session agent:<agent>:subagent:<uuid> is created (spawnedBy = the requester,
--label, the model override), and a detached runner performs the task on it
with OpenClaw's sub-agent context as extra system prompt. The command returns
at once with the run id and the child's key; it never waits for the task.

When the task ends (or --run-timeout S aborts it), the announce step runs on
the child; unless it answers exactly ANNOUNCE_SKIP, the announce
  Status: completed successfully | timed out | failed: <error>
  Result: <the child's reply>
  Notes: <what the announce step added, if anything>
  Stats: runtime … • tokens … • est $… • sessionKey … • sessionId … • transcript …
is delivered to the requester's channel (recorded in the outbox, sent through
--deliver exec:COMMAND) and written into the requester's transcript.
--cleanup delete then removes the child entry and renames its transcript to
<file>.deleted.<timestamp>; otherwise the child is archived that way
agents.defaults.subagents.archiveAfterMinutes (default 60) after creation by
whichever 'sessions' command runs next (see 'sessions runs --sweep').

The requester is --as KEY / $OPENCLAW_SESSION_KEY, or for the host operator the
main session of --agent or the default agent. --agent ID spawns into another
agent when the requester agent's subagents.allowAgents allows it ("*" = any).
Refused before anything is written: a sub-agent requester (forbidden), an
agent not allowed (forbidden), an unknown agent (exit 4), an invalid thinking
level, a label over 64 characters (512 on a 2026.8+ agent; exit 2), a model that is malformed, of an
unconfigured provider, missing from the provider's models list or outside the
agents.defaults.models allowlist (exit 1), an OpenClaw 2026.8+ (SQLite) agent
while an OpenClaw process other than a gateway live on this host holds the
state dir (exit 10: use --gateway; with its gateway live, the spawn goes
through it, below).
On 2026.8+ state --cleanup delete archives the child row (archivedAt) instead
of deleting it; the run record says so (spawn.rowArchived).

The engine (--engine or $SESSIONS_ENGINE) is as for send; an exec engine runs
with OPENCLAW_SESSION_KEY set to the child's key.

Through a gateway (--gateway URL, --context NAME, $OPENCLAW_GATEWAY_URL, a
current context: the host operator's spawn from agent:<--agent or main>:main,
or with --as the requester's spawn checked against that host's config read
with config.get — the same refusals as above, the target agent's sub-agent
model default —, no local state dir needed; or an OpenClaw 2026.8+ agent
whose gateway is live on this host), the child is made by the gateway's own spawn: 1.30's
sessions_spawn recipe (an agent turn with spawnedBy, label, lane subagent and
the sub-agent system prompt), 9.x's sessions.create with parentSessionKey.
The announce goes into the requester with chat.inject, or as a turn of the
requester when the token lacks operator.admin; --cleanup delete removes the
child through the gateway. The engine is the gateway's (another one: exit 2).

JSON: {"status":"accepted","childSessionKey","runId"[,"modelApplied":true]}.
Follow the run with 'sessions wait RUN_ID' (the child's reply) or 'sessions runs'.`,
		Example: `  sessions spawn "Collect build stats for the last 3 CI runs" --label ci-stats
  sessions --as agent:main:main spawn "check disk usage on web-1" --agent ops --run-timeout 300 --json
  sessions spawn "summarise today's alerts" --model mock/mock-2 --thinking low --cleanup delete`,
		Args: cmdutil.ExactArgs(1, "TASK"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Task = args[0]
			if strings.TrimSpace(o.Task) == "" {
				return apperr.Usagef("task required")
			}
			if o.RunTimeout < 0 {
				return apperr.Usagef("--run-timeout must be 0 or more seconds (got %d)", o.RunTimeout)
			}
			switch o.Cleanup {
			case "keep", "delete":
			default:
				return apperr.Usagef("invalid --cleanup %q (want keep or delete)", o.Cleanup)
			}
			if err := send.ResolveEngineDeliver(f.Getenv, &o.Engine, &o.Deliver); err != nil {
				return err
			}
			if runF != nil {
				return runF(o)
			}
			return run(o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Label, "label", "", "label the child session with `LABEL` (1-64 characters; 1-512 on a 2026.8+ agent)")
	fl.StringVar(&o.Model, "model", "", "run the sub-agent with this `PROVIDER/MODEL` (or alias); default: the agent's subagents.model")
	fl.StringVar(&o.Thinking, "thinking", "", "thinking `LEVEL`: off, minimal, low, medium, high (xhigh for some models)")
	fl.IntVar(&o.RunTimeout, "run-timeout", 0, "abort the sub-agent's task after `S` seconds (0 = the turn timeout)")
	cmdutil.EnumVar(cmd, &o.Cleanup, "cleanup", "keep", "after the announce: keep the child session, or delete it (archive its transcript)", "keep", "delete")
	fl.StringVar(&o.Engine, "engine", "", "what produces the agent turns: auto | provider | openclaw | gateway | exec:COMMAND (default $SESSIONS_ENGINE, else auto)")
	fl.StringVar(&o.OpenClaw, "openclaw", "", "the openclaw executable for --engine openclaw/auto (default $SESSIONS_OPENCLAW, else openclaw on $PATH)")
	_ = cmd.RegisterFlagCompletionFunc("engine", send.CompleteEngine)
	fl.StringVar(&o.Deliver, "deliver", "", "deliver the announce through exec:COMMAND (default $SESSIONS_DELIVER)")
	_ = cmd.RegisterFlagCompletionFunc("thinking", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"off", "minimal", "low", "medium", "high", "xhigh"}, cobra.ShellCompDirectiveNoFileComp
	})
	return cmd
}

// Result is the JSON document of `sessions spawn` (key order of OpenClaw's
// sessions_spawn result).
type Result struct {
	Status          string `json:"status"`
	ChildSessionKey string `json:"childSessionKey"`
	RunID           string `json:"runId"`
	ModelApplied    *bool  `json:"modelApplied,omitempty"`
	Warning         string `json:"warning,omitempty"`
}

func run(o *Options) error {
	f := o.f
	if ep, err := send.NamedGateway(f); err != nil {
		return err
	} else if ep != nil {
		return runRemote(o, *ep)
	}
	s, err := f.State()
	if err != nil {
		return err
	}
	// 1. who asks (format §6.4 step 3, 4)
	if s.Req.Subagent {
		return apperr.Forbiddenf("%s", policy.MsgSpawnFromSubagent)
	}
	label := ""
	if strings.TrimSpace(o.Label) != "" {
		// 2026.9.6's 512 here; the target's era decides once it is open
		l, err := sessionwrite.ParseLabel("", o.Label)
		if err != nil {
			return err
		}
		label = l
	}
	reqAgent := s.Req.Agent
	reqKey := s.Req.Key
	if s.Req.Operator() {
		reqKey = keys.MainOf(reqAgent)
	}
	// 2. the target agent (step 5)
	target := reqAgent
	if s.AgentFlag != "" {
		target = s.AgentFlag
	}
	if target != reqAgent {
		var allow []string
		if a := s.Cfg.Agent(reqAgent); a != nil {
			allow = a.Subagents.AllowAgents
		}
		if msg := policy.SpawnTarget(allow, reqAgent, target, config.NormalizeAgentID); msg != "" {
			return apperr.Forbiddenf("%s", msg)
		}
	}
	if err := s.CheckAgent(target); err != nil {
		return err
	}
	// 3. model and thinking (steps 7, 8, 9)
	modelRef := strings.TrimSpace(o.Model)
	if modelRef == "" {
		modelRef = strings.TrimSpace(s.Cfg.SubagentModelFor(target))
	}
	thinking := ""
	if raw := strings.TrimSpace(o.Thinking); raw != "" {
		if thinking = NormalizeThinkLevel(raw); thinking == "" {
			return apperr.Usagef("%s", InvalidThinkingMessage(raw, modelRef))
		}
	}
	var model *Model
	if modelRef != "" {
		m, err := CheckModel(s.Cfg, modelRef)
		if err != nil {
			return apperr.Errorf("%v", err)
		}
		model = &m
	}
	// 4. where the child is written: through the live gateway of a 2026.8+
	// agent, the gateway's own spawn (nothing written to its database)
	route, wo, err := f.WriteRoute(s, target, "spawn")
	if err != nil {
		return err
	}
	if route.Era == era.Gateway {
		if o.Engine, err = send.ChooseEngineFor(f, s, route, target, o.Engine, o.OpenClaw); err != nil {
			return err
		}
		req := runs.Session{Key: reqKey, DisplayKey: s.Req.Raw, AgentID: reqAgent}
		if t, err := s.Lookup(reqKey); err == nil && t != nil {
			req.Key, req.SessionID, req.Channel = t.Entry.Key, t.Entry.SessionID, s.ChannelOf(t.Entry)
		}
		modelKey := ""
		if model != nil {
			modelKey = model.Key()
		}
		return spawnVia(o, s, route, wo, target, req, label, modelKey, thinking, nil)
	}
	// what the runner could not do
	if err := send.PreflightAgent(s, target); err != nil {
		return err
	}
	if o.Engine, err = send.ChooseEngine(f, s, o.Engine, o.OpenClaw); err != nil {
		return err
	}
	reqStorePath, _ := s.StorePath(reqAgent)
	childStorePath, _ := s.StorePath(target)
	sameStore := reqStorePath == childStorePath
	var reqEntry *store.Entry
	var reqStore *store.Store
	if !sameStore {
		if err := send.PreflightAgent(s, reqAgent); err != nil {
			return err
		}
		if t, err := s.Lookup(reqKey); err != nil {
			return err
		} else if t != nil {
			reqEntry, reqStore = t.Entry, t.Store
			// state's stores keep fields only; childEntry reads the
			// requester's groupId/groupChannel/space from its full JSON
			if raw, ok, err := s.EntryRaw(t.Agent, t.Entry); err != nil {
				return err
			} else if ok {
				full := *t.Entry
				full.Raw = raw
				reqEntry = &full
			}
			if err := checkRequesterTranscript(s, reqAgent, reqStore, reqEntry); err != nil {
				return err
			}
		}
	}

	// 5. the child (steps 6, 9, 11): created in one locked insert; the
	// requester entry is read inside the same lock when it shares the store
	// (JSON era), or just before (SQLite era: sessionwrite)
	now := f.Now()
	childKey := "agent:" + target + ":subagent:" + uuid.NewString()
	sessionID := uuid.NewString()
	ctx := context.Background()
	w, err := sessionwrite.Open(s, target, sessionwrite.Options{LockTimeout: f.Flags.LockTimeout, Now: f.Now})
	if err != nil {
		return err
	}
	defer w.Close()
	if label != "" {
		if label, err = sessionwrite.ParseLabel(w.Era(), label); err != nil {
			return err
		}
	}
	child := sessionwrite.Child{Key: childKey, SessionID: sessionID, ParentKey: reqKey, RequesterAgent: reqAgent, Label: label,
		Build: func(st *store.Store, req *store.Entry) (*jsonx.Object, error) {
			if sameStore {
				reqEntry, reqStore = req, st
				if reqEntry != nil && w.Era() == era.JSON {
					if err := checkRequesterTranscript(s, reqAgent, st, reqEntry); err != nil {
						return nil, err
					}
				}
			}
			return childEntry(s, sessionID, now, label, reqKey, model, thinking, target, reqEntry), nil
		}}
	if sameStore {
		child.RequesterKeys = keys.Candidates(reqKey, s.Req.Agent, s.Default, config.NormalizeAgentID)
	}
	res, err := w.CreateChild(ctx, child)
	if err != nil {
		return err
	}
	f.Log.Debug("child session created", "key", childKey, "store", res.Path, "era", w.Era())

	// 6. the run (steps 11, 12)
	requester := &runs.Session{Key: reqKey, DisplayKey: s.Req.Raw, AgentID: reqAgent}
	if reqEntry != nil {
		requester.Key = reqEntry.Key
		requester.SessionID = reqEntry.SessionID
		requester.Channel = s.ChannelOf(reqEntry)
	}
	rec := &runs.Record{
		RunID:     runs.NewID(),
		Kind:      runs.KindSpawn,
		Status:    runs.StatusAccepted,
		CreatedAt: now.UnixMilli(),
		Target:    runs.Session{Key: childKey, DisplayKey: childKey, AgentID: target, SessionID: sessionID, Channel: requester.Channel},
		Requester: requester,
		Message:   o.Task,
		Engine:    o.Engine,
		Deliver:   o.Deliver,
		Steps:     []runs.Step{},
		Spawn: &runs.Spawn{
			Task:              o.Task,
			Label:             label,
			Thinking:          thinking,
			RunTimeoutSeconds: o.RunTimeout,
			Cleanup:           o.Cleanup,
		},
	}
	if rec.Engine == "" {
		rec.Engine = "provider"
	}
	if model != nil {
		rec.Spawn.Model = model.Key()
	}
	if m := s.Cfg.ArchiveAfterMinutes(); m > 0 {
		rec.Spawn.ArchiveAtMs = rec.CreatedAt + int64(m)*60_000
	}
	rs := runs.Open(s.Dir.Path)
	if err := rs.Save(rec); err != nil {
		return err
	}
	if rec.Spawn.ArchiveAtMs > 0 {
		if err := archive.Add(s.Dir.Path, archive.Entry{RunID: rec.RunID, ChildKey: childKey, Agent: target, ArchiveAtMs: rec.Spawn.ArchiveAtMs}); err != nil {
			f.Log.Warn("cannot record the child in the archive index; it will not be archived automatically", "err", err)
		}
	}
	if err := send.StartRunner(f, s, rs, rec); err != nil {
		return err
	}
	out := Result{Status: runs.StatusAccepted, ChildSessionKey: childKey, RunID: rec.RunID}
	if model != nil {
		applied := true
		out.ModelApplied = &applied
	}
	if f.JSONMode() {
		return f.PrintJSON(out)
	}
	fmt.Fprintf(f.IO.Out, "%s\t%s\n", rec.RunID, childKey)
	if f.IO.IsStderrTTY() {
		fmt.Fprintf(f.IO.ErrOut, "Spawned %s; follow with: sessions wait %s\n", childKey, rec.RunID)
	}
	return nil
}

// checkRequesterTranscript refuses a requester whose transcript the
// announce could not be appended to (its first line is not a session
// header: OpenClaw would overwrite it, and we never repair it).
func checkRequesterTranscript(s *state.State, agent string, st *store.Store, e *store.Entry) error {
	tp, err := s.Transcript(agent, st, e)
	if err != nil || !tp.Exists {
		return nil // no transcript yet (or none we may open): the announce skips it
	}
	h, err := transcript.ReadHeader(tp.Path)
	if err != nil {
		return apperr.Statef("cannot read the requester's transcript %s: %v", tp.Path, err)
	}
	if h == nil {
		return apperr.Statef("the requester's transcript %s does not start with a session header; refusing to spawn (its announce could not be written)", tp.Path)
	}
	return nil
}

// childEntry is the child's store entry as OpenClaw 1.30 leaves it before
// the run (sessions.patch for the model, then the gateway agent call):
// sessionId, updatedAt, the model override, label, spawnedBy, the
// requester's channel (delivery fields are derived from it when the store
// is written) and group fields inherited from the requester, and the
// thinking level (unless off).
func childEntry(s *state.State, sessionID string, now time.Time, label, spawnedBy string, model *Model, thinking, target string, req *store.Entry) *jsonx.Object {
	e := jsonx.NewObject()
	_ = e.Set("sessionId", sessionID)
	_ = e.Set("updatedAt", now.UnixMilli())
	if model != nil && !redundantOverride(s.Cfg, target, model) {
		_ = e.Set("modelOverride", model.ID)
		_ = e.Set("providerOverride", model.Provider)
	}
	if label != "" {
		_ = e.Set("label", label)
	}
	_ = e.Set("spawnedBy", spawnedBy)
	if req != nil {
		if ch := s.ChannelOf(req); ch != "" {
			_ = e.Set("channel", ch)
		}
		for _, f := range [][2]string{{"groupId", "groupId"}, {"groupChannel", "groupChannel"}, {"space", "space"}} {
			if v := gjson.GetBytes(req.Raw, f[0]); v.Type == gjson.String && v.Str != "" {
				_ = e.Set(f[1], v.Str)
			}
		}
	}
	if thinking != "" && thinking != "off" {
		_ = e.Set("thinkingLevel", thinking)
	}
	return e
}

// redundantOverride: OpenClaw clears the override when the model is
// agents.defaults.model. We do so only when the target agent has no model
// of its own (else 1.30 would run the agent's model, not the one asked for).
func redundantOverride(cfg *config.Config, agent string, m *Model) bool {
	dp, dm := configuredDefault(cfg)
	if dp == "" || normalizeProviderID(m.Provider)+"/"+m.ID != dp+"/"+dm {
		return false
	}
	a := cfg.Agent(agent)
	return a == nil || a.Model == nil || strings.TrimSpace(a.Model.Primary) == ""
}
