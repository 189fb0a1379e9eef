package state

import (
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/policy"
)

// openAs opens the bundled 1.30 demo state (agent-to-agent disabled) for a
// requester; only read here.
func openAs(t *testing.T, as string, sandboxed bool) *State {
	t.Helper()
	s, err := Open(Options{StateDir: "../../testdata/state-2026.1.30", As: as, Sandboxed: sandboxed,
		Env: config.Env{Home: t.TempDir(), Getenv: func(string) string { return "" }}, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// resolveOutcome is everything a requester learns from one resolution: the
// error's code, status, text and details, and which stores were read for it
// (the work that decides the time it takes).
type resolveOutcome struct {
	code          int
	status, msg   string
	extra         map[string]any
	storesLoaded  []string
	found         bool
	resolvedAgent string
}

func resolveAs(t *testing.T, as string, sandboxed bool, r Ref, op policy.Op) resolveOutcome {
	t.Helper()
	s := openAs(t, as, sandboxed)
	tg, err := s.ResolveRef(r, op)
	o := resolveOutcome{storesLoaded: slices.Sorted(maps.Keys(s.stores))}
	if err == nil {
		o.found, o.resolvedAgent = true, tg.Agent
		return o
	}
	var ae *apperr.Error
	if !errors.As(err, &ae) {
		t.Fatalf("%+v: not an apperr: %v", r, err)
	}
	o.code, o.status, o.msg, o.extra = ae.Code, ae.Status, ae.Msg, ae.Extra
	return o
}

// A session the requester may not see is answered exactly as one that does
// not exist: the same code, status, text (the reference echoed as given)
// and details, after the same reads — a key, a sessionId, a prefix of one
// and a label alike. The operator still finds it.
func TestInvisibleIsNotFound(t *testing.T) {
	const (
		dm      = "agent:main:signal:dm:+15551230001" // main's, exists
		dmID    = "26a610b5-ea74-4c48-bd74-9be14f7f2944"
		grp     = "agent:main:telegram:group:-100123"
		missing = "agent:main:signal:dm:+15551230009"
	)
	cases := []struct {
		name               string
		as                 string
		sandboxed          bool
		hidden, absent     Ref
		wantCode           int
		wantHidden, wantAb string
	}{
		{name: "key across agents", as: "agent:ops:main", hidden: Ref{Arg: dm}, absent: Ref{Arg: missing},
			wantCode: apperr.CodeNotFound, wantHidden: "No session found: " + dm, wantAb: "No session found: " + missing},
		{name: "sessionId across agents", as: "agent:ops:main", hidden: Ref{Arg: dmID}, absent: Ref{Arg: "26a610b5-ea74-4c48-bd74-000000000000"},
			wantCode: apperr.CodeNotFound, wantHidden: "No session found: " + dmID, wantAb: "No session found: 26a610b5-ea74-4c48-bd74-000000000000"},
		{name: "sessionId prefix across agents", as: "agent:ops:main", hidden: Ref{Arg: "26a610b5"}, absent: Ref{Arg: "26a610b6"},
			wantCode: apperr.CodeNotFound, wantHidden: "No session found: 26a610b5", wantAb: "No session found: 26a610b6"},
		{name: "short prefix across agents", as: "agent:ops:main", hidden: Ref{Arg: "26a6"}, absent: Ref{Arg: "ffff"},
			wantCode: apperr.CodeNotFound, wantHidden: "No session found: 26a6", wantAb: "No session found: ffff"},
		{name: "label across agents", as: "agent:ops:main", hidden: Ref{Label: "build-stats"}, absent: Ref{Label: "no-such-label"},
			wantCode: apperr.CodeNotFound, wantHidden: "No session found with label: build-stats", wantAb: "No session found with label: no-such-label"},
		{name: "sandboxed, not spawned", as: "agent:main:main", sandboxed: true, hidden: Ref{Arg: grp}, absent: Ref{Arg: "agent:main:telegram:group:-100999"},
			wantCode: apperr.CodeForbidden, wantHidden: policy.MsgNotVisible + grp, wantAb: policy.MsgNotVisible + "agent:main:telegram:group:-100999"},
	}
	for _, c := range cases {
		for _, op := range []policy.Op{policy.OpHistory, policy.OpSend} {
			h := resolveAs(t, c.as, c.sandboxed, c.hidden, op)
			a := resolveAs(t, c.as, c.sandboxed, c.absent, op)
			if h.found || a.found {
				t.Fatalf("%s: resolved (hidden %v, absent %v)", c.name, h.found, a.found)
			}
			if h.code != c.wantCode || h.msg != c.wantHidden {
				t.Errorf("%s op %d: hidden answered %d %q, want %d %q", c.name, op, h.code, h.msg, c.wantCode, c.wantHidden)
			}
			if a.code != c.wantCode || a.msg != c.wantAb {
				t.Errorf("%s op %d: absent answered %d %q, want %d %q", c.name, op, a.code, a.msg, c.wantCode, c.wantAb)
			}
			if h.status != a.status || len(h.extra) != 0 || len(a.extra) != 0 {
				t.Errorf("%s op %d: status %q/%q, details %v/%v", c.name, op, h.status, a.status, h.extra, a.extra)
			}
			if !slices.Equal(h.storesLoaded, a.storesLoaded) {
				t.Errorf("%s op %d: stores read differ: hidden %v, absent %v", c.name, op, h.storesLoaded, a.storesLoaded)
			}
		}
	}

	// what the requester may see still resolves, and the operator sees all
	if o := resolveAs(t, "agent:ops:main", false, Ref{Arg: "main"}, policy.OpHistory); !o.found || o.resolvedAgent != "ops" {
		t.Fatalf("ops main: %+v", o)
	}
	for _, r := range []Ref{{Arg: dm}, {Arg: dmID}, {Arg: "26a610b5"}, {Label: "build-stats"}} {
		if o := resolveAs(t, "", false, r, policy.OpHistory); !o.found || o.resolvedAgent != "main" {
			t.Fatalf("operator %+v: %+v", r, o)
		}
	}
}
