package sqlitestore

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/openclaw/sessions/internal/transcript"
)

// walkPages pages a session's transcript back from its newest event with
// Options.Before and returns the union of the pages, oldest first.
func walkPages(t *testing.T, db *DB, limit int, tools bool) []json.RawMessage {
	t.Helper()
	var all []json.RawMessage
	opts := transcript.Options{Limit: limit, IncludeTools: tools, More: true}
	for pages := 0; ; pages++ {
		res, err := db.Messages(mainSession, opts)
		if err != nil {
			t.Fatalf("page %d: %v", pages, err)
		}
		if len(res.Positions) != len(res.Messages) || len(res.Checks) != len(res.Messages) {
			t.Fatalf("%d messages, %d positions, %d checks", len(res.Messages), len(res.Positions), len(res.Checks))
		}
		all = append(append([]json.RawMessage(nil), res.Messages...), all...)
		if !res.More {
			return all
		}
		if pages > 100 || len(res.Messages) == 0 || (opts.Before > 0 && res.Positions[0] >= opts.Before) {
			t.Fatalf("page %d does not go back: %v (before %d)", pages, res.Positions, opts.Before)
		}
		opts.Before, opts.BeforeCheck = res.Positions[0], res.Checks[0]
	}
}

// TestPagesSQLite: paging back with cursors gives every message once, in
// order, whatever the page size — with hot rows, compressed rows, and a
// cold archive holding the older events; a cursor whose event is gone or
// different is ErrCursorMismatch.
func TestPagesSQLite(t *testing.T) {
	ref := copyFixture(t)
	seqs, lines := rawEvents(t, Path(ref, "main"), mainSession)
	for _, c := range []string{"hot", "compressed", "cold"} {
		t.Run(c, func(t *testing.T) {
			dir := copyFixture(t)
			p := Path(dir, "main")
			switch c {
			case "compressed":
				w := rw(t, p)
				for i, s := range seqs {
					if i%2 == 0 {
						mustExec(t, w, `UPDATE transcript_events SET event_json = NULL, event_zstd = ?, event_utf8_bytes = ?, navigation_json = ?
							WHERE session_id = ? AND seq = ?`, zstdOf(t, []byte(lines[i])), len(lines[i]), navigationJSON, mainSession, s)
					}
				}
				w.Close()
			case "cold":
				archive(t, p, mainSession, seqs, lines, 8, "file")
			}
			before := snapshot(t, dir)
			db, err := Open(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, tools := range []bool{false, true} {
				want, err := db.Messages(mainSession, transcript.Options{IncludeTools: tools})
				if err != nil || len(want.Messages) < 4 {
					t.Fatalf("%d messages: %v", len(want.Messages), err)
				}
				for limit := 1; limit <= 4; limit++ {
					got := walkPages(t, db, limit, tools)
					if len(got) != len(want.Messages) {
						t.Fatalf("limit %d, tools %v: %d messages in the pages, want %d", limit, tools, len(got), len(want.Messages))
					}
					for i := range got {
						if !bytes.Equal(got[i], want.Messages[i]) {
							t.Fatalf("limit %d, tools %v: message %d differs", limit, tools, i)
						}
					}
				}
			}
			// A cursor for the newest message.
			res, err := db.Messages(mainSession, transcript.Options{Limit: 1, More: true})
			if err != nil || !res.More {
				t.Fatal(res, err)
			}
			pos, check := res.Positions[0], res.Checks[0]
			for name, o := range map[string]transcript.Options{
				"no such seq":       {Limit: 1, Before: seqs[len(seqs)-1] + 5, BeforeCheck: check},
				"other event":       {Limit: 1, Before: pos - 1, BeforeCheck: check},
				"other fingerprint": {Limit: 1, Before: pos, BeforeCheck: check + 1},
			} {
				if _, err := db.Messages(mainSession, o); !errors.Is(err, transcript.ErrCursorMismatch) {
					t.Errorf("%s: %v, want ErrCursorMismatch", name, err)
				}
			}
			if r, err := db.Messages(mainSession, transcript.Options{Limit: 50, Before: pos, BeforeCheck: check}); err != nil || len(r.Positions) == 0 || r.Positions[len(r.Positions)-1] >= pos {
				t.Fatalf("the page before %d: %v, %v", pos, r, err)
			}
			assertUnchanged(t, dir, before)
		})
	}
}
