package ops

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
)

// strs is a page's messages as strings.
func strs(msgs []json.RawMessage) []string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		out[i] = string(m)
	}
	return out
}

// checkAround reads the page around whole[i] (named by around) and checks
// it against the whole transcript: the page arithmetic's window, the
// message marked, and that nextCursor and prevCursor page on exactly as
// --before pages do.
func checkAround(t *testing.T, o *Ops, ref string, whole []string, i, limit int, around string) {
	t.Helper()
	ctx := context.Background()
	q := HistoryQuery{Limit: limit, IncludeTools: true, Raw: true}
	aq := q
	aq.Around = around
	sess, res, err := o.OpenHistory(ctx, ref, "", aq)
	if err != nil {
		t.Fatalf("around %s (message %d), limit %d: %v", around, i, limit, err)
	}
	defer sess.Close()
	s := max(0, i-(limit-1)/2)
	e := min(len(whole), s+limit)
	s = max(0, e-limit)
	name := "around " + around + " limit " + strconv.Itoa(limit)
	if got := strs(res.Messages); !slices.Equal(got, whole[s:e]) {
		t.Fatalf("%s: %d messages, want whole[%d:%d]", name, len(got), s, e)
	}
	if res.AroundIndex == nil || *res.AroundIndex != i-s {
		t.Fatalf("%s: aroundIndex %v, want %d", name, res.AroundIndex, i-s)
	}
	if res.HasMore != (s > 0) || res.HasNewer != (e < len(whole)) {
		t.Fatalf("%s: hasMore %v hasNewer %v, page [%d,%d) of %d", name, res.HasMore, res.HasNewer, s, e, len(whole))
	}
	if res.HasMore {
		bq := q
		bq.Before = res.NextCursor
		older, err := o.History(ctx, sess, bq)
		if err != nil || !slices.Equal(strs(older.Messages), whole[max(0, s-limit):s]) {
			t.Fatalf("%s: the older page: %v", name, err)
		}
	}
	switch {
	case e+limit < len(whole):
		bq := q
		bq.Before = res.PrevCursor
		newer, err := o.History(ctx, sess, bq)
		if err != nil || !slices.Equal(strs(newer.Messages), whole[e:e+limit]) {
			t.Fatalf("%s: the newer page (prevCursor %q): %v", name, res.PrevCursor, err)
		}
	case res.PrevCursor != "":
		t.Fatalf("%s: prevCursor %q where the newer messages reach the newest", name, res.PrevCursor)
	}
}

// Every message of both eras, by its sequence number and by a cursor
// naming it, at several page sizes: the page around it is the window the
// arithmetic gives, and its cursors page on as history's do.
func TestHistoryAroundBothEras(t *testing.T) {
	for _, fx := range readFixtures {
		t.Run(fx, func(t *testing.T) {
			o, _ := newTestOps(t, fixtureDir(t, fx), nil, nil)
			sess, err := o.Session(context.Background(), "main", "")
			if err != nil {
				t.Fatal(err)
			}
			whole, _ := walk(t, o, sess, HistoryMaxLimit)
			// The cursor naming whole[i] (i > 0): the nextCursor of the
			// one-message page that holds it.
			cursors := make([]string, len(whole))
			before := ""
			for i := len(whole) - 1; i > 0; i-- {
				res, err := o.History(context.Background(), sess, HistoryQuery{Limit: 1, IncludeTools: true, Raw: true, Before: before})
				if err != nil || len(res.Messages) != 1 || string(res.Messages[0]) != whole[i] {
					t.Fatalf("one-message page %d: %v", i, err)
				}
				cursors[i], before = res.NextCursor, res.NextCursor
			}
			sess.Close()
			for i := range whole {
				for _, limit := range []int{1, 2, 3, 4, 7, len(whole) + 3} {
					checkAround(t, o, "main", whole, i, limit, strconv.Itoa(i+1))
				}
				if i > 0 {
					checkAround(t, o, "main", whole, i, 3, cursors[i])
				}
			}
		})
	}
}

