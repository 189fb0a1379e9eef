package export

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
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
	res, err := Run(context.Background(), Job{Format: Markdown, Meta: &Meta{}, Sources: []Source{src("s1", 50)}, MaxBytes: 600}, &out)
	if err != nil {
		t.Fatal(err)
	}
	if !res.HasMore || res.NextFrom == "" || res.Messages == 0 || res.Messages >= 50 || res.Truncated {
		t.Fatalf("a capped page: %+v", res)
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
