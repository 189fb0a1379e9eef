package export

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
)

// src is one transcript of n messages (ids m1…mn, a second apart) after
// its session header.
func src(sid string, n int) Source {
	return Source{Seg: Segment{SessionID: sid, Source: "current"}, Stream: func(fn func(SourceLine) error) error {
		if err := fn(SourceLine{Raw: []byte(`{"type":"session","id":"` + sid + `"}`)}); err != nil {
			return err
		}
		for i := 1; i <= n; i++ {
			m := fmt.Sprintf(`{"role":"user","id":"m%d","timestamp":%d,"content":"text %d"}`, i, 1700000000000+int64(i)*1000, i)
			raw := fmt.Sprintf(`{"type":"message","id":"l%d","message":%s}`, i, m)
			if err := fn(SourceLine{Pos: int64(i), Raw: []byte(raw), Message: []byte(m)}); err != nil {
				return err
			}
		}
		return nil
	}}
}

func noCursor(string) (string, int64, bool, bool) { return "", 0, false, false }

func TestRunRange(t *testing.T) {
	now := time.UnixMilli(1700000100000)
	for _, tc := range []struct {
		from, to string
		last     int
		want     []string // the message ids written, in order
	}{
		{"", "", 0, []string{"m1", "m2", "m3", "m4", "m5"}},
		{"2", "seq:4", 0, []string{"m2", "m3", "m4"}},
		{"2", "4", 2, []string{"m3", "m4"}},
		{"id:l3", "", 0, []string{"m3", "m4", "m5"}},
		{"", "l2", 0, []string{"m1", "m2"}},
		{"", "", 9, []string{"m1", "m2", "m3", "m4", "m5"}},
	} {
		from, err := ParseBound("--from", tc.from, false, now, noCursor)
		if err != nil {
			t.Fatal(err)
		}
		to, err := ParseBound("--to", tc.to, true, now, noCursor)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		res, err := Run(context.Background(), Job{Format: JSONL, Meta: &Meta{}, Sources: []Source{src("s1", 5)}, From: from, To: to, Last: tc.last}, &out)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if i := strings.Index(l, `"id":"m`); i >= 0 {
				got = append(got, l[i+6:i+8])
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) || res.Messages != len(tc.want) {
			t.Errorf("from %q to %q last %d: wrote %v (%d messages), want %v", tc.from, tc.to, tc.last, got, res.Messages, tc.want)
		}
	}
}

