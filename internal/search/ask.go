package search

import (
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/when"
)

// Ask is what a search asks for, as given (flags, a tool's arguments).
type Ask struct {
	Pattern      Query
	Role         string // only messages of this role ("tool" implies IncludeTools)
	Since, Until string // a duration back from now or a date (when.Parse)
	IncludeTools bool
	Relevance    bool // rank a words query by relevance
}

// OptionsOf checks a and compiles it into a scan's options (now is the
// clock since and until count back from): an invalid pattern or time, a
// ranked query that is not a words one, or since not before until are
// usage errors (exit 2).
func OptionsOf(a Ask, now time.Time) (*Options, error) {
	m, err := Compile(a.Pattern)
	if err != nil {
		return nil, apperr.Usagef("%v", err)
	}
	if a.Relevance && !m.Words() {
		return nil, apperr.Usagef("ranking by relevance needs a words query (--words)")
	}
	since, err := when.Parse(a.Since, now, time.Local, false)
	if err != nil {
		return nil, apperr.Usagef("invalid --since: %v", err)
	}
	until, err := when.Parse(a.Until, now, time.Local, true)
	if err != nil {
		return nil, apperr.Usagef("invalid --until: %v", err)
	}
	if since != 0 && until != 0 && since >= until {
		return nil, apperr.Usagef("--since is after --until")
	}
	so := &Options{Matcher: m, IncludeTools: a.IncludeTools || a.Role == "tool", Since: since, Until: until, Relevance: a.Relevance}
	if a.Role != "" {
		so.Roles = []string{a.Role}
	}
	return so, nil
}
