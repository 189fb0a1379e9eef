package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/openclaw/sessions/internal/apperr"
)

// FuzzLoad writes arbitrary bytes as openclaw.json and loads them: Load must
// never panic, must return either a config or an exit-10 error, and every
// helper must work on whatever it returns.
func FuzzLoad(f *testing.F) {
	if real, err := os.ReadFile(filepath.Join("..", "..", "testdata", "state-2026.1.30", "openclaw.json")); err == nil {
		f.Add(real)
	}
	f.Add([]byte(`// c
{agents: {list: [{id: 'Ops', default: true, model: "p/m"}], defaults: {subagents: {archiveAfterMinutes: 0x10}}},
 session: {store: "~/s/{agentId}.json", sendPolicy: {rules: [{action: "deny", match: {channel: "x"}}]}},
 env: {vars: {K: "v"}}, k: "${K} $${K} ${MISSING}", trailing: [1,2,],}`))
	f.Add([]byte(`{$include: "other.json5", x: 1}`))
	f.Add([]byte(`{$include: ["a.json5", "b.json5"]}`))
	f.Add([]byte(`{a: [[[{}]]], b: Infinity, c: -0x1F, d: .5e3}`))
	f.Add([]byte(`[`))
	f.Add([]byte(""))

	home := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		// An include target next to the config, so relative includes can succeed.
		if err := os.WriteFile(filepath.Join(dir, "other.json5"), []byte(`{y: "${HOME_X}"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, "openclaw.json")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		env := fakeEnv(home, dir, map[string]string{"HOME_X": "x"})
		cfg, err := Load(p, env)
		if err != nil {
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != apperr.CodeState {
				t.Fatalf("error is not an exit-10 apperr: %T %v", err, err)
			}
			return
		}
		if cfg == nil || cfg.Raw == nil {
			t.Fatal("nil config without error")
		}
		_ = cfg.DefaultAgentID()
		for _, id := range cfg.AgentIDs() {
			_ = cfg.Agent(id)
			_, _ = cfg.ModelFor(id)
			_ = cfg.SubagentModelFor(id)
			_, _ = cfg.StorePath(dir, id, env)
		}
		_ = cfg.PingPongTurns()
		_ = cfg.ArchiveAfterMinutes()
	})
}
