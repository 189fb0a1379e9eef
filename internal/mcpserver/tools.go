package mcpserver

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/ops"
)

// The tools' defaults: the CLI's.
const (
	defaultListLimit   = 200
	defaultHistory     = 200
	defaultSendTimeout = 30
	defaultWaitTimeout = 30
	defaultSearchLimit = 50
	defaultRunsLimit   = 50
	maxMessageLimit    = 20
)

func (s *Server) addTools() {
	add(s, listTool(s))
	add(s, historyTool(s))
	add(s, exportTool(s))
	add(s, searchTool(s))
	add(s, showTool(s))
	add(s, usageTool(s))
	add(s, waitTool(s))
	add(s, doctorTool(s))
	add(s, sendTool(s))
	add(s, spawnTool(s))
	add(s, patchTool(s))
	add(s, runsTool(s))
	add(s, deleteTool(s))
	add(s, resetTool(s))
	add(s, archiveTool(s))
}

// checkKinds refuses a kind that is none of keys.Kinds.
func checkKinds(items []string) ([]string, error) {
	kinds, bad := keys.CleanKinds(items)
	if bad != "" {
		return nil, apperr.Usagef("invalid kinds value %q (want %s)", bad, strings.Join(keys.Kinds, ","))
	}
	return kinds, nil
}

// checkAllAgents refuses allAgents on a server started for one agent.
func (s *Server) checkAllAgents(all bool) error {
	if all && s.opts.Ops.Agent != "" {
		return apperr.Usagef("allAgents cannot be used on a server started with --agent %s", s.opts.Ops.Agent)
	}
	return nil
}

func intOr(p *int, def int) int {
	if p == nil {
		return def
	}
	return *p
}

type listIn struct {
	Limit         *int     `json:"limit,omitempty" jsonschema:"at most this many sessions, newest first (default 200)"`
	Kinds         []string `json:"kinds,omitempty" jsonschema:"only sessions of these kinds"`
	ActiveMinutes *int     `json:"activeMinutes,omitempty" jsonschema:"only sessions updated in the last N minutes"`
	MessageLimit  int      `json:"messageLimit,omitempty" jsonschema:"include the last N messages of each session (0-20, tool results removed)"`
	AllAgents     bool     `json:"allAgents,omitempty" jsonschema:"the sessions of every agent, not only the requester's"`
}

func listTool(s *Server) tool[listIn] {
	return tool[listIn]{
		name: "sessions_list", title: "List sessions",
		desc: "List sessions with optional filters and last messages, newest first. Each row has the session's key " +
			"(pass it as sessionKey to the other tools), kind, channel, agentId, label, updatedAt and sessionId. " +
			"totalCount and hasMore say whether the limit left sessions out.",
		input: func(in *jsonschema.Schema) {
			bounds(in, "limit", 1, 0)
			bounds(in, "activeMinutes", 1, 0)
			bounds(in, "messageLimit", 0, -1)
			enum(in, "kinds", keys.Kinds...)
		},
		output: listOutput(),
		run: func(ctx context.Context, _ *mcp.CallToolRequest, in listIn) (any, error) {
			kinds, err := checkKinds(in.Kinds)
			if err != nil {
				return nil, err
			}
			if err := s.checkAllAgents(in.AllAgents); err != nil {
				return nil, err
			}
			// as OpenClaw's tool: a larger messageLimit is cut to 20
			return s.ops("").List(ctx, ops.ListQuery{Kinds: kinds, Limit: intOr(in.Limit, defaultListLimit),
				Active: intOr(in.ActiveMinutes, 0), Messages: min(in.MessageLimit, maxMessageLimit), AllAgents: in.AllAgents})
		},
	}
}

type historyIn struct {
	SessionKey   string `json:"sessionKey,omitempty" jsonschema:"the session: its key (from sessions_list), sessionId or a unique sessionId prefix"`
	Label        string `json:"label,omitempty" jsonschema:"or the session with this label"`
	AgentID      string `json:"agentId,omitempty" jsonschema:"the agent whose session label names (default: the requester's)"`
	Limit        *int   `json:"limit,omitempty" jsonschema:"the last N messages (1-1000, default 200)"`
	IncludeTools bool   `json:"includeTools,omitempty" jsonschema:"keep tool result messages"`
	Before       string `json:"before,omitempty" jsonschema:"the nextCursor of an earlier page: returns the page of messages before it"`
	Around       string `json:"around,omitempty" jsonschema:"instead of the newest page, the page of limit messages around this message: its id (a sessions_search hit's id), its sequence number, a time or a cursor; aroundIndex says which of messages it is"`
}

