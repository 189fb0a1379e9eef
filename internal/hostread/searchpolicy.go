package hostread

import (
	"context"
	"strconv"
	"strings"

	srch "github.com/openclaw/sessions/internal/search"
)

// NoIndexEnv turns the search index off when set to a true value
// (1, true): every search scans, as with --no-index.
const NoIndexEnv = "SESSIONS_NO_INDEX"

// IndexBackgroundEnv set to a false value (0, false) keeps a search from
// starting a build of the search index in the background: a search that
// finds the index far behind then updates it inline for up to two
// seconds before it scans, as a catch-up does.
const IndexBackgroundEnv = "SESSIONS_INDEX_BACKGROUND"

// IndexOff reads $SESSIONS_NO_INDEX (NoIndexEnv).
func IndexOff(v string) bool {
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	return err == nil && b
}

// IndexAsk is what decides whether a search asks the search index, and
// how (IndexFor).
type IndexAsk struct {
	Ctx       context.Context
	Pattern   srch.Query
	NoIndex   bool // --no-index
	Relevance bool // a ranked query
	Getenv    func(string) string
	// Requester is the requester's key (--as, $OPENCLAW_SESSION_KEY; ""
	// the operator); Redact the operator's --redact; Sandboxed, the
	// requester runs sandboxed: who a background build runs as.
	Requester string
	Redact    bool
	Sandboxed bool
	// MaskKey names a masked search's index (MaskKey; "": not masked).
	MaskKey string
	// Notice is told once a build started in the background, for the
	// operator only (nil: not said); Debug why the scan answers.
	Notice func(string)
	Debug  func(string)
}

// IndexFor is how a search asks the search index (nil: it scans): not
// with --no-index or $SESSIONS_NO_INDEX, nor for a words or a ranked
// query. A masked search (an agent's, --redact) asks an index of the
// masked text, one per mask and requester (a.MaskKey).
func IndexFor(a IndexAsk) *SearchIndex {
	if a.NoIndex || IndexOff(a.Getenv(NoIndexEnv)) {
		return nil
	}
	if a.Pattern.Words || a.Relevance {
		// The index selects by one literal or a regex's; a words query
		// (its words in any order) and a ranked one (every message in
		// scope counted) are the scan's.
		if a.Debug != nil {
			a.Debug("search: a words or ranked query is answered by the scan, not the index")
		}
		return nil
	}
	return &SearchIndex{Ctx: a.Ctx, Pattern: a.Pattern, Debug: a.Debug, Build: backgroundBuild(a), MaskKey: a.MaskKey}
}

// MaskKey names the masked index of a requester's searches
// (SearchIndex.MaskKey): the host's redact patterns, the requester (""
// for the operator's --redact) and whether it is sandboxed. The build a
// search starts in the background names it the same way: it is the same
// requester.
func MaskKey(patterns []string, requester string, sandboxed bool) string {
	key := "patterns\x00" + strings.Join(patterns, "\x00") + "\x01requester\x00" + requester
	if sandboxed {
		// a sandboxed requester sees fewer transcripts than the same key
		// unsandboxed: an index of its own, not one refitted per call
		key += "\x01sandboxed"
	}
	return key
}

// backgroundBuild is how a search has the build of its index started in
// the background by its host (SearchIndex.Build): one detached `sessions
// index --update --background` for this state dir, at low priority, its
// stdio the null device. A masked search's (an agent's, --redact) builds
// that search's masked index only, so it runs as the same requester —
// `--as KEY` (and `--sandboxed`) on its command line, since the detached
// process inherits neither $OPENCLAW_SESSION_KEY nor $OPENCLAW_SANDBOXED
// — or with --redact. a.Notice is told once it started, for the operator
// only: an agent is not pointed at sessions index, which is not its. nil
// when $SESSIONS_INDEX_BACKGROUND is false: the search updates inline.
func backgroundBuild(a IndexAsk) *BackgroundBuild {
	if b, err := strconv.ParseBool(strings.TrimSpace(a.Getenv(IndexBackgroundEnv))); err == nil && !b {
		return nil
	}
	notice := a.Notice
	var flags []string
	if a.Requester != "" {
		flags = append(flags, "--as", a.Requester)
		notice = nil
	} else if a.Redact {
		flags = append(flags, "--redact")
	}
	if len(flags) > 0 && a.Sandboxed {
		flags = append(flags, "--sandboxed") // what the requester sees
	}
	return &BackgroundBuild{Flags: flags, Notice: notice}
}
