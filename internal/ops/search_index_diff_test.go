package ops

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"charm.land/log/v2"

	"github.com/openclaw/sessions/internal/hostread"
)

// diffWords are what the random messages say and the random queries ask:
// every script, and words a query of three bytes or more selects by.
var diffWords = []string{
	"needle", "Needle", "NEEDLE", "restart", "gateway", "hello", "再起動", "検索テスト", "сервер", "Сервер",
	"🚀launch", "emoji🚀", "café", "ÉCOLE", "tool", "MOCK", "reply", "zqxrare17", "ab", "é",
}

// diffQuery is a random query over diffWords, with the options search has.
func diffQuery(r *rand.Rand) SearchQuery {
	w := diffWords[r.IntN(len(diffWords))]
	q := SearchQuery{Pattern: SearchPattern{Pattern: w}}
	switch r.IntN(7) {
	case 0:
		q.Pattern.IgnoreCase = true
	case 3:
		// words in any order (and one ranked): what no literal selects
		q.Pattern = SearchPattern{Pattern: diffWords[r.IntN(len(diffWords))] + " " + w, Words: true}
		q.Relevance = r.IntN(2) == 0
	case 1:
		q.Pattern = SearchPattern{Pattern: w + "[a-z0-9 ]*", Regex: true, IgnoreCase: r.IntN(2) == 0}
	case 2:
		q.Pattern = SearchPattern{Pattern: "(re|ga)[a-z]+", Regex: true} // nothing to select by
	}
	if r.IntN(4) == 0 {
		q.Role = []string{"user", "assistant", "tool"}[r.IntN(3)]
	}
	if r.IntN(4) == 0 {
		q.Since = []string{"2026-11-21T05:00:00Z", "2026-11-20", "1h"}[r.IntN(3)]
	}
	q.IncludeTools = r.IntN(3) == 0
	q.IncludeArchived = r.IntN(3) == 0
	q.AllAgents = r.IntN(2) == 0
	if r.IntN(3) == 0 {
		q.Context = 1 + r.IntN(2)
	}
	if r.IntN(2) == 0 {
		q.Limit = 1 + r.IntN(4)
	}
	return q
}

// diffText is a random message text of diffWords.
func diffText(r *rand.Rand) string {
	n := 1 + r.IntN(4)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = diffWords[r.IntN(len(diffWords))]
	}
	return strings.Join(parts, " ")
}

// diffLine is a message line (or event) of a random role and text.
func diffLine(r *rand.Rand, id string, at int) []byte {
	role := []string{"user", "assistant", "toolResult"}[r.IntN(3)]
	msg := map[string]any{"role": role, "content": []any{map[string]any{"type": "text", "text": diffText(r)}}}
	if role == "toolResult" {
		msg["toolCallId"], msg["toolName"] = "c1", "exec"
	}
	if role == "assistant" && r.IntN(2) == 0 {
		msg["content"] = append(msg["content"].([]any), map[string]any{"type": "toolCall", "id": "c1", "name": "exec", "arguments": map[string]any{"command": diffText(r)}})
	}
	b, _ := json.Marshal(map[string]any{"type": "message", "id": id, "timestamp": fmt.Sprintf("2026-11-21T%02d:%02d:00.000Z", 4+at/60%20, at%60), "message": msg})
	return b
}

