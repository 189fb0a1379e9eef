package ops

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/usage"
)

// TestSearchUsageCoverage holds search and usage to one definition of the
// transcripts of a state dir in scope (sources.go): with --include-archived
// both cover the same set — live transcripts, archived copies and store
// archives, orphans — and without it usage covers search's live
// transcripts and the orphans. On the fixtures of both eras as generated,
// then with what they lack: archived copies (one of a sessionId search
// once skipped, one in a store's own directory), an orphan attributed by
// a header, an agent without a store; on 2026.8+ a key's earlier window
// and events without a window. For every requester, and a sandboxed one.
func TestSearchUsageCoverage(t *testing.T) {
	for _, c := range []struct {
		name     string
		fixture  string
		extra    func(t *testing.T, dir string)
		archives bool // the extras add archived copies
	}{
		{"1.30", "state-2026.1.30", nil, false},
		{"1.30+archives+orphans", "state-2026.1.30", extraJSON, true},
		{"9.6", "state-2026.9.6", nil, false},
		{"9.6+orphans", "state-2026.9.6", extraSQLite, false},
		{"9.8", "state-2026.9.8", nil, false},
	} {
		dir := copyReadFixture(t, c.fixture)
		if c.extra != nil {
			c.extra(t, dir)
		}
		for _, who := range []struct {
			name  string
			tweak func(*Config)
		}{
			{"operator", nil},
			{"sandboxed", func(cf *Config) { cf.As, cf.Sandboxed = "agent:main:main", true }},
		} {
			t.Run(c.name+"/"+who.name, func(t *testing.T) {
				o, _ := newTestOps(t, dir, map[string]string{"XDG_CACHE_HOME": t.TempDir()}, who.tweak)
				s, err := o.openState()
				if err != nil {
					t.Fatal(err)
				}
				live := searchCovers(t, s, false)
				all := searchCovers(t, s, true)
				orphans := map[string]bool{}
				for id, src := range all {
					if src == "orphan" {
						orphans[id] = true
					}
				}
				if got := usageCovers(t, o, s, true); !sameSet(got, all) {
					t.Errorf("--include-archived: usage covers\n  %v\nsearch covers\n  %v", setOf(got), setOf(all))
				}
				want := map[string]string{}
				for id, src := range live {
					want[id] = src
				}
				for id := range orphans {
					want[id] = "orphan"
				}
				if got := usageCovers(t, o, s, false); !sameSet(got, want) {
					t.Errorf("default: usage covers\n  %v\nwant search's live transcripts and the orphans\n  %v", setOf(got), setOf(want))
				}
				if c.extra != nil && who.tweak == nil && len(orphans) == 0 {
					t.Errorf("the extras add no orphan: %v", setOf(all))
				}
				if c.archives && who.tweak == nil && len(all) <= len(live)+len(orphans) {
					t.Errorf("the extras add no archived copy: %v", setOf(all))
				}
			})
		}
	}
}

