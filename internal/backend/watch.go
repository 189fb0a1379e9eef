package backend

import (
	"context"
	"time"

	"github.com/openclaw/sessions/internal/watch"
)

// WatchQuery is what a change feed watches: the scope of a listing.
type WatchQuery struct {
	Kinds     []string // only these kinds (empty: all)
	AllAgents bool     // every agent (locally the operator otherwise sees its own)
	Messages  bool     // also the messages appended to the sessions' transcripts
	// Debounce is how long file events settle before the changed files are
	// read (0: DefaultDebounce).
	Debounce time.Duration
	// Tick is how often the cheap checks run: the SQLite store's change
	// counter, the stamps of the JSON stores (a missed file event), a
	// gateway's keepalive (0: DefaultTick).
	Tick time.Duration
}

// The feed's default timings: a change shows within Debounce (file events)
// or Tick (a SQLite commit) plus the read, well under a second.
const (
	DefaultDebounce = 100 * time.Millisecond
	DefaultTick     = 250 * time.Millisecond
)

// DebounceOrDefault is q.Debounce, DefaultDebounce when unset.
func (q WatchQuery) DebounceOrDefault() time.Duration {
	if q.Debounce > 0 {
		return q.Debounce
	}
	return DefaultDebounce
}

// TickOrDefault is q.Tick, DefaultTick when unset.
func (q WatchQuery) TickOrDefault() time.Duration {
	if q.Tick > 0 {
		return q.Tick
	}
	return DefaultTick
}

// Watcher is a Reader that can feed changes: it snapshots what it lists
// (no events for what exists), calls ready once later changes will be
// seen, then emits each batch of changes as it sees them until ctx ends
// (nil) or emit fails (its error).
type Watcher interface {
	Watch(ctx context.Context, q WatchQuery, ready func(), emit func([]watch.Event) error) error
}
