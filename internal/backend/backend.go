// Package backend is the seam between the operations layer (internal/ops)
// and where the sessions live. An operation asks a Reader for rows (list,
// history, follow) or a Host for a whole operation — never for files, a
// SQLite handle or a gateway connection — and composes what it gets the
// same way whatever the host is; front-ends (the CLI, the MCP server, the
// terminal UI) reach it only through ops.
//
// This package holds the interfaces, the documents and values both hosts
// share (a page's cursors, an --around, show's document, the asks of the
// writes) and what the fleet does; each implementation is a package of its
// own beside it, as rclone's backends are:
//
//   - backend/local (local.Local): the state dir on this host (JSON-era
//     stores and transcripts, and the 2026.8+ per-agent SQLite store),
//     through internal/state; the writes of a 2026.8+ agent whose gateway
//     is live go through that gateway (an overlay: gatewayhost.SpawnThrough,
//     sessionwrite's gateway writer).
//   - backend/gatewayhost (gatewayhost.Gateway): one OpenClaw gateway over
//     its WebSocket RPC (2026.1.30 and 2026.9.x), through the client of
//     internal/gateway. It imports nothing of local.
//
// This package imports neither implementation. Fleet fans one query out to several Readers concurrently and merges the
// answers, keeping each host's failure apart (per-host errors, never a lost
// host's rows hidden as "no sessions").
//
// Host, which both implement, adds the whole operations of one host that
// the operations layer composes without branching per transport: show's
// document (Show), a patch (Patch), the lifecycle writes (Delete, Reset,
// Archive, Prune), a send made ready (PlanSend), a sub-agent spawned
// (Spawn) and what the requester may do with the host's agents
// (Capabilities, AgentList), each with this host's checks. local.Local
// routes per agent as sessionwrite.Choose says (a 2026.8+ agent whose
// gateway is live goes through that gateway's own spawn, as a
// gatewayhost.Gateway does). The writes
// themselves are internal/sessionwrite's, a separate interface: read-only
// commands never hold a writer.
package backend

import (
	"context"
	"encoding/json"
	"time"

	"github.com/openclaw/sessions/internal/lifecycle"
	"github.com/openclaw/sessions/internal/sanitize"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
)

// Reader is what read commands need from where the sessions live.
type Reader interface {
	// Where names the reader in messages and in the rows' "context"
	// field: "" for the local state dir, else the context name (or the
	// gateway URL when it has none).
	Where() string
	// List returns the newest sessions matching q, up to q.Limit, and how
	// many matched in all.
	List(ctx context.Context, q ListQuery) (*ListResult, error)
	// Close releases the reader (a gateway connection).
	Close() error
}

// Host is one place sessions live, for the operations that work on one
// host: this host's state dir (*local.Local) or one gateway
// (*gatewayhost.Gateway), as the
// invocation's target chose it once. Each implements whole operations;
// ops composes them and checks policy, and does not branch per transport.
type Host interface {
	Reader

	// The whole operations of patch and show on one session.

	// Patch changes a session's send policy or label (q.Ref: a key, a
	// sessionId or a unique sessionId prefix; or q.Label, of the host's
	// Agent when set), found with the checks of a send — visible to the
	// requester, agent-to-agent allowed (exit 3); none is exit 4 — and
	// written where this host writes it (patch.go). A host that cannot
	// honour q.WaitIdle refuses it before any lookup.
	Patch(ctx context.Context, q PatchAsk) (*Patched, error)
	// Show is everything the host knows about the session ref (or label)
	// names, with the requester's checks: its entry or row, the messages
	// of its transcript it reaches (counted), and what else it keeps of
	// the session (a transcript file and its lock, lineage, runs, earlier
	// transcripts). None is exit 4.
	Show(ctx context.Context, ref, label string) (*ShowResult, error)

	// PlanSend makes a send ready on this host (SendPlan): the session
	// resolved and visible to the requester, agent-to-agent and the send
	// policy checked (exit 3), the engine chosen and able to run the
	// turn, what the runner could not write refused; nothing is written.
	PlanSend(ctx context.Context, q SendAsk) (*SendPlan, error)
	// Spawn creates a sub-agent's child session on this host
	// (SpawnedChild): the requester, target agent, label, model and
	// thinking level checked as the host's config says (exit 3, 4, 2, 1),
	// the engine chosen, what the runner could not write refused (exit
	// 10), then the child made — by a locked insert into its agent's
	// store, or by a gateway's own spawn, which starts its task.
	Spawn(ctx context.Context, q SpawnAsk) (*SpawnedChild, error)

	// The lifecycle operations, each naming its sessions on this host
	// with the checks of a send and writing them there (lifecycle.go):
	// the main session refused (exit 1), a session with a live run
	// refused or, with Force, waited for on this host's files; a dry run
	// computes the same document and writes nothing. Prune is for the
	// host's operator (exit 3 otherwise).
	Delete(ctx context.Context, q DeleteAsk) (*lifecycle.Result, error)
	Reset(ctx context.Context, q SessionAsk) (*lifecycle.Result, error)
	Archive(ctx context.Context, q SessionAsk) (*lifecycle.Result, error)
	Prune(ctx context.Context, q PruneAsk) (*lifecycle.Result, error)

	// What the requester may do with the host's agents: one agent's
	// Capabilities (where its writes go, whether they can, the label
	// bound), and the AgentList of `sessions agents`. wo: the
	// invocation's write options (this host's live gateway, looked for
	// once by the host set, internal/hostset).
	Capabilities(ctx context.Context, agent string, wo sessionwrite.Options) (Capabilities, error)
	AgentList(ctx context.Context, wo sessionwrite.Options) (*AgentsResult, error)
}

// ListQuery is what `sessions list` asks for.
type ListQuery struct {
	Kinds     []string // only these kinds (empty: all)
	Limit     int      // at most this many rows; < 0: all
	Active    int      // only sessions updated in the last Active minutes (0: any)
	Messages  int      // the last N messages of each row, prepared like history's
	AllAgents bool     // every agent (locally the operator otherwise sees its own)
	Now       time.Time
}

// ListResult is one reader's answer.
type ListResult struct {
	Rows  []state.Row // newest first, at most Limit
	Total int         // sessions matching before the limit
	// MultiAgent: the rows span several agents (the table shows the agent).
	MultiAgent bool
}

// Limited cuts rows (newest first) to limit (< 0: all).
func Limited(rows []state.Row, limit int) []state.Row {
	if limit >= 0 && len(rows) > limit {
		return rows[:limit]
	}
	return rows
}

// Prepare strips envelopes and sanitises like history's default output.
func Prepare(in []json.RawMessage) []json.RawMessage {
	msgs := make([]json.RawMessage, len(in))
	for i, m := range in {
		msgs[i] = sanitize.StripEnvelope(m)
	}
	out, _, _ := sanitize.History(msgs, sanitize.DefaultCapBytes)
	return out
}
