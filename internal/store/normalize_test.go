package store

import (
	"testing"

	"github.com/openclaw/sessions/internal/jsonx"
)

func obj(t *testing.T, s string) *jsonx.Object {
	t.Helper()
	o := jsonx.NewObject()
	if err := o.UnmarshalJSON([]byte(s)); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return o
}

func compact(t *testing.T, o *jsonx.Object) string {
	t.Helper()
	b, err := o.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNormalizeDeliveryAppendixA checks the two entries of format Appendix A
// (observed by running the 1.30 store.js) plus the rules of §3.4.
func TestNormalizeDeliveryAppendixA(t *testing.T) {
	cases := []struct {
		name, in, want string
		changed        bool
	}{
		{
			name:    "appendix A: channel only",
			in:      `{"sessionId":"s","updatedAt":1,"channel":"Discord"}`,
			want:    `{"sessionId":"s","updatedAt":1,"channel":"Discord","deliveryContext":{"channel":"discord"},"lastChannel":"discord"}`,
			changed: true,
		},
		{
			name:    "appendix A: last* win, alias, trim, threadId truncated",
			in:      `{"sessionId":"s","lastChannel":"IMSG","lastTo":" +1 ","deliveryContext":{"channel":"telegram","to":"z","threadId":3.7}}`,
			want:    `{"sessionId":"s","lastChannel":"imessage","lastTo":"+1","deliveryContext":{"channel":"imessage","to":"+1","threadId":3},"lastThreadId":3}`,
			changed: true,
		},
		{
			name:    "already normalised: untouched",
			in:      `{"deliveryContext":{"channel":"signal","to":"+15551230001","accountId":"default"},"lastChannel":"signal","lastTo":"+15551230001","lastAccountId":"default","channel":"whatsapp"}`,
			want:    `{"deliveryContext":{"channel":"signal","to":"+15551230001","accountId":"default"},"lastChannel":"signal","lastTo":"+15551230001","lastAccountId":"default","channel":"whatsapp"}`,
			changed: false,
		},
		{
			name:    "no delivery fields at all: untouched",
			in:      `{"sessionId":"s","updatedAt":1}`,
			want:    `{"sessionId":"s","updatedAt":1}`,
			changed: false,
		},
		{
			name:    "deliveryContext fills missing last*; accountId trimmed not lowercased; gchat alias",
			in:      `{"deliveryContext":{"channel":" GChat ","to":" room ","accountId":" AccT "}}`,
			want:    `{"deliveryContext":{"channel":"googlechat","to":"room","accountId":"AccT"},"lastChannel":"googlechat","lastTo":"room","lastAccountId":"AccT"}`,
			changed: true,
		},
		{
			name:    "origin.threadId is the last fallback; string thread ids trimmed",
			in:      `{"lastChannel":"slack","origin":{"threadId":" 17.5 "}}`,
			want:    `{"lastChannel":"slack","origin":{"threadId":" 17.5 "},"deliveryContext":{"channel":"slack","threadId":"17.5"},"lastThreadId":"17.5"}`,
			changed: true,
		},
		{
			name:    "empty strings become absent; extra deliveryContext fields dropped on rewrite",
			in:      `{"lastChannel":"","lastTo":"  ","deliveryContext":{"channel":"webchat","x":1}}`,
			want:    `{"lastChannel":"webchat","deliveryContext":{"channel":"webchat"}}`,
			changed: true,
		},
		{
			name:    "nothing left: delivery fields removed",
			in:      `{"a":1,"lastChannel":" ","deliveryContext":{}}`,
			want:    `{"a":1}`,
			changed: true,
		},
		{
			name:    "numeric lastThreadId kept when integral",
			in:      `{"deliveryContext":{"channel":"telegram","to":"1","threadId":42},"lastChannel":"telegram","lastTo":"1","lastThreadId":42}`,
			want:    `{"deliveryContext":{"channel":"telegram","to":"1","threadId":42},"lastChannel":"telegram","lastTo":"1","lastThreadId":42}`,
			changed: false,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			o := obj(t, c.in)
			got := NormalizeDelivery(o)
			if got != c.changed {
				t.Errorf("changed = %v, want %v", got, c.changed)
			}
			if s := compact(t, o); s != c.want {
				t.Errorf("got  %s\nwant %s", s, c.want)
			}
			// idempotent
			if NormalizeDelivery(o) {
				t.Errorf("second normalisation changed %s", compact(t, o))
			}
		})
	}
}

func TestMigrateLegacy(t *testing.T) {
	o := obj(t, `{"provider":"signal","lastProvider":"telegram","room":"#r","x":1}`)
	if !MigrateLegacy(o) {
		t.Fatal("no change")
	}
	if got, want := compact(t, o), `{"x":1,"channel":"signal","lastChannel":"telegram","groupChannel":"#r"}`; got != want {
		t.Errorf("got %s want %s", got, want)
	}
	// provider left alone when channel is a string (Appendix A); room always dropped
	o = obj(t, `{"channel":"discord","provider":"slack","groupChannel":"#g","room":"#r"}`)
	MigrateLegacy(o)
	if got, want := compact(t, o), `{"channel":"discord","provider":"slack","groupChannel":"#g"}`; got != want {
		t.Errorf("got %s want %s", got, want)
	}
	if MigrateLegacy(obj(t, `{"a":1}`)) {
		t.Error("changed a clean entry")
	}
}