func historyTool(s *Server) tool[historyIn] {
	return tool[historyIn]{
		name: "sessions_history", title: "Read a session's transcript",
		desc: "Fetch message history for a session (sessionKey or label), oldest message first, prepared for an agent's " +
			"context as OpenClaw's sessions_history prepares it (envelopes stripped, credentials masked, text over 4000 " +
			"characters cut, the page capped at 80 KiB; contentRedacted, contentTruncated and droppedMessages say so). " +
			"When hasMore is true, call again with " +
			"before=nextCursor for the older page; a cursor stays valid while the session grows. To read around a " +
			"sessions_search hit, pass its id as around: the page holds that message in the middle (aroundIndex), " +
			"and when hasNewer is true, before=prevCursor gives the newer page (no prevCursor: the newest page).",
		input: func(in *jsonschema.Schema) {
			bounds(in, "limit", 1, ops.HistoryMaxLimit)
		},
		output: historyOutput(),
		run: func(ctx context.Context, _ *mcp.CallToolRequest, in historyIn) (any, error) {
			if err := target(in.SessionKey, in.Label); err != nil {
				return nil, err
			}
			sess, page, err := s.ops(in.AgentID).OpenHistory(ctx, in.SessionKey, in.Label, ops.HistoryQuery{Limit: intOr(in.Limit, defaultHistory), IncludeTools: in.IncludeTools, Before: in.Before, Around: in.Around})
			if err != nil {
				return nil, err
			}
			sess.Close()
			return page, nil
		},
	}
}

func intPtr(n int) *int { return &n }

type searchIn struct {
	Query           string   `json:"query" jsonschema:"what to find: words and \"quoted phrases\" (mode words, the default), the exact text (mode literal, or ignoreCase), or a Go RE2 regular expression (regex)"`
	Mode            string   `json:"mode,omitempty" jsonschema:"words (default): every word and \"phrase\" of query in one message, in any order, case and width folded, Chinese/Japanese/Korean matched as text, best matches first; literal: the exact text (an identifier, a path, an error message), newest first"`
	Rank            string   `json:"rank,omitempty" jsonschema:"order of the hits: relevance (BM25; the default in mode words, only there) or newest (the default otherwise)"`
	Regex           bool     `json:"regex,omitempty" jsonschema:"query is a regular expression (mode literal)"`
	IgnoreCase      bool     `json:"ignoreCase,omitempty" jsonschema:"match the exact text regardless of case (mode literal)"`
	Role            string   `json:"role,omitempty" jsonschema:"only messages of this role (tool implies includeTools)"`
	Limit           *int     `json:"limit,omitempty" jsonschema:"at most N hits (default 10 in mode words, as OpenClaw's sessions_search; else 50; 0: all)"`
	IncludeTools    bool     `json:"includeTools,omitempty" jsonschema:"search tool results and tool calls too"`
	IncludeArchived bool     `json:"includeArchived,omitempty" jsonschema:"also search archived (reset or deleted) transcripts"`
	AllAgents       bool     `json:"allAgents,omitempty" jsonschema:"search the sessions of every agent"`
	Kinds           []string `json:"kinds,omitempty" jsonschema:"only sessions of these kinds"`
	Since           string   `json:"since,omitempty" jsonschema:"only messages from then on: a duration back from now (30m, 2h, 7d) or a date (2026-11-20, RFC 3339)"`
	Until           string   `json:"until,omitempty" jsonschema:"only messages up to then (same forms; a date includes that whole day)"`
	SessionKey      string   `json:"sessionKey,omitempty" jsonschema:"only this session (key or sessionId; current: the requester's own)"`
	Label           string   `json:"label,omitempty" jsonschema:"only the session with this label"`
	Context         int      `json:"context,omitempty" jsonschema:"N messages before and after each hit (0-100)"`
}

