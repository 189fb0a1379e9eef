package gateway

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/openclaw/sessions/internal/apperr"
)

// MaxQueuedEvents bounds the events a subscription holds that its reader
// has not taken yet; past it the subscription ends with an error rather than
// growing without bound or silently dropping events.
const MaxQueuedEvents = 10000

// Subscription receives the events its filter accepts, in order, from the
// moment Subscribe returns. It never blocks the connection: events queue
// until Next takes them.
type Subscription struct {
	c      *Client
	filter func(Event) bool

	mu     sync.Mutex
	queue  []Event
	err    error // set when the subscription ended
	notify chan struct{}
}

// Subscribe starts a subscription; filter nil accepts every event.
func (c *Client) Subscribe(filter func(Event) bool) *Subscription {
	s := &Subscription{c: c, filter: filter, notify: make(chan struct{}, 1)}
	c.mu.Lock()
	if c.closed {
		err := c.doneErr
		c.mu.Unlock()
		s.end(c.connLost("subscription", err))
		return s
	}
	c.subs[s] = struct{}{}
	c.mu.Unlock()
	return s
}

// Events returns a subscription to the events named (any of them).
func (c *Client) Events(names ...string) *Subscription {
	return c.Subscribe(func(e Event) bool {
		for _, n := range names {
			if e.Event == n {
				return true
			}
		}
		return false
	})
}

func (c *Client) dispatch(e Event) {
	c.mu.Lock()
	subs := make([]*Subscription, 0, len(c.subs))
	for s := range c.subs {
		subs = append(subs, s)
	}
	c.mu.Unlock()
	for _, s := range subs {
		if s.filter == nil || s.filter(e) {
			s.push(e)
		}
	}
}

func (s *Subscription) push(e Event) {
	s.mu.Lock()
	if s.err != nil {
		s.mu.Unlock()
		return
	}
	if len(s.queue) >= MaxQueuedEvents {
		s.err = apperr.Errorf("gateway %s: more than %d events not read; subscription ended", s.c.url, MaxQueuedEvents)
		s.mu.Unlock()
		s.c.unsubscribe(s)
		s.wake()
		return
	}
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	s.wake()
}

func (s *Subscription) wake() {
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

func (s *Subscription) end(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.wake()
}

// Next returns the next event, waiting for one. Queued events are returned
// before the error that ended the subscription (connection lost, Close).
func (s *Subscription) Next(ctx context.Context) (Event, error) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			e := s.queue[0]
			s.queue[0] = Event{}
			s.queue = s.queue[1:]
			s.mu.Unlock()
			return e, nil
		}
		err := s.err
		s.mu.Unlock()
		if err != nil {
			return Event{}, err
		}
		select {
		case <-s.notify:
		case <-ctx.Done():
			return Event{}, s.c.ctxError(ctx, "waiting for events")
		}
	}
}

// Close ends the subscription; Next then returns what is queued, then an error.
func (s *Subscription) Close() {
	s.c.unsubscribe(s)
	s.end(apperr.Errorf("subscription closed").Wrap(ErrClosed))
}

func (c *Client) unsubscribe(s *Subscription) {
	c.mu.Lock()
	delete(c.subs, s)
	c.mu.Unlock()
}

// ChatEvent is a `chat` event's payload (both versions).
type ChatEvent struct {
	RunID        string          `json:"runId"`
	SessionKey   string          `json:"sessionKey"`
	Seq          int64           `json:"seq"`
	State        string          `json:"state"` // delta | final | aborted | error (9.x also status)
	Message      json.RawMessage `json:"message,omitempty"`
	DeltaText    string          `json:"deltaText,omitempty"` // 9.x
	ErrorMessage string          `json:"errorMessage,omitempty"`
}

// ChatEvents subscribes to the `chat` events of one session key ("" = all).
// Both versions broadcast them to every reader that did not declare the
// session-scoped-events capability (this client never does).
func (c *Client) ChatEvents(sessionKey string) *Subscription {
	return c.Subscribe(func(e Event) bool {
		if e.Event != "chat" {
			return false
		}
		if sessionKey == "" {
			return true
		}
		var p struct {
			SessionKey string `json:"sessionKey"`
		}
		return json.Unmarshal(e.Payload, &p) == nil && p.SessionKey == sessionKey
	})
}

// DecodeChat decodes a chat event's payload.
func DecodeChat(e Event) (ChatEvent, error) {
	var ce ChatEvent
	err := json.Unmarshal(e.Payload, &ce)
	return ce, err
}