// Over a gateway the page is found within chat.history's window: by a
// message's id (OpenClaw 2026.9 gives it as __openclaw.id), its time or a
// gateway cursor; what the window does not hold is exit 4, said so.
func TestHistoryAroundOverGateway(t *testing.T) {
	ctx := context.Background()
	msgs := make([]json.RawMessage, 9)
	for i := range msgs {
		msgs[i] = json.RawMessage(`{"role":"user","content":[{"type":"text","text":"same text"}],"timestamp":` + strconv.Itoa(1_000_000+1000*i) + `,"__openclaw":{"id":"m` + strconv.Itoa(i) + `","seq":` + strconv.Itoa(i+1) + `}}`)
	}
	whole := strs(msgs)
	for _, proto := range []int{3, 4} {
		o, _, _ := startGateway(t, proto, gatewaytest.Data{
			Sessions: raws(`{"key":"agent:main:main","sessionId":"s1","updatedAt":1}`),
			History:  map[string][]json.RawMessage{"agent:main:main": msgs},
		})
		for i := range msgs {
			for _, limit := range []int{1, 3, 4, 20} {
				checkAround(t, o, "agent:main:main", whole, i, limit, "m"+strconv.Itoa(i))
			}
			checkAround(t, o, "agent:main:main", whole, i, 3, strconv.Itoa(i+1)) // the window is the whole transcript
		}
		// A gateway cursor names a message too.
		_, res, err := o.OpenHistory(ctx, "agent:main:main", "", HistoryQuery{Limit: 2, IncludeTools: true, Raw: true})
		if err != nil {
			t.Fatal(err)
		}
		checkAround(t, o, "agent:main:main", whole, 7, 3, res.NextCursor)
		if _, _, err := o.OpenHistory(ctx, "agent:main:main", "", HistoryQuery{Limit: 3, Around: "nope"}); apperr.CodeOf(err) != apperr.CodeNotFound || !strings.Contains(err.Error(), "nope") {
			t.Errorf("protocol %d: an unknown id: %v", proto, err)
		}
	}
	// A window of chat.history's maximum: what is not in it is out of
	// reach, said so; a sequence number cannot be counted there.
	big := chatMessages(HistoryMaxLimit)
	o, _, _ := startGateway(t, 4, gatewaytest.Data{
		Sessions: raws(`{"key":"agent:main:main","sessionId":"s1","updatedAt":1}`),
		History:  map[string][]json.RawMessage{"agent:main:main": big},
	})
	if _, _, err := o.OpenHistory(ctx, "agent:main:main", "", HistoryQuery{Limit: 3, Around: "nope"}); apperr.CodeOf(err) != apperr.CodeNotFound || !strings.Contains(err.Error(), "last 1000 messages") {
		t.Errorf("outside a full window: %v", err)
	}
	if _, _, err := o.OpenHistory(ctx, "agent:main:main", "", HistoryQuery{Limit: 3, Around: "5"}); apperr.CodeOf(err) != apperr.CodeUsage {
		t.Errorf("a sequence number in a full window: %v", err)
	}
}

// Bad requests are refused before anything is read: --around with
// --before or --follow, a form that names nothing (exit 2); an id no
// message has, on either era (exit 4); a tool result the page leaves out
// (exit 2, saying to keep tools).
func TestHistoryAroundErrors(t *testing.T) {
	ctx := context.Background()
	o, _ := newTestOps(t, fixtureDir(t, readFixtures[0]), nil, nil)
	for _, q := range []HistoryQuery{{Limit: 3, Around: "1", Before: "x"}, {Limit: 3, Around: "1", Follow: true}, {Limit: 3, Around: "seq:0"}, {Limit: 3, Around: "gw1.!!"}} {
		if _, _, err := o.OpenHistory(ctx, "agent:main:nosuch", "", q); apperr.CodeOf(err) != apperr.CodeUsage || !strings.Contains(err.Error(), "--around") {
			t.Errorf("%+v: %v", q, err)
		}
	}
	for _, fx := range readFixtures {
		o, _ := newTestOps(t, fixtureDir(t, fx), nil, nil)
		if _, _, err := o.OpenHistory(ctx, "main", "", HistoryQuery{Limit: 3, Around: "no-such-id"}); apperr.CodeOf(err) != apperr.CodeNotFound || !strings.Contains(err.Error(), "no-such-id") {
			t.Errorf("%s: an unknown id: %v", fx, err)
		}
	}
	// The 1.30 fixture's first tool result is its 5th message.
	if _, _, err := o.OpenHistory(ctx, "main", "", HistoryQuery{Limit: 3, Around: "seq:5"}); apperr.CodeOf(err) != apperr.CodeUsage || !strings.Contains(err.Error(), "--include-tools") {
		t.Errorf("a tool result left out: %v", err)
	}
	if _, res, err := o.OpenHistory(ctx, "main", "", HistoryQuery{Limit: 1, IncludeTools: true, Around: "seq:5"}); err != nil || !strings.Contains(string(res.Messages[0]), `"toolResult"`) {
		t.Errorf("a tool result kept: %v", err)
	}
}

// A requester (--as) reads the page around a message it may see, masked
// as any page; a session it may not see is refused as history refuses it.
func TestHistoryAroundForARequester(t *testing.T) {
	ctx := context.Background()
	o, _ := fixtureOps(t, "state-2026.1.30", nil, Config{As: "agent:main:main"})
	_, res, err := o.OpenHistory(ctx, "main", "", HistoryQuery{Limit: 3, Around: "83a4bd51"})
	if err != nil || res.AroundIndex == nil || *res.AroundIndex != 0 || res.ContentRedacted == nil {
		t.Fatalf("own session: %+v, %v", res, err)
	}
	// Another session: as history answers the requester, so does --around
	// (the same refusal, or the same masked messages).
	group := "agent:main:signal:group:c2lnbmfslwdyb3vwlwlkltawmq=="
	_, page, err := o.OpenHistory(ctx, group, "", HistoryQuery{Limit: 3, Around: "bad55e90"})
	_, full, herr := o.OpenHistory(ctx, group, "", HistoryQuery{Limit: HistoryMaxLimit})
	switch {
	case herr != nil:
		if err == nil || apperr.CodeOf(err) != apperr.CodeOf(herr) || err.Error() != herr.Error() {
			t.Errorf("another session: around %v, history %v", err, herr)
		}
	case err != nil:
		t.Errorf("another session: around %v, history reads it", err)
	default:
		at := strs(page.Messages)[*page.AroundIndex]
		if !slices.Contains(strs(full.Messages), at) || !strings.Contains(at, "Hello group") {
			t.Errorf("another session: the message asked for %s", at)
		}
	}
}