// Search modes and orders of the sessions_search tool.
const (
	searchWords, searchLiteral = "words", "literal"
	rankRelevance, rankNewest  = "relevance", "newest"
	defaultWordsLimit          = 10 // OpenClaw 2026.9's sessions_search
)

// searchPattern is what a sessions_search call looks for and how its hits
// are ordered: OpenClaw 2026.9's own arguments (query, sessionKey, limit)
// are a words query ranked by relevance, as its tool answers them; regex
// or ignoreCase name the literal mode, as they always did.
func searchPattern(in *searchIn) (ops.SearchPattern, bool, int, error) {
	mode := in.Mode
	if mode == "" {
		mode = searchWords
		if in.Regex || in.IgnoreCase {
			mode = searchLiteral
		}
	}
	switch {
	case mode != searchWords && mode != searchLiteral:
		return ops.SearchPattern{}, false, 0, apperr.Usagef("invalid mode %q (want words or literal)", in.Mode)
	case mode == searchWords && in.Regex:
		return ops.SearchPattern{}, false, 0, apperr.Usagef("regex needs mode literal")
	}
	rank := in.Rank
	if rank == "" {
		rank = rankNewest
		if mode == searchWords {
			rank = rankRelevance
		}
	}
	if rank != rankRelevance && rank != rankNewest {
		return ops.SearchPattern{}, false, 0, apperr.Usagef("invalid rank %q (want relevance or newest)", in.Rank)
	}
	limit := defaultSearchLimit
	q := in.Query
	if mode == searchWords {
		limit, q = defaultWordsLimit, strings.TrimSpace(q)
	}
	return ops.SearchPattern{Pattern: q, Regex: in.Regex, IgnoreCase: in.IgnoreCase, Words: mode == searchWords}, rank == rankRelevance, intOr(in.Limit, limit), nil
}

