package backend

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/sessionwrite"
)

// PatchAsk is a change of a session's send policy or label (Host.Patch),
// as OpenClaw's sessions.patch makes it.
type PatchAsk struct {
	Ref   string // a key, a sessionId or a unique sessionId prefix
	Label string // or the session with this label (the host's Agent picks the agent)
	// NewLabel is the label to set (nil: unchanged; "": removed), already
	// held to the loosest rule (sessionwrite.ParseLabel with no era); the
	// writer's era decides once it is known.
	NewLabel *string
	// SendPolicy is allow or deny ("": the override removed; nil:
	// unchanged).
	SendPolicy *string
	// WaitIdle > 0: wait up to this long for an OpenClaw run holding the
	// session's transcript lock to end before writing (this host's
	// JSON-era files only: a gateway refuses it, exit 2).
	WaitIdle time.Duration
	// Settle bounds the wait, after such a run released the lock, for
	// its end-of-turn store write.
	Settle time.Duration
	// OnWait is told when the wait starts, with what it waits for.
	OnWait func(msg string)
}

// Patched is what a patch wrote: the entry as the writer normalised it
// (a gateway: as it answers), where, and the warnings of a run going.
type Patched struct {
	Key, DisplayKey string
	Path            string
	Entry           json.RawMessage
	Warnings        []string
}

// PatchThrough patches t through w (every writer: the JSON files, the
// SQLite store, a gateway's sessions.patch).
func PatchThrough(ctx context.Context, w sessionwrite.Writes, q PatchAsk, t WriteTarget, warnings []string, debug func(string, ...any)) (*Patched, error) {
	p := sessionwrite.Patch{NotFound: apperr.NotFoundf("No session found: %s", strings.TrimSpace(q.Ref)), SessionID: t.SessionID,
		Label: q.NewLabel, SendPolicy: q.SendPolicy}
	res, err := w.Patch(ctx, t.Key, p)
	if err != nil {
		return nil, err
	}
	debug(res.Said, res.Debug...)
	return &Patched{Key: t.Key, DisplayKey: t.DisplayKey, Path: res.Path, Entry: res.Entry, Warnings: warnings}, nil
}
