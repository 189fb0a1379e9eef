package sanitize

import (
	"strings"
	"sync"
)

// cleanSet remembers short texts Redact leaves as they are, for every
// copy of one compiled Redactor (the boundary's recording copies share
// it): a long-lived server hands out the same labels, keys, models and
// channels call after call, and masking one costs a gate pass and often
// a pattern's regexp, every call, to find nothing.
//
// Only "unchanged" is remembered: that answer depends on the text and
// the patterns alone (Redact records and consults nothing else when it
// changes nothing), so it holds for every caller. A text that masking
// changes is masked every time.
type cleanSet struct {
	mu    sync.RWMutex
	set   map[string]struct{}
	bytes int
}

const (
	cleanMax   = 1 << 10  // the longest text remembered
	cleanBytes = 16 << 20 // what the set may hold before it starts again
)

func newCleanSet() *cleanSet { return &cleanSet{set: map[string]struct{}{}} }

func (c *cleanSet) has(s string) bool {
	if c == nil || len(s) > cleanMax {
		return false
	}
	c.mu.RLock()
	_, ok := c.set[s]
	c.mu.RUnlock()
	return ok
}

func (c *cleanSet) add(s string) {
	if c == nil || len(s) > cleanMax {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.set[s]; ok {
		return
	}
	if c.bytes+len(s) > cleanBytes {
		// a full set starts again: what is handed out now is what
		// repeats next
		c.set, c.bytes = map[string]struct{}{}, 0
	}
	// a copy: s may be a window on a whole transcript's bytes
	c.set[strings.Clone(s)] = struct{}{}
	c.bytes += len(s)
}

// cleanSet is r's set, or none for a copy that masks as 9.6 does (its
// answers differ from the set's owner's).
func (r *Redactor) cleanSet() *cleanSet {
	if r.as96 {
		return nil
	}
	return r.clean
}