func searchTool(s *Server) tool[searchIn] {
	return tool[searchIn]{
		name: "sessions_search", title: "Search transcripts",
		desc: "Search the transcripts of the sessions the requester may see. To recall earlier work from a question " +
			"or a few words, use the default mode words: every word and \"quoted phrase\" in one message, any order, " +
			"case and width folded, CJK matched as text, best matches first (score) — OpenClaw's own sessions_search " +
			"arguments (query, sessionKey incl. current, limit) work as they do there. To find an exact string (an " +
			"identifier, a path, an error message, a token prefix) use mode literal (ignoreCase, or regex for a " +
			"pattern), newest first. Each hit names its session (key, sessionId, agentId), the message (id, role, " +
			"timestamp), a snippet and the match; read around it with sessions_history.",
		input: func(in *jsonschema.Schema) {
			prop(in, "query").MinLength = intPtr(1)
			enum(in, "mode", searchWords, searchLiteral)
			enum(in, "rank", rankRelevance, rankNewest)
			enum(in, "role", ops.SearchRoles...)
			bounds(in, "limit", 0, -1)
			bounds(in, "context", 0, 100)
			enum(in, "kinds", keys.Kinds...)
		},
		output: searchOutput(),
		run: func(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (any, error) {
			kinds, err := checkKinds(in.Kinds)
			if err != nil {
				return nil, err
			}
			if err := s.checkAllAgents(in.AllAgents); err != nil {
				return nil, err
			}
			if in.Role != "" && !slices.Contains(ops.SearchRoles, in.Role) {
				return nil, apperr.Usagef("invalid role %q (want user, assistant or tool)", in.Role)
			}
			if in.SessionKey != "" && in.Label != "" {
				return nil, apperr.Usagef("sessionKey and label cannot be used together")
			}
			pat, relevance, limit, err := searchPattern(&in)
			if err != nil {
				return nil, err
			}
			o := s.ops("")
			key := in.SessionKey
			if key == "current" {
				// OpenClaw's word for the requester's own session
				if key = o.RequesterKey(); key == "" {
					return nil, apperr.Usagef("sessionKey current needs a requester (--as or $OPENCLAW_SESSION_KEY)")
				}
			}
			res, err := o.Search(ctx, ops.SearchQuery{
				Pattern:   pat,
				AllAgents: in.AllAgents, Kinds: kinds, Role: in.Role, Since: in.Since, Until: in.Until,
				Key: key, Label: in.Label, IncludeTools: in.IncludeTools, IncludeArchived: in.IncludeArchived,
				Limit: limit, Context: in.Context, Relevance: relevance,
			})
			if err != nil {
				return nil, err
			}
			res.Fill()
			return res, nil
		},
	}
}

type showIn struct {
	SessionKey string `json:"sessionKey,omitempty" jsonschema:"the session: its key, sessionId or a unique sessionId prefix"`
	Label      string `json:"label,omitempty" jsonschema:"or the session with this label"`
	AgentID    string `json:"agentId,omitempty" jsonschema:"the agent whose session label names (default: the requester's)"`
}

// target checks that exactly one of key and label names the session, in
// OpenClaw's words.
func target(key, label string) error {
	switch {
	case strings.TrimSpace(key) != "" && strings.TrimSpace(label) != "":
		return apperr.Usagef("Provide either sessionKey or label (not both).")
	case strings.TrimSpace(key) == "" && strings.TrimSpace(label) == "":
		return apperr.Usagef("Either sessionKey or label is required")
	}
	return nil
}

func showTool(s *Server) tool[showIn] {
	return tool[showIn]{
		name: "sessions_show", title: "Show a session",
		desc: "Everything about one session, named by sessionKey or label: its entry as stored, kind, channel, " +
			"model, tokens, transcript (messages, first and last message time), lineage (spawnedBy, children), " +
			"whether a run is busy on it, and its runs.",
		output: showOutput(),
		run: func(ctx context.Context, _ *mcp.CallToolRequest, in showIn) (any, error) {
			if err := target(in.SessionKey, in.Label); err != nil {
				return nil, err
			}
			shown, err := s.ops(in.AgentID).Show(ctx, ops.ShowQuery{Ref: in.SessionKey, Label: in.Label})
			if err != nil {
				return nil, err
			}
			if shown.Fleet != nil {
				return shown.Fleet, nil
			}
			return shown.Session, nil
		},
	}
}

type usageIn struct {
	By              []string `json:"by,omitempty" jsonschema:"roll up by these dimensions, in order (default day)"`
	Since           string   `json:"since,omitempty" jsonschema:"only messages from then on: a duration back from now (7d, 12h) or a date"`
	Until           string   `json:"until,omitempty" jsonschema:"only messages before then (a date includes that whole day)"`
	AllAgents       bool     `json:"allAgents,omitempty" jsonschema:"count the sessions of every agent"`
	IncludeArchived bool     `json:"includeArchived,omitempty" jsonschema:"also count reset and deleted transcripts"`
}

func usageTool(s *Server) tool[usageIn] {
	return tool[usageIn]{
		name: "sessions_usage", title: "Token usage and cost",
		desc: "Sum the tokens and cost OpenClaw recorded on assistant messages, rolled up by day, week, month, model, " +
			"provider, agent, session, kind, channel or cron; totals over all rows.",
		input:  func(in *jsonschema.Schema) { enum(in, "by", ops.UsageDimensions...) },
		output: usageOutput(),
		run: func(ctx context.Context, _ *mcp.CallToolRequest, in usageIn) (any, error) {
			by, err := ops.ParseUsageBy(in.By)
			if err != nil {
				return nil, apperr.Usagef("%v", err)
			}
			if len(by) == 0 {
				by = []string{"day"}
			}
			if err := s.checkAllAgents(in.AllAgents); err != nil {
				return nil, err
			}
			return s.ops("").Usage(ctx, ops.UsageQuery{By: by, Since: in.Since, Until: in.Until, AllAgents: in.AllAgents, IncludeArchived: in.IncludeArchived})
		},
	}
}

type waitIn struct {
	RunID          string `json:"runId" jsonschema:"the run (from sessions_send or sessions_spawn)"`
	TimeoutSeconds *int   `json:"timeoutSeconds,omitempty" jsonschema:"wait up to S seconds (default 30); the run goes on after"`
}

func waitTool(s *Server) tool[waitIn] {
	return tool[waitIn]{
		name: "sessions_wait", title: "Wait for a run's reply",
		desc: "Wait until a run's first step has ended (the target's reply for a send) and return what sessions_send " +
			"would have: the reply, or the run's error. Giving up (timeout) does not stop the run; call again.",
		input: func(in *jsonschema.Schema) {
			prop(in, "runId").MinLength = intPtr(1)
			bounds(in, "timeoutSeconds", 1, -1)
		},
		output: runOutput(),
		run: func(ctx context.Context, req *mcp.CallToolRequest, in waitIn) (any, error) {
			return s.ops("").Wait(ctx, ops.WaitRequest{RunID: in.RunID,
				Timeout: time.Duration(intOr(in.TimeoutSeconds, defaultWaitTimeout)) * time.Second, OnWait: progress(ctx, req)})
		},
	}
}

type doctorIn struct{}

func doctorTool(s *Server) tool[doctorIn] {
	return tool[doctorIn]{
		name: "sessions_doctor", title: "Check the state dir",
		desc: "Check this host's OpenClaw state dir (stores, transcripts, locks, SQLite stores, runs) and report the " +
			"findings, each with the command that repairs it. Nothing is repaired here. Only the host operator may.",
		output: doctorOutput(),
		run: func(ctx context.Context, _ *mcp.CallToolRequest, _ doctorIn) (any, error) {
			return s.ops("").Doctor(ctx, ops.DoctorRequest{})
		},
	}
}

type sendIn struct {
	SessionKey     string `json:"sessionKey,omitempty" jsonschema:"the target session's key (or sessionId)"`
	Label          string `json:"label,omitempty" jsonschema:"or the target session's label"`
	AgentID        string `json:"agentId,omitempty" jsonschema:"the agent whose session label names (default: the requester's)"`
	Message        string `json:"message" jsonschema:"the message to send"`
	TimeoutSeconds *int   `json:"timeoutSeconds,omitempty" jsonschema:"wait up to S seconds for the reply (default 30; 0: return at once with the runId)"`
}

func sendTool(s *Server) tool[sendIn] {
	return tool[sendIn]{
		name: "sessions_send", title: "Send a message into a session", writes: true,
		desc: "Send a message into another session and wait for its reply. Use sessionKey or label to identify the " +
			"target. With timeoutSeconds 0 the run is accepted and its runId returned at once; when the wait times out " +
			"the run goes on: sessions_wait with its runId gets the reply.",
		input: func(in *jsonschema.Schema) {
			prop(in, "message").MinLength = intPtr(1)
			bounds(in, "timeoutSeconds", 0, -1)
		},
		output: runOutput(),
		run: func(ctx context.Context, req *mcp.CallToolRequest, in sendIn) (any, error) {
			if err := target(in.SessionKey, in.Label); err != nil {
				return nil, err
			}
			return s.ops(in.AgentID).Send(ctx, ops.SendRequest{Ref: in.SessionKey, Label: in.Label, Message: in.Message,
				Timeout: time.Duration(intOr(in.TimeoutSeconds, defaultSendTimeout)) * time.Second, OnWait: progress(ctx, req)})
		},
	}
}

type spawnIn struct {
	Task              string `json:"task" jsonschema:"what the sub-agent is to do"`
	Label             string `json:"label,omitempty" jsonschema:"label the child session"`
	AgentID           string `json:"agentId,omitempty" jsonschema:"the agent that runs the task (default: the requester's; subagents.allowAgents decides)"`
	Model             string `json:"model,omitempty" jsonschema:"PROVIDER/MODEL or an alias (default: the agent's subagents.model)"`
	Thinking          string `json:"thinking,omitempty" jsonschema:"thinking level: off, minimal, low, medium, high (xhigh for some models)"`
	RunTimeoutSeconds *int   `json:"runTimeoutSeconds,omitempty" jsonschema:"abort the task after S seconds (0: the turn timeout)"`
	TimeoutSeconds    *int   `json:"timeoutSeconds,omitempty" jsonschema:"the same as runTimeoutSeconds (older name)"`
	Cleanup           string `json:"cleanup,omitempty" jsonschema:"after the announce: keep the child session (default) or delete it"`
}

func spawnTool(s *Server) tool[spawnIn] {
	return tool[spawnIn]{
		name: "sessions_spawn", title: "Spawn a sub-agent", writes: true,
		desc: "Spawn a background sub-agent run in an isolated session and announce the result back to the requester " +
			"chat. Returns at once with childSessionKey and runId: follow with sessions_wait or sessions_history.",
		input: func(in *jsonschema.Schema) {
			prop(in, "task").MinLength = intPtr(1)
			bounds(in, "runTimeoutSeconds", 0, -1)
			bounds(in, "timeoutSeconds", 0, -1)
			enum(in, "cleanup", "keep", "delete")
		},
		output: spawnOutput(),
		run: func(ctx context.Context, _ *mcp.CallToolRequest, in spawnIn) (any, error) {
			rt := intOr(in.RunTimeoutSeconds, intOr(in.TimeoutSeconds, 0))
			return s.ops(in.AgentID).Spawn(ctx, ops.SpawnRequest{Task: in.Task, Label: in.Label, Model: in.Model,
				Thinking: in.Thinking, RunTimeoutSeconds: rt, Cleanup: in.Cleanup})
		},
	}
}

type patchIn struct {
	SessionKey string  `json:"sessionKey" jsonschema:"the session: its key, sessionId or a unique sessionId prefix"`
	Label      *string `json:"label,omitempty" jsonschema:"set the session's label"`
	ClearLabel bool    `json:"clearLabel,omitempty" jsonschema:"remove the session's label"`
	SendPolicy string  `json:"sendPolicy,omitempty" jsonschema:"allow or deny sends into the session, or inherit (remove the override)"`
}

func patchTool(s *Server) tool[patchIn] {
	return tool[patchIn]{
		name: "sessions_patch", title: "Change a session's label or send policy", writes: true, destructive: true,
		desc: "Change a session's label or send policy as OpenClaw's sessions.patch does, safely beside a running " +
			"OpenClaw. The requester must be allowed to send to the session.",
		input: func(in *jsonschema.Schema) {
			prop(in, "sessionKey").MinLength = intPtr(1)
			enum(in, "sendPolicy", "allow", "deny", "inherit")
		},
		output: patchOutput(),
		run: func(ctx context.Context, _ *mcp.CallToolRequest, in patchIn) (any, error) {
			q := ops.PatchRequest{Ref: in.SessionKey, SendPolicy: in.SendPolicy, ClearLabel: in.ClearLabel}
			if in.Label != nil {
				q.SetLabel, q.Label = true, *in.Label
			}
			return s.ops("").Patch(ctx, q)
		},
	}
}

type runsIn struct {
	Limit      *int   `json:"limit,omitempty" jsonschema:"at most N runs, newest first (default 50; 0: all)"`
	Status     string `json:"status,omitempty" jsonschema:"only runs with this status"`
	SessionKey string `json:"sessionKey,omitempty" jsonschema:"only runs involving this session (key or sessionId)"`
	Source     string `json:"source,omitempty" jsonschema:"whose runs: sessions (the send and spawn runs of this tool, the default), openclaw (OpenClaw's sub-agent registry) or all (the default with tree)"`
	Tree       bool   `json:"tree,omitempty" jsonschema:"the spawn lineage: each requester session with the sub-agent runs it spawned"`
}

func runsTool(s *Server) tool[runsIn] {
	return tool[runsIn]{
		name: "sessions_runs", title: "List send and spawn runs",
		desc: "List runs newest first: the send and spawn runs of this tool (their runId is what sessions_wait takes), " +
			"OpenClaw's own sub-agent runs (source openclaw) or both (all), each with its kind, status, target session, " +
			"requester and reply or error. With tree, the spawn lineage instead: requesters and the sub-agents they spawned. " +
			"totalCount and hasMore say whether the limit left runs out.",
		input: func(in *jsonschema.Schema) {
			bounds(in, "limit", 0, -1)
			enum(in, "status", ops.RunStatuses...)
			enum(in, "source", ops.RunsSources...)
		},
		output: runsOutput(),
		run: func(ctx context.Context, _ *mcp.CallToolRequest, in runsIn) (any, error) {
			limit := intOr(in.Limit, defaultRunsLimit)
			if limit == 0 {
				limit = -1
			}
			res, err := s.ops("").Runs(ctx, ops.RunsQuery{Status: in.Status, Session: in.SessionKey, Source: in.Source, Tree: in.Tree, Limit: limit})
			if err != nil {
				return nil, err
			}
			if in.Tree {
				return res.TreeDocument(), nil
			}
			return res, nil
		},
	}
}

type deleteIn struct {
	SessionKey     string   `json:"sessionKey,omitempty" jsonschema:"the session: its key, sessionId or a unique sessionId prefix"`
	Keys           []string `json:"keys,omitempty" jsonschema:"or several sessions, deleted in one store update per store"`
	DryRun         bool     `json:"dryRun,omitempty" jsonschema:"check everything and report what would be done, writing nothing"`
	Force          bool     `json:"force,omitempty" jsonschema:"wait (up to 15 s) for a live run on the session to end instead of refusing at once"`
	KeepTranscript bool     `json:"keepTranscript,omitempty" jsonschema:"leave the transcripts where they are (else renamed .deleted.<time>)"`
}

func deleteTool(s *Server) tool[deleteIn] {
	return tool[deleteIn]{
		name: "sessions_delete", title: "Delete sessions", writes: true, destructive: true, idempotent: true,
		desc: "Delete sessions as OpenClaw's sessions.delete does: the entry removed from its store, the transcript " +
			"renamed <file>.deleted.<time> (never removed), on a 2026.8+ SQLite store OpenClaw's placeholder row kept. " +
			"The main session is refused, and a session with a live run unless force. dryRun writes nothing.",
		output: lifecycleOutput(),
		run: func(ctx context.Context, _ *mcp.CallToolRequest, in deleteIn) (any, error) {
			keys := slices.DeleteFunc(slices.Clone(in.Keys), func(k string) bool { return strings.TrimSpace(k) == "" })
			switch {
			case strings.TrimSpace(in.SessionKey) != "" && len(keys) > 0:
				return nil, apperr.Usagef("Provide either sessionKey or keys (not both).")
			case strings.TrimSpace(in.SessionKey) != "":
				keys = []string{in.SessionKey}
			case len(keys) == 0:
				return nil, apperr.Usagef("Either sessionKey or keys is required")
			}
			return s.ops("").Delete(ctx, ops.DeleteRequest{Keys: keys, DryRun: in.DryRun, Force: in.Force, KeepTranscript: in.KeepTranscript})
		},
	}
}

type lifecycleIn struct {
	SessionKey string `json:"sessionKey" jsonschema:"the session: its key, sessionId or a unique sessionId prefix"`
	DryRun     bool   `json:"dryRun,omitempty" jsonschema:"check everything and report what would be done, writing nothing"`
	Force      bool   `json:"force,omitempty" jsonschema:"wait (up to 15 s) for a live run on the session to end instead of refusing at once"`
}

func resetTool(s *Server) tool[lifecycleIn] {
	return tool[lifecycleIn]{
		name: "sessions_reset", title: "Start a session afresh", writes: true, destructive: true,
		desc: "Reset a session as OpenClaw's sessions.reset does: a new sessionId (newSessionId; on a 2026.8+ SQLite store, " +
			"through its gateway only, the same id with a new lifecycle revision), token counters zeroed, the old " +
			"transcript kept. A session with a live run is refused unless force. dryRun writes nothing.",
		input:  func(in *jsonschema.Schema) { prop(in, "sessionKey").MinLength = intPtr(1) },
		output: lifecycleOutput(),
		run: func(ctx context.Context, _ *mcp.CallToolRequest, in lifecycleIn) (any, error) {
			return s.ops("").Reset(ctx, ops.ResetRequest{Key: in.SessionKey, DryRun: in.DryRun, Force: in.Force})
		},
	}
}

func archiveTool(s *Server) tool[lifecycleIn] {
	return tool[lifecycleIn]{
		name: "sessions_archive", title: "Archive a session", writes: true, destructive: true,
		desc: "Archive a session: on a 2026.8+ SQLite store as OpenClaw 2026.9's archive (kept, archivedAt set, hidden " +
			"from the default listings); on a JSON-era store as 1.30 archives sub-agents, a delete (transcript renamed " +
			".deleted.<time>). Every agent's main session is refused, and a session with a live run unless force. " +
			"dryRun writes nothing.",
		input:  func(in *jsonschema.Schema) { prop(in, "sessionKey").MinLength = intPtr(1) },
		output: lifecycleOutput(),
		run: func(ctx context.Context, _ *mcp.CallToolRequest, in lifecycleIn) (any, error) {
			return s.ops("").Archive(ctx, ops.ArchiveRequest{Key: in.SessionKey, DryRun: in.DryRun, Force: in.Force})
		},
	}
}
