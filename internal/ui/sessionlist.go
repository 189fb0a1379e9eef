package ui

import (
	"cmp"
	"slices"
	"strings"

	"github.com/openclaw/sessions/internal/ops"
)

// sortMode orders the sessions view.
type sortMode int

const (
	sortUpdated sortMode = iota // newest first, as list
	sortKey                     // by key
	sortTokens                  // most tokens first
)

func (s sortMode) String() string {
	switch s {
	case sortKey:
		return "key"
	case sortTokens:
		return "tokens"
	}
	return "updated"
}

// rowID names a row across the feed's events: context, agent, key.
func rowID(ctx, agent, key string) string { return ctx + "\x00" + agent + "\x00" + key }

// sessionList is what the sessions view shows, without drawing: every row
// of the listing, kept current from the feed's events, and the rows shown
// (filtered and sorted), rebuilt lazily after a change.
type sessionList struct {
	rows  []ops.Row
	at    map[string]int // rowID → index in rows
	sort  sortMode
	query string // the filter, lower-cased
	shown []int  // indexes into rows, in order
	dirty bool
}

func (l *sessionList) set(rows []ops.Row) {
	for i := range rows {
		lean(&rows[i])
	}
	l.rows = rows
	l.at = make(map[string]int, len(rows))
	for i, r := range rows {
		l.at[rowID(r.Context, r.AgentID, r.Key)] = i
	}
	l.dirty = true
}

// lean drops a row's messages: the view keeps 10,000 rows, not their
// transcripts.
func lean(r *ops.Row) { r.Messages = nil }

// apply updates the rows from one event; it reports whether they changed.
func (l *sessionList) apply(ev ops.WatchEvent) bool {
	id := rowID(ev.Context, ev.AgentID, ev.Key)
	switch ev.Kind {
	case "added", "updated":
		if ev.Session == nil {
			return false
		}
		r := *ev.Session
		lean(&r)
		if i, ok := l.at[id]; ok {
			l.rows[i] = r
		} else {
			if l.at == nil {
				l.at = map[string]int{}
			}
			l.at[id] = len(l.rows)
			l.rows = append(l.rows, r)
		}
	case "removed":
		i, ok := l.at[id]
		if !ok {
			return false
		}
		last := len(l.rows) - 1
		if i != last {
			l.rows[i] = l.rows[last]
			m := l.rows[i]
			l.at[rowID(m.Context, m.AgentID, m.Key)] = i
		}
		l.rows[last] = ops.Row{}
		l.rows = l.rows[:last]
		delete(l.at, id)
	default:
		return false
	}
	l.dirty = true
	return true
}

func (l *sessionList) setSort(s sortMode) { l.sort, l.dirty = s, true }

func (l *sessionList) setQuery(q string) {
	q = strings.ToLower(strings.TrimSpace(q))
	if q != l.query {
		l.query, l.dirty = q, true
	}
}

// matches: the filter is in the key, label or display name (any case).
func (l *sessionList) matches(r *ops.Row) bool {
	if l.query == "" {
		return true
	}
	for _, s := range []string{r.Key, r.Label, r.DisplayName} {
		if containsFold(s, l.query) {
			return true
		}
	}
	return false
}

// containsFold: lower-cased needle in s, any case, without allocating for
// ASCII.
func containsFold(s, needle string) bool {
	if len(needle) > len(s) {
		return false
	}
	for i := range s {
		if c := s[i]; c >= 0x80 {
			return strings.Contains(strings.ToLower(s), needle)
		}
	}
	for i := 0; i+len(needle) <= len(s); i++ {
		ok := true
		for j := 0; j < len(needle); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != needle[j] {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// view returns the shown rows' indexes, rebuilding them after a change.
func (l *sessionList) view() []int {
	if !l.dirty {
		return l.shown
	}
	l.dirty = false
	l.shown = l.shown[:0]
	for i := range l.rows {
		if l.matches(&l.rows[i]) {
			l.shown = append(l.shown, i)
		}
	}
	num := func(p *float64) float64 {
		if p == nil {
			return -1
		}
		return *p
	}
	rows := l.rows
	slices.SortStableFunc(l.shown, func(a, b int) int {
		ra, rb := &rows[a], &rows[b]
		var c int
		switch l.sort {
		case sortKey:
			c = cmp.Compare(ra.Key, rb.Key)
		case sortTokens:
			c = cmp.Compare(num(rb.TotalTokens), num(ra.TotalTokens))
		default:
			c = cmp.Compare(num(rb.UpdatedAt), num(ra.UpdatedAt))
		}
		if c == 0 {
			c = cmp.Or(cmp.Compare(ra.Key, rb.Key), cmp.Compare(ra.AgentID, rb.AgentID), cmp.Compare(ra.Context, rb.Context))
		}
		return c
	})
	return l.shown
}

// find is the position of id among the shown rows, -1 when not shown.
func (l *sessionList) find(id string) int {
	i, ok := l.at[id]
	if !ok {
		return -1
	}
	for p, j := range l.view() {
		if j == i {
			return p
		}
	}
	return -1
}