// searchCovers is the transcripts a search of every agent reads: a file's
// path, db:<agent>:<sessionId> for a store's events, archive:<agent>:<name>
// for a store's archive; the value is "orphan" for an orphan.
func searchCovers(t *testing.T, s *state.State, archived bool) map[string]string {
	t.Helper()
	srcs, _, err := searchSources(s, &SearchQuery{AllAgents: true, IncludeArchived: archived}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, src := range srcs {
		id := src.Path
		switch {
		case src.Archive != nil:
			id = "archive:" + src.Agent + ":" + src.Archive.Name
		case src.DB != nil:
			id = "db:" + src.Agent + ":" + src.SessionID
		}
		kind := "transcript"
		if src.Orphan {
			kind = "orphan"
		}
		if _, dup := out[id]; dup {
			t.Errorf("search reads %s twice", id)
		}
		out[id] = kind
	}
	return out
}

// usageCovers is the transcripts usage reads, named as searchCovers names
// them: its file units, and what a SQLite store's unit holds that the
// requester may see (usageCatalog.session, as usage counts it).
func usageCovers(t *testing.T, o *Ops, s *state.State, archived bool) map[string]string {
	t.Helper()
	units, cat, err := o.usageUnits(s, &UsageQuery{AllAgents: true, IncludeArchived: archived})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for i, u := range units {
		ui := cat.units[i]
		if s.Era(ui.agent) != era.SQLite || u.Path != s.SQLitePath(ui.agent) {
			out[u.Path] = ""
			continue
		}
		db, err := sqlitestore.Open(u.Path, sqlitestore.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ts, err := db.Transcripts()
		if err != nil {
			t.Fatal(err)
		}
		for _, tr := range ts {
			if _, ok := cat.session(s, ui, usage.Part{SessionID: tr.SessionID}); ok {
				out["db:"+ui.agent+":"+tr.SessionID] = ""
			}
		}
		if archived {
			arcs, err := db.Archives()
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range arcs {
				if _, ok := cat.session(s, ui, usage.Part{SessionID: a.SessionID, Key: a.SessionKey, Archived: true}); ok {
					out["archive:"+ui.agent+":"+a.Name] = ""
				}
			}
		}
		db.Close()
	}
	return out
}

func sameSet(a, b map[string]string) bool {
	return slices.Equal(setOf(a), setOf(b))
}

func setOf(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// extraJSON adds to a 2026.1.30 state: a reset copy of main's transcript, a
// deleted copy of a session no entry has (a sessionId with a space, which
// search once skipped), a header naming the orphan (the Signal DM's), an
// orphan attributed to main, and an agent without a store holding a
// transcript and an archived copy.
func extraJSON(t *testing.T, dir string) {
	t.Helper()
	sd := filepath.Join(dir, "agents", "main", "sessions")
	main := filepath.Join(sd, "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	b, err := os.ReadFile(main)
	if err != nil {
		t.Fatal(err)
	}
	msg := `{"type":"message","id":"e1e1e1e1","parentId":null,"timestamp":"2026-11-21T05:00:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"MOCK earlier"}],"provider":"mock","model":"mock-1","usage":{"input":5,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":6,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1795237201000}}` + "\n"
	files := map[string]string{
		filepath.Join(sd, "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl.reset.2026-11-21T05-00-00.000Z"):                                  string(b),
		filepath.Join(sd, "odd id.jsonl.deleted.2026-11-21T05-10-00.000Z"):                                                              `{"type":"session","version":3,"id":"odd id","timestamp":"2026-11-21T05:00:00.000Z","cwd":"/"}` + "\n" + msg,
		filepath.Join(sd, "0e0e0e0e-0000-4000-8000-000000000001.jsonl"):                                                                 `{"type":"session","version":3,"id":"0e0e0e0e-0000-4000-8000-000000000001","timestamp":"2026-11-21T04:00:00.000Z","cwd":"/"}` + "\n" + msg,
		filepath.Join(dir, "agents", "solo", "sessions", "5010a000-0000-4000-8000-000000000001.jsonl"):                                  `{"type":"session","version":3,"id":"5010a000-0000-4000-8000-000000000001","timestamp":"2026-11-21T04:00:00.000Z","cwd":"/"}` + "\n" + msg,
		filepath.Join(dir, "agents", "solo", "sessions", "5010a000-0000-4000-8000-000000000002.jsonl.deleted.2026-11-21T05-10-00.000Z"): `{"type":"session","version":3,"id":"5010a000-0000-4000-8000-000000000002","timestamp":"2026-11-21T04:00:00.000Z","cwd":"/"}` + "\n" + msg,
	}
	// main's transcript names the new orphan as its parent: main's earlier one
	_, rest, _ := strings.Cut(string(b), "\n")
	files[main] = `{"type":"session","version":3,"id":"c040fd20-0a1c-4ce0-924c-6e695a32eecb","timestamp":"2026-11-21T04:43:35.128Z","cwd":"/home/claw/.openclaw/workspace","parentSession":"/home/claw/.openclaw/agents/main/sessions/0e0e0e0e-0000-4000-8000-000000000001.jsonl"}` + "\n" + rest
	for p, body := range files {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// extraSQLite adds to a 2026.9 state: a window of agent:main:main before its
// current one, and events of a sessionId no window holds (written with the
// store's foreign keys off, as OpenClaw's cascade would not leave them).
func extraSQLite(t *testing.T, dir string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const cols = `seq, event_json, created_at, event_zstd, event_utf8_bytes, navigation_json`
	for _, q := range []string{
		`INSERT INTO session_windows (session_id, session_key, reason, created_at, updated_at) VALUES ('0bd00000-0000-4000-8000-000000000001', 'agent:main:main', 'initial', 1, 1)`,
		`INSERT INTO transcript_events (session_id, ` + cols + `) SELECT '0bd00000-0000-4000-8000-000000000001', ` + cols + ` FROM transcript_events WHERE session_id = '8000a7c0-cc69-4a7f-82ba-219f4a789783'`,
		`INSERT INTO transcript_events (session_id, ` + cols + `) SELECT 'ffff0000-0000-4000-8000-000000000002', ` + cols + ` FROM transcript_events WHERE session_id = '8000a7c0-cc69-4a7f-82ba-219f4a789783'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
}
