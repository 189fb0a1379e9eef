package history

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/sanitize"
)

// runTranscripts is history over a backend.Transcripts (a gateway): the
// same page, sanitising, cap, cursors and output as on the local state dir.
func runTranscripts(o *Options, tr backend.Transcripts) error {
	f := o.f
	ctx := o.Context
	if ctx == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	sess, err := tr.Session(ctx, o.Ref, o.Label)
	if err != nil {
		return err
	}
	page, err := tr.History(ctx, sess, backend.HistoryQuery{Limit: o.Limit, IncludeTools: o.IncludeTools, Before: o.Before})
	if err != nil {
		return err
	}
	if page.Note != "" {
		f.Warn(page.Note)
	}
	res := Result{SessionKey: sess.Key, SessionID: sess.SessionID, Messages: []json.RawMessage{}, WindowFull: page.WindowFull && !page.More}
	read := len(page.Messages)
	first := 0
	if o.Raw {
		res.Messages = page.Messages
		b, _ := jsonx.Marshal(res.Messages)
		res.Bytes = len(b)
	} else {
		msgs := make([]json.RawMessage, len(page.Messages))
		for i, m := range page.Messages {
			msgs[i] = sanitize.StripEnvelope(m)
		}
		res.Messages, first, res.Dropped, res.Bytes = sanitize.HistoryPage(msgs, sanitize.DefaultCapBytes)
		res.Truncated = res.Dropped > 0
		if res.Messages == nil {
			res.Messages = []json.RawMessage{}
		}
	}
	if len(res.Messages) > 0 && (page.More || first > 0) && !o.Follow {
		res.HasMore = true
		res.NextCursor = page.CursorBefore(first)
	}
	p, done, err := o.showPage(facts{key: sess.Key, sessionID: sess.SessionID, agent: sess.Agent, label: sess.Label}, res, read)
	if done || err != nil {
		return err
	}
	if f.IO.IsStderrTTY() && !f.JSONMode() {
		fmt.Fprintf(f.IO.ErrOut, "Following %s (Ctrl-C to stop)\n", sess.Key)
	}
	return tr.Follow(ctx, sess, backend.FollowQuery{
		IncludeTools: o.IncludeTools, Last: page.Last, Poll: o.Poll, Idle: o.IdleTimeout,
		Reset: func(id string) {
			fmt.Fprintf(f.IO.ErrOut, "sessions: %s was reset: now session %s\n", sess.Key, id)
		},
	}, func(msgs []json.RawMessage) error { return p.print(o.prepare(msgs)) })
}
