package sqlitestore

import (
	"fmt"
	"testing"

	"github.com/openclaw/sessions/internal/transcript"
)

// TestColdArchivesStream: the stream export reads (Stream: every event
// in seq order, its line as stored) gives a transcript whose events were
// moved to a cold archive exactly as it gave them hot — so `export --format
// jsonl` of a cold or half-cold session is still its events' lines.
func TestColdArchivesStream(t *testing.T) {
	ref := copyFixture(t)
	seqs, lines := rawEvents(t, Path(ref, "main"), mainSession)
	last := seqs[len(seqs)-1]
	for _, c := range coldCases(last) {
		t.Run(c.name, func(t *testing.T) {
			dir := copyFixture(t)
			p := Path(dir, "main")
			archive(t, p, mainSession, seqs, lines, c.upTo, c.storage)
			db, err := Open(p, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var gotSeqs []int64
			var got []string
			err = db.Stream(mainSession, 0, transcript.Options{}, func(l transcript.Line) error {
				gotSeqs, got = append(gotSeqs, l.Pos), append(got, string(l.Raw))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(gotSeqs) != fmt.Sprint(seqs) {
				t.Fatalf("seqs %v, want %v", gotSeqs, seqs)
			}
			for i := range lines {
				if got[i] != lines[i] {
					t.Errorf("event %d: %.200s, want %.200s", seqs[i], got[i], lines[i])
				}
			}
		})
	}
}
