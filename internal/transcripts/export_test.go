package transcripts

import (
	"time"

	"github.com/openclaw/sessions/internal/state"
)

// SetHeaderClock makes the headers' cache see now as the time (a test's
// clock, far enough ahead that every file is trusted), until restore.
func SetHeaderClock(now func() time.Time) (restore func()) {
	headers.mu.Lock()
	defer headers.mu.Unlock()
	was := headers.now
	headers.now = now
	return func() {
		headers.mu.Lock()
		defer headers.mu.Unlock()
		headers.now = was
	}
}

// AttributeUncached is Attribute reading every header, the cache's oracle.
func (a *Agent) AttributeUncached(s *state.State, orphans []Orphan) {
	a.attribute(s, orphans, func() []named { return a.readParents(&headerCache{off: true}) })
}

// HeaderReads is how many headers the process's cache has read.
func HeaderReads() int64 { return headers.read.Load() }

// ArchiveOfByRegex is ArchiveOf by its regular expression alone.
func ArchiveOfByRegex(name string) string {
	if m := archiveRe.FindStringSubmatch(name); m != nil {
		return m[1]
	}
	return ""
}

// SetStoredClock makes the cache of the stores' transcripts see now as the
// time, until restore.
func SetStoredClock(now func() time.Time) (restore func()) {
	stored.mu.Lock()
	defer stored.mu.Unlock()
	was := stored.now
	stored.now = now
	return func() {
		stored.mu.Lock()
		defer stored.mu.Unlock()
		stored.now = was
	}
}

// StoredReads is how many times a store's transcripts were listed from
// the store (the cache's misses).
func StoredReads() int64 { return stored.reads.Load() }
