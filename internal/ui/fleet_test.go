package ui

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/gateway/gatewaytest"
	"github.com/openclaw/sessions/internal/gatewaysel"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/state"
)

// Over a fleet (--context all) the sessions view has a context column, no
// busy column (no locks to read over a gateway), and the feed's events
// change the row of their own context; a session opens on its context.
func TestSessionsViewFleet(t *testing.T) {
	row := func(key, id string, at int64) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"key": key, "agentId": "main", "sessionId": id, "updatedAt": at})
		return b
	}
	msg := func(role, text string, at int64) json.RawMessage {
		b, _ := json.Marshal(map[string]any{"role": role, "content": []map[string]any{{"type": "text", "text": text}}, "timestamp": at})
		return b
	}
	home := gatewaytest.Start(4, "home-tok", gatewaytest.Data{
		Sessions: []json.RawMessage{row("agent:main:main", "11111111-1111-4111-8111-111111111111", 1795236254000)},
		History: map[string][]json.RawMessage{"agent:main:main": {msg("user", "hello home", 1795236250000),
			msg("assistant", "home answers", 1795236254000)}},
	})
	t.Cleanup(home.Close)
	vps := gatewaytest.Start(3, "vps-tok", gatewaytest.Data{
		Sessions: []json.RawMessage{row("agent:main:main", "33333333-3333-4333-8333-333333333333", 1795236100000)},
	})
	t.Cleanup(vps.Close)

	cfgHome := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", cfgHome)
	dir := filepath.Join(cfgHome, "sessions")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	var ctxs []map[string]any
	for name, c := range map[string]struct{ url, tok string }{"home": {home.URL(), "home-tok"}, "vps": {vps.URL(), "vps-tok"}} {
		tf := filepath.Join(dir, name+".token")
		if err := os.WriteFile(tf, []byte(c.tok+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		ctxs = append(ctxs, map[string]any{"name": name, "gateway": c.url, "tokenFile": tf})
	}
	b, _ := json.Marshal(map[string]any{"contexts": ctxs})
	if err := os.WriteFile(filepath.Join(dir, "contexts.json"), b, 0o600); err != nil {
		t.Fatal(err)
	}
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return cfgHome
		}
		return ""
	}
	now := func() time.Time { return fixedNow }
	cfg := ops.Config{Gateway: gatewaysel.Selector{Contexts: []string{"all"}}, Env: config.Env{Home: t.TempDir(), Getenv: getenv}, Getenv: getenv, Now: now, LockTimeout: time.Second}
	env := Env{Ops: func() *ops.Ops { return ops.New(cfg) }, Styles: NewStyles(false), Now: now}

	v := loadedSessions(t, env, SessionsOptions{})
	if got := keysShown(v); len(got) != 2 {
		t.Fatalf("rows %v", got)
	}
	v.Update(v.loadBusy()())
	frame := plain(v.Render(120, 10))
	if !strings.Contains(frame, "CONTEXT") || strings.Contains(frame, "BUSY") || !strings.Contains(frame, "home") || !strings.Contains(frame, "vps") {
		t.Fatalf("fleet frame:\n%s", frame)
	}
	// an event of the vps changes the vps row only (the feed names a row
	// as the listing does)
	key := v.list.rows[0].Key
	v.Update(ChangedMsg{Event: ops.WatchEvent{Kind: "updated", Context: "vps", AgentID: "main", Key: key,
		Session: &state.Row{Context: "vps", Key: key, AgentID: "main", Kind: "main", Label: "vps-label", UpdatedAt: f64(float64(fixedNow.UnixMilli()))}}})
	var vpsLabel, homeLabel string
	for _, r := range v.list.rows {
		switch r.Context {
		case "vps":
			vpsLabel = r.Label
		case "home":
			homeLabel = r.Label
		}
	}
	if vpsLabel != "vps-label" || homeLabel != "" || len(v.list.rows) != 2 {
		t.Fatalf("labels: vps %q home %q (%d rows)", vpsLabel, homeLabel, len(v.list.rows))
	}
	// the home row opens on the home gateway: its transcript
	var homeRow state.Row
	for _, r := range v.list.rows {
		if r.Context == "home" {
			homeRow = r
		}
	}
	sv := openSession(t, env, homeRow)
	if frame := plain(sv.Render(120, 20)); !strings.Contains(frame, "home answers") || !strings.Contains(sv.Title(), "home:") {
		t.Fatalf("session over the fleet (%s):\n%s", sv.Title(), frame)
	}
}
