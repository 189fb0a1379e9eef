package ops

import (
	"context"
	"encoding/json"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/runs"
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

// The documents of the change feed (internal/watch: an NDJSON line of
// `sessions watch --json` each).
type (
	WatchEvent   = watch.Doc        // one change
	WatchMessage = watch.DocMessage // an appended message, short
	WatchRun     = watch.DocRun     // a run's new status
)

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
					return send(watch.Docs(evs, where, fleet, o.Now(), o.watchMask()))
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

// watchMask masks a feed's messages as history masks them (nil when
// text is not masked).
func (o *Ops) watchMask() func([]json.RawMessage) {
	if !o.masking() {
		return nil
	}
	return func(msgs []json.RawMessage) { o.redactMessages(msgs) }
}

// runEvents turns a run store's changes into events.
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