// mutate changes the state as OpenClaw and people do between two
// questions: a message appended, a transcript rewritten, reset (an
// archived copy) or deleted; a 2026.8+ store's events appended, rewritten
// or deleted.
func mutate(t *testing.T, r *rand.Rand, dir string, step int) string {
	t.Helper()
	id := fmt.Sprintf("diff-%d", step)
	files, _ := filepath.Glob(filepath.Join(dir, "agents", "*", "sessions", "*.jsonl"))
	if len(files) > 0 {
		f := files[r.IntN(len(files))]
		switch r.IntN(6) {
		case 0, 1, 2: // an append
			fh, err := os.OpenFile(f, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			fh.Write(append(diffLine(r, id, step), '\n'))
			fh.Close()
			return "append to " + f
		case 3: // a rewrite: the same length or not, the same name
			b, _ := os.ReadFile(f)
			lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
			if len(lines) > 2 {
				lines[len(lines)-1] = diffLine(r, id, step)
			}
			os.WriteFile(f, append(bytes.Join(lines, []byte("\n")), '\n'), 0o600)
			return "rewrite " + f
		case 4: // a reset: the transcript archived
			b, _ := os.ReadFile(f)
			os.WriteFile(f+".reset.2026-11-22T00-00-0"+fmt.Sprint(step%10)+".000Z", b, 0o600)
			os.WriteFile(f, b[:bytes.IndexByte(b, '\n')+1], 0o600)
			return "reset " + f
		default:
			os.Remove(f)
			return "delete " + f
		}
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var sids []string
	rows, err := db.Query(`SELECT DISTINCT session_id FROM transcript_events ORDER BY 1`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		sids = append(sids, s)
	}
	rows.Close()
	if len(sids) == 0 {
		return "nothing"
	}
	sid := sids[r.IntN(len(sids))]
	exec := func(q string, a ...any) {
		if _, err := db.Exec(q, a...); err != nil {
			t.Fatal(err)
		}
	}
	// A change to rows already there, as OpenClaw makes it: with the
	// session's transcript generation rotated in the same transaction
	// (what it, and the index, take as the mark of such a change).
	rotated := `INSERT INTO transcript_rewrite_watermarks (session_id, generation, updated_at) VALUES (?, lower(hex(randomblob(16))), 1795255200000)
		ON CONFLICT (session_id) DO UPDATE SET generation = excluded.generation, updated_at = excluded.updated_at`
	switch r.IntN(5) {
	case 0, 1, 2:
		exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, (SELECT max(seq) + 1 FROM transcript_events WHERE session_id = ?), ?, 1795255200000)`,
			sid, sid, string(diffLine(r, id, step)))
		return "event appended to " + sid
	case 3:
		inTx(t, db, rotated, sid, `UPDATE transcript_events SET event_json = ? WHERE session_id = ? AND seq = (SELECT max(seq) FROM transcript_events WHERE session_id = ?)`,
			string(diffLine(r, id, step)), sid, sid)
		return "event rewritten in " + sid
	default:
		inTx(t, db, rotated, sid, `DELETE FROM transcript_events WHERE session_id = ? AND seq > 3`, sid)
		return "events deleted in " + sid
	}
}

// inTx runs q with args, then rotated with sid, in one transaction.
func inTx(t *testing.T, db *sql.DB, rotated, sid, q string, args ...any) {
	t.Helper()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(q, args...); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(rotated, sid); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// The index answers every query exactly as the scan does ($SESSIONS_NO_INDEX):
// the same document and warnings, on both eras' states, with random
// appends, rewrites, resets and deletes between random queries.
func TestSearchIndexDifferential(t *testing.T) {
	for _, fixture := range []string{"state-2026.1.30", "state-2026.9.6"} {
		for _, as := range []string{"", "agent:main:main"} {
			t.Run(fixture+"/as="+as, func(t *testing.T) {
				cache := t.TempDir()
				t.Setenv("XDG_CACHE_HOME", cache)
				// SEARCH_DIFF_SEED runs other states and queries
				seed := uint64(len(fixture) + len(as))
				if v, err := strconv.ParseUint(os.Getenv("SEARCH_DIFF_SEED"), 10, 64); err == nil {
					seed += v
				}
				r := rand.New(rand.NewPCG(seed, 36))
				var logs bytes.Buffer
				o, dir := fixtureOps(t, fixture, nil, Config{As: as})
				search := func(q SearchQuery, noIndex bool) string {
					t.Helper()
					logs.Reset()
					c := o.cfg
					c.Log = log.New(&logs)
					if noIndex { // $SESSIONS_NO_INDEX: the scan, OpenClaw's own index as ever
						c.Getenv = func(k string) string {
							if k == NoIndexEnv {
								return "1"
							}
							return o.cfg.Getenv(k)
						}
					}
					res, err := New(c).Search(context.Background(), q)
					if err != nil {
						return "error: " + err.Error()
					}
					res.Fill()
					doc, _ := json.Marshal(res)
					return string(doc) + "\n" + logs.String()
				}
				var history []string
				for step := range 40 {
					what := "nothing"
					if step > 0 && r.IntN(2) == 0 {
						what = mutate(t, r, dir, step)
						history = append(history, fmt.Sprintf("%d: %s", step, what))
					}
					for range 3 {
						q := diffQuery(r)
						q.NoIndex = r.IntN(8) == 0 // --no-index: the scan either way
						want := search(q, true)
						if got := search(q, false); got != want {
							t.Fatalf("step %d (changes: %s), %+v:\nindexed %s\nscan    %s", step, strings.Join(history, "; "), q, got, want)
						}
					}
				}
				if m, _ := filepath.Glob(filepath.Join(cache, "sessions", "index", "*", "*")); len(m) == 0 {
					t.Fatal("no index was built: the indexed path was not taken")
				} else if as != "" && !slices.ContainsFunc(m, func(p string) bool { return strings.Contains(filepath.Base(p), "masked-") }) {
					t.Fatalf("an agent's search built no masked index: %v", m)
				}
			})
		}
	}
}

// A damaged index (every file of it truncated or overwritten) is never
// read: the search rebuilds it or scans, and answers as the scan does,
// never with an error.
func TestSearchIndexCorrupt(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	o, _ := fixtureOps(t, "state-2026.1.30", nil, Config{})
	q := SearchQuery{Pattern: SearchPattern{Pattern: "hello", IgnoreCase: true}, AllAgents: true, Context: 1}
	doc := func(env string) string {
		t.Helper()
		c := o.cfg
		c.Getenv = func(k string) string {
			if k == NoIndexEnv {
				return env
			}
			return o.cfg.Getenv(k)
		}
		res, err := New(c).Search(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		res.Fill()
		b, _ := json.Marshal(res)
		return string(b)
	}
	want := doc("1")
	if got := doc(""); got != want {
		t.Fatalf("indexed %s\nscan    %s", got, want)
	}
	for i, damage := range []func(string) error{
		func(p string) error { return os.Truncate(p, 7) },
		func(p string) error { return os.WriteFile(p, []byte("not an index"), 0o600) },
	} {
		files, _ := filepath.Glob(filepath.Join(cache, "sessions", "index", "*", "*", "*"))
		if len(files) == 0 {
			t.Fatal("no index files")
		}
		for _, f := range files {
			if err := damage(f); err != nil {
				t.Fatal(err)
			}
		}
		if i == 1 {
			hostread.CloseIndexes() // a new process meets the damaged files
		}
		if got := doc(""); got != want {
			t.Fatalf("damage %d: indexed %s\nscan    %s", i, got, want)
		}
	}
}
