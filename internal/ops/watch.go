package ops

import (
	"context"
	"encoding/json"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/sanitize"
	"github.com/openclaw/sessions/internal/watch"
)

// WatchQuery: the scope flags of list.
type WatchQuery struct {
	Kinds     []string
	AllAgents bool
	Messages  bool // also message-appended events (the UI and `watch` set it)
	Runs      bool // also run-status events (our send/spawn runs, runs.Store)
}

// The kinds of WatchEvent.
const (
	EventAdded   = string(watch.Added)
	EventUpdated = string(watch.Updated)
	EventRemoved = string(watch.Removed)
	EventMessage = string(watch.Message)
	EventRun     = string(watch.Run)
)

// WatchEvent is one change. JSON (NDJSON line of `sessions watch --json`):
type WatchEvent struct {
	Kind    string        `json:"kind"`              // "added" | "updated" | "removed" | "message" | "run"
	Time    time.Time     `json:"time"`              // when we saw it
	Context string        `json:"context,omitempty"` // fleet only
	AgentID string        `json:"agentId"`
	Key     string        `json:"key"`
	Fields  []string      `json:"fields,omitempty"`  // updated: the JSON names of the list-row fields that changed
	Session *Row          `json:"session,omitempty"` // added/updated: the row as `list --json` prints it now
	Message *WatchMessage `json:"message,omitempty"` // message
	Run     *WatchRun     `json:"run,omitempty"`     // run
}

// WatchMessage is an appended message, short.
type WatchMessage struct {
	Role string `json:"role"`
	ID   string `json:"id,omitempty"`
	Text string `json:"text"` // short: first 120 runes, one line, masked when masking is on
}

// WatchRun is a run's new status.
type WatchRun struct {
	ID     string `json:"runId"`
	Status string `json:"status"`
	Kind   string `json:"kind,omitempty"` // send|spawn
}

// Watch calls emit for each change until ctx ends (returns nil) or emit
// returns an error (returned). It first takes a snapshot (no events for what
// already exists) and calls ready (may be nil) once watching has begun, so a
// caller (a test, the UI) knows later writes will be seen.
//
// Where it watches is where List lists: the state dir (file events on the
// JSON era, the SQLite store's files checked every 250 ms), one gateway
// (its event stream) or a fleet (every host at once; a host that fails is
// warned about and the others go on). emit is never called concurrently.
func (o *Ops) Watch(ctx context.Context, q WatchQuery, ready func(), emit func(WatchEvent) error) error {
	return o.boundary().Err(o.watch(ctx, q, ready, emit))
}

// watch is Watch before the agent boundary masks its error (each event
// goes out through the boundary as it is sent).
func (o *Ops) watch(ctx context.Context, q WatchQuery, ready func(), emit func(WatchEvent) error) error {
	readers, fleet, err := o.where.Readers()
	if err != nil {
		return err
	}
	defer closeAll(readers)
	out := func(ev WatchEvent) error {
		ev, err := deliver(o, ev, nil)
		if err != nil {
			return err
		}
		return emit(ev)
	}
	fo := watch.FanOptions{Fleet: fleet, Warn: o.warn, Ready: ready,
		Started: func(n int) { o.debug("watch: watching for changes", "sources", n) }}
	return watch.Fan(ctx, out, fo, func(ctx context.Context, send func([]WatchEvent) error) ([]watch.Source, error) {
		bq := backend.WatchQuery{Kinds: q.Kinds, AllAgents: q.AllAgents, Messages: q.Messages}
		var sources []watch.Source
		for _, r := range readers {
			wr, ok := r.(backend.Watcher)
			if !ok {
				return nil, apperr.Statef("%s cannot be watched", r.Where())
			}
			where := r.Where()
			sources = append(sources, watch.Source{Where: where, Run: func(ctx context.Context, ready func()) error {
				return wr.Watch(ctx, bq, ready, func(evs []watch.Event) error {
					return send(o.watchEvents(evs, where, fleet))
				})
			}})
		}
		if !q.Runs {
			return sources, nil
		}
		listers, _, err := o.runListers()
		if err != nil {
			return nil, err
		}
		for _, rl := range listers {
			rs, err := rl.RunStore()
			if err != nil {
				return nil, err
			}
			where := rl.Where()
			sources = append(sources, watch.Source{Where: where, Run: func(ctx context.Context, ready func()) error {
				return rs.Watch(ctx, backend.DefaultTick, ready, func(cs []runs.Change) error {
					return send(o.runEvents(cs, where, fleet))
				})
			}})
		}
		return sources, nil
	})
}

// watchEvents turns a source's changes into events: rows with their
// context over a fleet, messages shortened (and masked when masking is on).
func (o *Ops) watchEvents(evs []watch.Event, where string, fleet bool) []WatchEvent {
	now := o.Now()
	out := make([]WatchEvent, 0, len(evs))
	for _, ev := range evs {
		we := WatchEvent{Kind: string(ev.Kind), Time: now, AgentID: ev.ID.Agent, Key: ev.ID.Key, Fields: ev.Fields}
		if fleet {
			we.Context = where
		}
		if ev.Row != nil {
			r := *ev.Row
			if fleet {
				r.Context = where
			}
			we.Session = &r
		}
		if ev.Kind == watch.Message {
			we.Message = o.shortMessage(ev.Msg, ev.MsgID)
		}
		out = append(out, we)
	}
	return out
}

// shortMessage is what an event shows of a message: its role, id and the
// first line of its text, masked as history masks it.
func (o *Ops) shortMessage(raw json.RawMessage, id string) *WatchMessage {
	msgs := []json.RawMessage{sanitize.StripEnvelope(raw)}
	if o.masking() {
		o.redactMessages(msgs)
	}
	info := watch.ReadMessage(msgs[0])
	if id == "" {
		id = info.ID
	}
	return &WatchMessage{Role: info.Role, ID: id, Text: watch.Short(info.Text, watch.ShortLen)}
}

func (o *Ops) runEvents(cs []runs.Change, where string, fleet bool) []WatchEvent {
	now := o.Now()
	out := make([]WatchEvent, 0, len(cs))
	for _, c := range cs {
		we := WatchEvent{Kind: EventRun, Time: now, AgentID: c.Agent, Key: c.Target,
			Run: &WatchRun{ID: c.RunID, Status: c.Status, Kind: c.Kind}}
		if fleet {
			we.Context = where
		}
		out = append(out, we)
	}
	return out
}
