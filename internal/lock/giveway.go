package lock

import (
	"math/rand/v2"
	"sync"
	"time"
)

// Giving way to a polling OpenClaw.
//
// OpenClaw waits for its store lock by polling: every 25 ms it tries to
// create the lock file, and it gets the lock only if the file is absent at
// that instant. A process of ours that writes back to back (the MCP server,
// a batch of patches, our goroutines one after the other) would re-create
// the lock microseconds after removing it, so a polling OpenClaw would find
// it free almost never: under load the real 1.30 writer, hammering a store
// beside ours, waited 3.9 s and once ran into its 10 s timeout.
//
// So this process gives way: once it has kept the lock to itself for a
// while — holding it again and again without ever leaving it free for longer
// than OpenClaw's poll interval — its next acquisition (by any goroutine)
// first leaves the lock free for a moment longer than that interval, a
// jittered storeYieldMin to storeYieldMax (jitter, so that processes of ours
// do not fall into step with each other or with OpenClaw's timer). Whoever
// polls in that window — OpenClaw, or another process of ours — takes the
// lock. A process that has not held the lock recently (a CLI command's one
// write), and a short burst of writes, do not wait: the streak may last
// storeStreakMax before the process gives way, so a polling OpenClaw waits
// on one process of ours for about that long at most, and our back-to-back
// writes lose about a third of their rate only when they keep on.
var (
	storeYieldMin  = 30 * time.Millisecond
	storeYieldMax  = 60 * time.Millisecond
	storeStreakMax = 100 * time.Millisecond
)

// storeTurns is this process's record of the store locks it held recently.
var storeTurns = turns{paths: map[string]*turn{}}

type turns struct {
	mu    sync.Mutex
	paths map[string]*turn // by lock path
}

type turn struct {
	streak   time.Time // when the current streak of ours began
	released time.Time // our last release
	until    time.Time // we leave the lock alone until then (zero: no wait)
}

// acquired notes that this process took lockPath at now: a new streak,
// unless our last release was less than a window ago.
func (t *turns) acquired(lockPath string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tn := t.paths[lockPath]
	if tn == nil {
		tn = &turn{}
		t.paths[lockPath] = tn
	}
	if tn.released.IsZero() || now.Sub(tn.released) >= storeYieldMin {
		tn.streak = now
	}
	tn.until = time.Time{}
}

// released notes that this process released lockPath at now; once the
// streak has lasted storeStreakMax, the next acquisition waits a window.
func (t *turns) released(lockPath string, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for p, tn := range t.paths { // forget the locks not held for a while
		if now.Sub(tn.released) > time.Minute {
			delete(t.paths, p)
		}
	}
	tn := t.paths[lockPath]
	if tn == nil {
		tn = &turn{streak: now}
		t.paths[lockPath] = tn
	}
	tn.released = now
	if now.Sub(tn.streak) >= storeStreakMax {
		d := storeYieldMin
		if span := storeYieldMax - storeYieldMin; span > 0 {
			d += rand.N(span)
		}
		tn.until = now.Add(d)
	}
}

// wait is how long this process must still leave lockPath alone (0: go).
func (t *turns) wait(lockPath string, now time.Time) time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	tn := t.paths[lockPath]
	if tn == nil || !now.Before(tn.until) {
		return 0
	}
	return tn.until.Sub(now)
}
