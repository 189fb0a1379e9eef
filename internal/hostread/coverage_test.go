package hostread

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/era"
	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/sqlitestore"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/stateextras"
	"github.com/openclaw/sessions/internal/transcripts"
	"github.com/openclaw/sessions/internal/usage"

	_ "modernc.org/sqlite"
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
		{"1.30+archives+orphans", "state-2026.1.30", stateextras.JSON, true},
		{"9.6", "state-2026.9.6", nil, false},
		{"9.6+orphans", "state-2026.9.6", stateextras.SQLite, false},
		{"9.8", "state-2026.9.8", nil, false},
	} {
		dir := t.TempDir()
		if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", c.fixture), dir); err != nil {
			t.Fatal(err)
		}
		if c.extra != nil {
			c.extra(t, dir)
		}
		for _, who := range []struct {
			name string
			as   string
		}{
			{"operator", ""},
			{"sandboxed", "agent:main:main"},
		} {
			t.Run(c.name+"/"+who.name, func(t *testing.T) {
				getenv := func(string) string { return "" }
				s, err := state.Open(state.Options{StateDir: dir, As: who.as, Sandboxed: who.as != "",
					Env: config.Env{Getenv: getenv, Home: "/nonexistent-home"}, Warn: func(string) {}})
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { s.Close() })
				live := searchCovers(t, s, false)
				all := searchCovers(t, s, true)
				orphans := map[string]bool{}
				for id, src := range all {
					if src == "orphan" {
						orphans[id] = true
					}
				}
				if got := usageCovers(t, s, true); !sameSet(got, all) {
					t.Errorf("--include-archived: usage covers\n  %v\nsearch covers\n  %v", setOf(got), setOf(all))
				}
				want := map[string]string{}
				for id, src := range live {
					want[id] = src
				}
				for id := range orphans {
					want[id] = "orphan"
				}
				if got := usageCovers(t, s, false); !sameSet(got, want) {
					t.Errorf("default: usage covers\n  %v\nwant search's live transcripts and the orphans\n  %v", setOf(got), setOf(want))
				}
				if c.extra != nil && who.as == "" && len(orphans) == 0 {
					t.Errorf("the extras add no orphan: %v", setOf(all))
				}
				if c.archives && who.as == "" && len(all) <= len(live)+len(orphans) {
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
func usageCovers(t *testing.T, s *state.State, archived bool) map[string]string {
	t.Helper()
	units, cat, err := usageUnits(s, &UsageQuery{AllAgents: true, IncludeArchived: archived}, time.Second, nil)
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

// TestIndexSourcesReusingReads: the index's catch-up lists the same
// sources whether it reads every agent itself or takes the agents a
// search read first (one agent, all agents, archived or not, one key):
// one read of each store and listing of each directory serves both. On
// both eras with their extras and a 2026.9 store's archives, for the
// operator and a sandboxed requester.
func TestIndexSourcesReusingReads(t *testing.T) {
	for _, c := range []struct {
		name, fixture string
		extra         func(t *testing.T, dir string)
	}{
		{"1.30", "state-2026.1.30", stateextras.JSON},
		{"9.6", "state-2026.9.6", stateextras.SQLite},
		{"9.6+archive", "state-2026.9.6", func(t *testing.T, dir string) {
			stateextras.SQLite(t, dir)
			storeArchive(t, dir)
		}},
		{"9.8", "state-2026.9.8", nil},
	} {
		dir := t.TempDir()
		if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", c.fixture), dir); err != nil {
			t.Fatal(err)
		}
		if c.extra != nil {
			c.extra(t, dir)
		}
		for _, as := range []string{"", "agent:main:main"} {
			for _, q := range []SearchQuery{{}, {AllAgents: true}, {IncludeArchived: true}, {AllAgents: true, IncludeArchived: true}, {Key: "agent:main:main"}} {
				t.Run(fmt.Sprintf("%s/%q/%+v", c.name, as, q), func(t *testing.T) {
					open := func() *state.State {
						s, err := state.Open(state.Options{StateDir: dir, As: as, Sandboxed: as != "",
							Env: config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"}, Warn: func(string) {}})
						if err != nil {
							t.Fatal(err)
						}
						t.Cleanup(func() { s.Close() })
						return s
					}
					fresh, err := indexSources(open(), nil)
					if err != nil {
						t.Fatal(err)
					}
					s := open()
					reads := map[string]*transcripts.Agent{}
					if _, _, err := searchSourcesReusing(s, &q, nil, reads, nil); err != nil {
						if q.Key != "" && as != "" {
							t.Skipf("the requester does not see %s here: %v", q.Key, err)
						}
						t.Fatal(err)
					}
					if len(reads) == 0 {
						t.Fatal("the search read no agent")
					}
					got, err := indexSourcesReusing(s, nil, reads)
					if err != nil {
						t.Fatal(err)
					}
					if as == "" && len(fresh) == 0 {
						t.Fatal("no source to compare")
					}
					if !reflect.DeepEqual(describe(got), describe(fresh)) {
						t.Errorf("reusing the search's agents:\n  %v\nread anew:\n  %v", describe(got), describe(fresh))
					}
				})
			}
		}
	}
}

// describe is what a source says, without its open store (a DB each
// state opens for itself).
func describe(srcs []srch.Source) []string {
	out := make([]string, len(srcs))
	for i, src := range srcs {
		arc := ""
		if src.Archive != nil {
			arc = fmt.Sprintf("%+v", *src.Archive)
		}
		src.DB, src.Archive = nil, nil
		out[i] = fmt.Sprintf("%+v db=%v %s", src, srcs[i].DB != nil, arc)
	}
	return out
}

// storeArchive adds an archive of agent:main:main to the main agent's
// 2026.9 store (session_transcript_archives), as OpenClaw keeps one of a
// reset session.
func storeArchive(t *testing.T, dir string) {
	t.Helper()
	db, err := sql.Open("sqlite", filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	id := "aaaa0000-0000-4000-8000-000000000001"
	blob := []byte(`{"type":"session","version":4,"id":"` + id + `","timestamp":"2026-11-20T00:00:00.000Z"}` + "\n")
	sum := sha256.Sum256(blob)
	if _, err := db.Exec(`INSERT INTO session_transcript_archives (session_id, generation, session_key, reason, encoding, archive_blob, archive_sha256, archive_name, created_at)
		VALUES (?, 'g1', 'agent:main:main', 'reset', 'identity', ?, ?, ?, 1795238300000)`, id, blob, hex.EncodeToString(sum[:]), id+".jsonl.reset.2026-11-20T00-00-02.000Z.g1"); err != nil {
		t.Fatal(err)
	}
}
