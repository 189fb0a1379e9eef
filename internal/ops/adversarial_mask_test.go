package ops

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/watch"
)

// A label or a display name is free text an agent reads in list, show and
// the change feed: a secret in it is masked for an agent, shown as stored
// to the operator.
func TestAdversarialLabelsMasked(t *testing.T) {
	const label = "deploy password=Zq7pW3xK9mB2vL5nR8tY4c"
	const hidden = "xK9mB2vL5nR8"
	for _, masked := range []bool{false, true} {
		o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{Redact: masked})
		p := filepath.Join(dir, "agents/main/sessions/sessions.json")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var store map[string]map[string]any
		if err := json.Unmarshal(b, &store); err != nil {
			t.Fatal(err)
		}
		store["agent:main:main"]["label"] = label
		store["agent:main:main"]["displayName"] = label
		if b, err = json.Marshal(store); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		lr, err := o.List(context.Background(), ListQuery{Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		doc, _ := json.Marshal(lr)
		if strings.Contains(string(doc), hidden) == masked {
			t.Errorf("list, masked %v: %s", masked, doc)
		}
		sr, err := o.Show(context.Background(), ShowQuery{Ref: "main"})
		if err != nil {
			t.Fatal(err)
		}
		doc, _ = json.Marshal(sr)
		if strings.Contains(string(doc), hidden) == masked {
			t.Errorf("show, masked %v: %s", masked, doc)
		}
		evs := o.watchEvents([]watch.Event{{Kind: watch.Updated, Fields: []string{"label"}, Row: &state.Row{Key: "agent:main:main", Label: label, DisplayName: label}}}, "", false)
		doc, _ = json.Marshal(evs)
		if strings.Contains(string(doc), hidden) == masked {
			t.Errorf("watch, masked %v: %s", masked, doc)
		}
	}
}
