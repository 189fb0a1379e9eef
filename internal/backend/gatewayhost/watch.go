package gatewayhost

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/watch"
)

// Watch feeds the changes of a gateway's sessions from its event stream:
// `chat` (a final reply is a message event), `agent` (a run's lifecycle)
// and, on 2026.9.x after sessions.subscribe, `sessions.changed`. Each such
// event (debounced) lists the sessions again and the difference is the
// changes. 2026.1.30 sends nothing when a session is patched, created or
// deleted by another client, so there — and on a 9.x gateway refusing
// sessions.subscribe — the gateway's own keepalive `tick` (every 30 s) also
// lists them again: such changes show within 30 s rather than a second.
func (g *Gateway) Watch(ctx context.Context, q backend.WatchQuery, ready func(), emit func([]watch.Event) error) error {
	c, err := g.Client(ctx)
	if err != nil {
		return err
	}
	sub := c.Subscribe(func(e gateway.Event) bool {
		switch e.Event {
		case "chat", "agent", "sessions.changed", "session.message", "tick":
			return true
		}
		return false
	})
	defer sub.Close()
	subscribed := false
	if c.Protocol() >= 4 {
		cctx, cancel := context.WithTimeout(ctx, CallTimeout)
		err := c.Call(cctx, "sessions.subscribe", map[string]any{}, nil)
		cancel()
		if err == nil {
			subscribed = true
		} else {
			g.log("watch: sessions.subscribe refused (" + err.Error() + "); listing the sessions again on every tick (30 s)")
		}
	} else {
		g.log("watch: OpenClaw 2026.1.30 sends no event when a session is patched, created or deleted; listing the sessions again on every tick (30 s)")
	}
	snap, err := g.watchSnapshot(ctx, q)
	if err != nil {
		return err
	}
	if ready != nil {
		ready()
	}

	events := make(chan gateway.Event, 64)
	failed := make(chan error, 1)
	go func() {
		for {
			e, err := sub.Next(ctx)
			if err != nil {
				failed <- err
				return
			}
			select {
			case events <- e:
			case <-ctx.Done():
				return
			}
		}
	}()
	settle := time.NewTimer(time.Hour)
	settle.Stop()
	defer settle.Stop()
	armed := false
	var msgs []pendingMsg
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-failed:
			if ctx.Err() != nil || errors.Is(err, gateway.ErrClosed) {
				return nil
			}
			return err
		case e := <-events:
			relist := false
			switch e.Event {
			case "chat":
				var p struct {
					SessionKey string          `json:"sessionKey"`
					State      string          `json:"state"`
					Message    json.RawMessage `json:"message"`
				}
				if json.Unmarshal(e.Payload, &p) != nil || p.SessionKey == "" {
					continue
				}
				if p.State == "final" && len(p.Message) > 0 {
					msgs = append(msgs, pendingMsg{p.SessionKey, p.Message})
				}
				relist = p.State != "delta"
			case "agent":
				var p struct {
					Stream string `json:"stream"`
				}
				relist = json.Unmarshal(e.Payload, &p) == nil && p.Stream == "lifecycle"
			case "tick":
				relist = !subscribed
			default:
				relist = true
			}
			if relist && !armed {
				settle.Reset(q.DebounceOrDefault())
				armed = true
			}
		case <-settle.C:
			armed = false
			next, err := g.watchSnapshot(ctx, q)
			if err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			evs := watch.Diff(snap, next)
			snap = next
			byKey := make(map[string]watch.ID, len(snap))
			for id := range snap {
				byKey[id.Key] = id
			}
			if q.Messages {
				for _, m := range msgs {
					if id, ok := byKey[m.key]; ok {
						evs = append(evs, watch.Event{Kind: watch.Message, ID: id, Msg: m.msg})
					}
				}
			}
			msgs = msgs[:0]
			if len(evs) > 0 {
				if err := emit(evs); err != nil {
					return err
				}
			}
		}
	}
}

type pendingMsg struct {
	key string
	msg json.RawMessage
}

func (g *Gateway) log(m string) {
	if g.Log != nil {
		g.Log(m)
	}
}

// watchSnapshot lists every session of the watch's scope.
func (g *Gateway) watchSnapshot(ctx context.Context, q backend.WatchQuery) (watch.Snapshot, error) {
	lr, err := g.List(ctx, backend.ListQuery{Kinds: q.Kinds, Limit: -1, AllAgents: q.AllAgents, Now: time.Now()})
	if err != nil {
		return nil, err
	}
	snap := make(watch.Snapshot, len(lr.Rows))
	for _, r := range lr.Rows {
		snap[watch.ID{Agent: r.AgentID, Key: r.Key}] = watch.Item{Row: r, Transcript: watch.Mark{SessionID: r.SessionID}}
	}
	return snap, nil
}
