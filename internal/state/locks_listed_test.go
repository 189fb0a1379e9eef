package state_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/lock"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
)

// HeldLocksListed with the directories' listings (what a metrics scrape
// keeps) finds what HeldLocks finds by globbing them: a live turn lock, a
// dead writer's, one whose name no entry has, the store's lock; and a
// directory whose name holds a glob character is still globbed as such
// (what the glob finds there is what HeldLocks has always found).
func TestHeldLocksListedIsHeldLocks(t *testing.T) {
	for _, name := range []string{"state", "st[ate]"} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), name)
			if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), dir); err != nil {
				t.Fatal(err)
			}
			sd := filepath.Join(dir, "agents", "main", "sessions")
			live := fmt.Sprintf("{\n  \"pid\": %d,\n  \"createdAt\": \"2026-11-20T10:00:00.000Z\"\n}", os.Getpid())
			for file, body := range map[string]string{
				"c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl.lock": live,
				"26a610b5-ea74-4c48-bd74-9be14f7f2944.jsonl.lock": "{\n  \"pid\": 999999999,\n  \"createdAt\": \"2026-01-01T00:00:00.000Z\"\n}",
				"0badbeef-0000-4000-8000-000000000000.jsonl.lock": live,
				"sessions.json.lock":                              live,
			} {
				if err := os.WriteFile(filepath.Join(sd, file), []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"}})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			want := foundText(s.HeldLocks())
			// (in st[ate] the glob takes [ate] for a class of characters and
			// finds no transcript lock: listed, the same)
			if name == "state" && len(want) != 4 {
				t.Fatalf("HeldLocks found %d locks: %v", len(want), want)
			}
			names := map[string]map[string]string{}
			for _, a := range s.AgentIDs() {
				names[a] = map[string]string{}
				if _, entries, err := s.Entries(a); err == nil {
					for _, e := range entries {
						if !s.Visible(e) {
							continue
						}
						if e.SessionID != "" {
							names[a][e.SessionID+".jsonl"] = s.DisplayKey(e.Key)
						}
						if e.SessionFile != "" {
							names[a][filepath.Base(e.SessionFile)] = s.DisplayKey(e.Key)
						}
					}
				}
			}
			listed := func(d string) []string {
				ents, _ := os.ReadDir(d)
				var out []string
				for _, de := range ents {
					if strings.HasSuffix(de.Name(), ".jsonl.lock") {
						out = append(out, de.Name())
					}
				}
				return out
			}
			if got := foundText(s.HeldLocksListed(names, listed)); !reflect.DeepEqual(got, want) {
				t.Errorf("listed: %v\nHeldLocks: %v", got, want)
			}
		})
	}
}

func foundText(fs []lock.Found) []string {
	var out []string
	for _, f := range fs {
		out = append(out, fmt.Sprintf("%v %s %s %+v", f.Store, f.Agent, f.SessionKey, *f.Holder))
	}
	return out
}
