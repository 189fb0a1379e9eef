package sqlitestore

import (
	"slices"
	"testing"

	"github.com/openclaw/sessions/internal/transcript"
)

// eventsOf reads every event of sessionID through Events.
func eventsOf(t *testing.T, db *DB, sessionID string) (seqs []int64, lines []string) {
	t.Helper()
	err := db.Events(sessionID, transcript.DefaultMaxLineBytes, func() { seqs, lines = nil, nil }, func(seq int64, data []byte, st transcript.Status) {
		if st != transcript.StatusMessage {
			t.Fatalf("event %d: status %v", seq, st)
		}
		seqs, lines = append(seqs, seq), append(lines, string(data))
	})
	if err != nil {
		t.Fatal(err)
	}
	return seqs, lines
}

// TestEventsAndIndex: Events yields every event as stored (zstd decoded),
// also for a transcript moved to a cold archive with its newest events
// still hot; the search index is current for the fixture's sessions and not
// for the archived one; FTSRows map to their events' seqs.
func TestEventsAndIndex(t *testing.T) {
	dir := copyFixture(t)
	p := Path(dir, "main")
	seqs, lines := rawEvents(t, p, mainSession)
	db, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	gotS, gotL := eventsOf(t, db, mainSession)
	if !slices.Equal(gotS, seqs) || !slices.Equal(gotL, lines) {
		t.Fatalf("Events differ from the rows:\n%v\n%v", gotS, seqs)
	}
	cur, err := db.FTSCurrent()
	if err != nil || !cur[mainSession] {
		t.Fatalf("index of %s not current: %v %v", mainSession, cur, err)
	}
	var rows []FTSRow
	if err := db.FTSRows(mainSession, func() { rows = nil }, func(r FTSRow) { rows = append(rows, r) }); err != nil {
		t.Fatal(err)
	}
	if len(rows) == 0 {
		t.Fatal("no index rows")
	}
	for _, r := range rows {
		if r.Seq < 0 || !slices.Contains(seqs, r.Seq) || r.Text == "" || (r.Role != "user" && r.Role != "assistant") {
			t.Errorf("index row %+v", r)
		}
	}
	db.Close()

	archive(t, p, mainSession, seqs, lines, 8, "file")
	db, err = Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	gotS, gotL = eventsOf(t, db, mainSession)
	if !slices.Equal(gotS, seqs) || !slices.Equal(gotL, lines) {
		t.Fatalf("Events of a cold transcript differ:\n%v\n%v", gotS, seqs)
	}
	if cur, err = db.FTSCurrent(); err != nil || cur[mainSession] {
		t.Fatalf("index of a cold transcript current: %v %v", cur, err)
	}
}

// TestEventsAt: the events of chosen seqs read in one go are those Events
// gives, hot or from a cold archive (the newest events still hot), and a
// seq that holds no event gives nothing.
func TestEventsAt(t *testing.T) {
	dir := copyFixture(t)
	p := Path(dir, "main")
	seqs, lines := rawEvents(t, p, mainSession)
	check := func(what string) {
		t.Helper()
		db, err := Open(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var want []int64
		var wantL []string
		for i, s := range seqs {
			if i%3 != 1 {
				want, wantL = append(want, s), append(wantL, lines[i])
			}
		}
		var gotS []int64
		var gotL []string
		err = db.EventsAt(map[string][]int64{mainSession: append(slices.Clone(want), seqs[len(seqs)-1]+1000)}, transcript.DefaultMaxLineBytes,
			func() { gotS, gotL = nil, nil },
			func(id string, seq int64, data []byte, st transcript.Status) {
				if id != mainSession || st != transcript.StatusMessage {
					t.Fatalf("%s %d: %v", id, seq, st)
				}
				gotS, gotL = append(gotS, seq), append(gotL, string(data))
			})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(gotS, want) || !slices.Equal(gotL, wantL) {
			t.Fatalf("%s: EventsAt gave %v, want %v", what, gotS, want)
		}
	}
	check("hot")
	archive(t, p, mainSession, seqs, lines, 8, "file")
	check("cold")
}