func TestRunPages(t *testing.T) {
	var out bytes.Buffer
	res, err := Run(context.Background(), Job{Format: Markdown, Meta: &Meta{}, Sources: []Source{src("s1", 50)}, MaxBytes: 1200}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !res.HasMore || res.NextFrom == "" || res.Messages == 0 || res.Messages >= 50 || res.Truncated {
		t.Fatalf("a capped page: %+v", res)
	}
	if out.Len() > 1200 || res.Bytes != out.Len() {
		t.Errorf("a page of %d bytes (%d said), over its cap of 1200 with its totals", out.Len(), res.Bytes)
	}
	if res.NextFrom != fmt.Sprint(res.Messages+1) {
		t.Errorf("next page starts at %s after %d messages", res.NextFrom, res.Messages)
	}
}

func TestParseBoundRefusesAGatewayCursor(t *testing.T) {
	gw := func(string) (string, int64, bool, bool) { return "", 0, true, false }
	if _, err := ParseBound("--from", "gwcursor", false, time.Now(), gw); err == nil || !strings.Contains(err.Error(), "gateway's cursor") {
		t.Fatalf("a gateway's cursor: %v", err)
	}
}

// A range that cannot hold a message is refused before anything is
// written (exit 2); an id the transcript does not hold is not found
// (exit 4): --from's before anything is written, --to's once the export
// has run to its end without meeting it.
func TestRunRangeRefusals(t *testing.T) {
	now := time.UnixMilli(1700000100000)
	for _, tc := range []struct {
		from, to string
		code     int
		empty    bool // nothing written
	}{
		{"5", "3", apperr.CodeUsage, true},
		{"seq:4", "seq:2", apperr.CodeUsage, true},
		{"2023-11-14T22:14:00Z", "2023-11-14T22:13:00Z", apperr.CodeUsage, true},
		{"id:nope", "", apperr.CodeNotFound, true},
		{"id:nope", "4", apperr.CodeNotFound, true},
		{"", "id:nope", apperr.CodeNotFound, false},
		{"id:l4", "id:l2", apperr.CodeNotFound, false}, // before --from: never met
	} {
		from, err := ParseBound("--from", tc.from, false, now, noCursor)
		if err != nil {
			t.Fatal(err)
		}
		to, err := ParseBound("--to", tc.to, true, now, noCursor)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range []Format{Markdown, JSONL, HTML} {
			var out bytes.Buffer
			_, err = Run(context.Background(), Job{Format: f, Meta: &Meta{Key: "main"}, Sources: []Source{src("s1", 5)}, From: from, To: to}, &out)
			if apperr.CodeOf(err) != tc.code {
				t.Errorf("%s from %q to %q: %v (exit %d), want exit %d", f, tc.from, tc.to, err, apperr.CodeOf(err), tc.code)
			}
			if tc.empty && out.Len() != 0 {
				t.Errorf("%s from %q to %q: wrote %d bytes before refusing", f, tc.from, tc.to, out.Len())
			}
		}
	}
	// The same kinds in order, and an empty range of times, are no error.
	for _, c := range [][2]string{{"3", "3"}, {"id:l2", "l4"}, {"2020-01-01", "2020-01-02"}} {
		from, _ := ParseBound("--from", c[0], false, now, noCursor)
		to, _ := ParseBound("--to", c[1], true, now, noCursor)
		if _, err := Run(context.Background(), Job{Format: Markdown, Meta: &Meta{}, Sources: []Source{src("s1", 5)}, From: from, To: to}, io.Discard); err != nil {
			t.Errorf("from %q to %q: %v", c[0], c[1], err)
		}
	}
}

// A long export tells its progress every thousand messages, and once more
// at its end.
func TestRunProgress(t *testing.T) {
	var got []string
	_, err := Run(context.Background(), Job{Format: JSONL, Meta: &Meta{}, Sources: []Source{src("s1", 2500)},
		Progress: func(n int, done bool) { got = append(got, fmt.Sprint(n, done)) }}, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != "[1000 false 2000 false 2500 true]" {
		t.Errorf("progress %v", got)
	}
}

// An orphan's export is its one transcript: the header says it is an
// orphan, and no boundary calls it an earlier transcript of a session.
func TestOrphanHasNoBoundary(t *testing.T) {
	for _, f := range []Format{Markdown, HTML} {
		var out bytes.Buffer
		meta := &Meta{SessionID: "s1", Agent: "main", Orphan: true}
		orphan := src("s1", 2)
		orphan.Seg.Source = "orphan"
		if _, err := Run(context.Background(), Job{Format: f, Meta: meta, Sources: []Source{orphan}}, &out); err != nil {
			t.Fatal(err)
		}
		if s := out.String(); strings.Contains(s, "Earlier transcript") || strings.Contains(s, "before a reset") || !strings.Contains(s, "no session entry points to this transcript") {
			t.Errorf("%s: an orphan's export:\n%s", f, s)
		}
	}
}

// --to a date is that whole day and no more: a message stamped at the next
// midnight is the next day's; the header states the day's last second.
func TestToADateIsThatDay(t *testing.T) {
	now := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	end := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC).UnixMilli()
	day := Source{Seg: Segment{SessionID: "s1", Source: "current"}, Stream: func(fn func(SourceLine) error) error {
		for i, ts := range []int64{end - 1000, end - 1, end, end + 1} {
			m := fmt.Sprintf(`{"role":"user","timestamp":%d,"content":"t%d"}`, ts, i)
			if err := fn(SourceLine{Pos: int64(i), Raw: []byte(m), Message: []byte(m)}); err != nil {
				return err
			}
		}
		return nil
	}}
	for _, s := range []string{"2026-11-21", "time:2026-11-21"} {
		to, err := ParseBound("--to", s, true, now, noCursor)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		res, err := Run(context.Background(), Job{Format: Markdown, Meta: &Meta{Range: RangeOf(nil, to, 0)}, Sources: []Source{day}, To: to}, &out)
		if err != nil {
			t.Fatal(err)
		}
		if res.Messages != 2 || !strings.Contains(out.String(), "- Range: to 2026-11-21 23:59:59Z (inclusive)\n") {
			t.Errorf("--to %s: %d messages, want the day's 2:\n%s", s, res.Messages, out.String())
		}
	}
}

// The range in the header reads as a phrase: --last with --to is the last
// messages up to that end; with --from, the last of those from it.
func TestRangeOfReads(t *testing.T) {
	seq := func(n int) *Bound { return &Bound{kind: "seq", seq: n} }
	for _, c := range []struct {
		from, to *Bound
		last     int
		want     string
	}{
		{nil, nil, 0, ""},
		{nil, nil, 3, "the last 3 messages"},
		{seq(3), seq(5), 0, "from message 3 to message 5 (inclusive)"},
		{nil, seq(10), 2, "the last 2 messages up to message 10 (inclusive)"},
		{seq(3), nil, 2, "the last 2 of the messages from message 3"},
		{seq(3), seq(10), 2, "the last 2 of the messages from message 3 to message 10 (inclusive)"},
	} {
		if got := RangeOf(c.from, c.to, c.last); got != c.want {
			t.Errorf("RangeOf(%v, %v, %d) = %q, want %q", c.from, c.to, c.last, got, c.want)
		}
	}
}
