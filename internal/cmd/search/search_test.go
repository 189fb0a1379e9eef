package search_test

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/klauspost/compress/zstd"
	_ "modernc.org/sqlite"

	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/testutil"
)

// doc is the JSON document of `sessions search`.
type doc struct {
	Count      int   `json:"count"`
	TotalCount int   `json:"totalCount"`
	HasMore    bool  `json:"hasMore"`
	Hits       []hit `json:"hits"`
}

type hit struct {
	Key       string `json:"key"`
	AgentID   string `json:"agentId"`
	SessionID string `json:"sessionId"`
	ID        string `json:"id"`
	Role      string `json:"role"`
	Timestamp int64  `json:"timestamp"`
	Snippet   string `json:"snippet"`
	Match     string `json:"match"`
	Source    string `json:"source"`
	Archived  string `json:"archived"`
}

func runSearch(t *testing.T, state string, args ...string) (doc, string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(string) string { return "" }, Home: filepath.Dir(state)},
		Flags:  &cmdutil.GlobalFlags{},
		Now:    time.Now,
		Getenv: func(string) string { return "" },
	}
	argv := append([]string{"--state-dir", state, "search", "--json", "--limit", "all"}, args...)
	if code := cli.Run(f, argv); code != 0 {
		t.Fatalf("sessions %v: exit %d\n%s", argv, code, errOut)
	}
	var d doc
	if err := json.Unmarshal(out.Bytes(), &d); err != nil {
		t.Fatalf("sessions %v: %v\n%s", argv, err, out)
	}
	if d.Count != len(d.Hits) || d.TotalCount != d.Count || d.HasMore {
		t.Fatalf("sessions %v: count %d, totalCount %d, hasMore %v, %d hits", argv, d.Count, d.TotalCount, d.HasMore, len(d.Hits))
	}
	return d, errOut.String()
}

// got is the hits as "sessionId id role timestamp" lines, sorted.
func (d doc) got() []string {
	var out []string
	for _, h := range d.Hits {
		out = append(out, fmt.Sprintf("%s %s %s %d", h.SessionID, h.ID, h.Role, h.Timestamp))
	}
	slices.Sort(out)
	return out
}

// refMatch is the reference's idea of a query.
type refMatch struct {
	lit   string
	fold  bool
	re    *regexp.Regexp
	tools bool
	role  string
}

func (q refMatch) match(text string) bool {
	switch {
	case q.re != nil:
		return q.re.MatchString(text)
	case q.fold:
		return strings.Contains(strings.ToLower(text), strings.ToLower(q.lit))
	}
	return strings.Contains(text, q.lit)
}

// refEvent is one transcript line, parsed the plain way.
type refEvent struct {
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Message   *struct {
		Role      string          `json:"role"`
		Content   json.RawMessage `json:"content"`
		Text      *string         `json:"text"`
		Timestamp *float64        `json:"timestamp"`
	} `json:"message"`
}

// refHit returns the reference hit of one complete line, "" when none.
func refHit(sessionID string, line []byte, q refMatch) string {
	if !utf8.Valid(line) {
		return ""
	}
	var ev refEvent
	if json.Unmarshal(line, &ev) != nil || ev.Message == nil {
		return ""
	}
	role := ev.Message.Role
	switch {
	case role == "toolResult" && q.tools:
		role = "tool"
	case role != "user" && role != "assistant":
		return ""
	}
	if q.role != "" && role != q.role {
		return ""
	}
	var parts []string
	var s string
	if json.Unmarshal(ev.Message.Content, &s) == nil {
		parts = append(parts, s)
	} else if ev.Message.Text != nil {
		parts = append(parts, *ev.Message.Text)
	}
	var blocks []struct {
		Type      string          `json:"type"`
		Text      *string         `json:"text"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if json.Unmarshal(ev.Message.Content, &blocks) == nil {
		for _, b := range blocks {
			switch {
			case b.Type == "text" && b.Text != nil && ev.Message.Text == nil:
				parts = append(parts, *b.Text)
			case b.Type == "toolCall" && q.tools && role == "assistant":
				parts = append(parts, strings.TrimSpace(b.Name+"\n"+string(b.Arguments)))
			}
		}
	}
	if !q.match(strings.TrimSpace(strings.Join(parts, "\n"))) {
		return ""
	}
	var ts int64
	if t, err := time.Parse(time.RFC3339Nano, ev.Timestamp); err == nil {
		ts = t.UnixMilli()
	} else if ev.Message.Timestamp != nil {
		ts = int64(*ev.Message.Timestamp)
	}
	return fmt.Sprintf("%s %s %s %d", sessionID, ev.ID, role, ts)
}

// refFiles scans every transcript of every agent's sessions.json (and, with
// archived, the .deleted/.reset files) the straightforward way: the whole
// file read, split into lines, every line parsed.
func refFiles(t *testing.T, state string, q refMatch, archived bool) []string {
	t.Helper()
	var out []string
	stores, _ := filepath.Glob(filepath.Join(state, "agents", "*", "sessions", "sessions.json"))
	for _, sp := range stores {
		raw, err := os.ReadFile(sp)
		if err != nil {
			t.Fatal(err)
		}
		var entries map[string]struct {
			SessionID string `json:"sessionId"`
		}
		if err := json.Unmarshal(raw, &entries); err != nil {
			t.Fatal(err)
		}
		ids := map[string]bool{}
		for _, e := range entries {
			ids[e.SessionID] = true
		}
		files, _ := filepath.Glob(filepath.Join(filepath.Dir(sp), "*.jsonl*"))
		for _, f := range files {
			base := filepath.Base(f)
			id, rest, _ := strings.Cut(base, ".jsonl")
			if rest != "" && !(archived && (strings.HasPrefix(rest, ".deleted.") || strings.HasPrefix(rest, ".reset."))) {
				continue
			}
			if rest == "" && !ids[id] {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.Split(data, []byte("\n"))
			for _, line := range lines {
				if h := refHit(id, line, q); h != "" {
					out = append(out, h)
				}
			}
		}
	}
	slices.Sort(out)
	return out
}

const needle = "zebra42"

// extra lines appended to the main session: tool results, images,
// thinking blocks, an invalid UTF-8 line and a torn last line, each with
// the needle somewhere.
var extra = []string{
	`{"type":"message","id":"x1","parentId":null,"timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"user","content":[{"type":"image","data":"` + needle + `AAAA","mimeType":"image/png"},{"type":"text","text":"look at Zebra42 here"}],"timestamp":1}}`,
	`{"type":"message","id":"x2","parentId":"x1","timestamp":"2026-11-22T10:00:01.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"` + needle + ` only in thinking"},{"type":"text","text":"nothing to see"}],"timestamp":2}}`,
	`{"type":"message","id":"x3","parentId":"x2","timestamp":"2026-11-22T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"running it"},{"type":"toolCall","id":"c9","name":"exec","arguments":{"command":"echo ` + needle + `"}}],"timestamp":3}}`,
	`{"type":"message","id":"x4","parentId":"x3","timestamp":"2026-11-22T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c9","toolName":"exec","content":[{"type":"text","text":"` + needle + `\n"}],"timestamp":4}}`,
	`{"type":"message","id":"x5","parentId":"x4","timestamp":"2026-11-22T10:00:04.000Z","message":{"role":"assistant","content":"a \u007aebra42 written escaped, and \"quoted\"","timestamp":5}}`,
	"{\"type\":\"message\",\"id\":\"x6\",\"timestamp\":\"2026-11-22T10:00:05.000Z\",\"message\":{\"role\":\"user\",\"content\":\"bad \xff " + needle + "\"}}",
}

const torn = `{"type":"message","id":"x7","timestamp":"2026-11-22T10:00:06.000Z","message":{"role":"user","content":"torn ` + needle

func jsonState(t *testing.T) string {
	t.Helper()
	state := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(testutil.Fixture(t), state); err != nil {
		t.Fatal(err)
	}
	sess := filepath.Join(state, "agents", "main", "sessions")
	p := filepath.Join(sess, "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	fh, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprint(fh, strings.Join(extra, "\n")+"\n"+torn)
	fh.Close()
	arch := `{"type":"session","version":3,"id":"dead0000-0000-4000-8000-000000000001","timestamp":"2026-11-20T00:00:00.000Z"}
{"type":"message","id":"d1","timestamp":"2026-11-20T00:00:01.000Z","message":{"role":"user","content":"archived ` + needle + `"}}
`
	if err := os.WriteFile(filepath.Join(sess, "dead0000-0000-4000-8000-000000000001.jsonl.deleted.2026-11-20T00-00-02.000Z"), []byte(arch), 0o600); err != nil {
		t.Fatal(err)
	}
	return state
}

// TestReferenceJSONEra: on the 2026.1.30 fixture plus tool results,
// images, thinking blocks, an invalid UTF-8 line and a torn last line,
// search finds exactly the messages a parse-every-line scan finds.
func TestReferenceJSONEra(t *testing.T) {
	state := jsonState(t)
	cases := []struct {
		args     []string
		q        refMatch
		archived bool
	}{
		{[]string{needle}, refMatch{lit: needle}, false},
		{[]string{"-i", "ZEBRA42"}, refMatch{lit: needle, fold: true}, false},
		{[]string{needle, "--include-tools"}, refMatch{lit: needle, tools: true}, false},
		{[]string{needle, "--role", "tool"}, refMatch{lit: needle, tools: true, role: "tool"}, false},
		{[]string{"--regex", `zebra4[0-9]`}, refMatch{re: regexp.MustCompile(`zebra4[0-9]`)}, false},
		{[]string{"--regex", `(?i)z.bra`, "--include-tools"}, refMatch{re: regexp.MustCompile(`(?i)z.bra`), tools: true}, false},
		{[]string{needle, "--include-archived"}, refMatch{lit: needle}, true},
		{[]string{`"quoted"`}, refMatch{lit: `"quoted"`}, false},
		{[]string{"-i", "mock"}, refMatch{lit: "mock", fold: true}, false},
		{[]string{"the", "--include-tools"}, refMatch{lit: "the", tools: true}, false},
		{[]string{"e"}, refMatch{lit: "e"}, false},
		{[]string{"--regex", `exec\s+\{"command`, "--include-tools"}, refMatch{re: regexp.MustCompile(`exec\s+\{"command`), tools: true}, false},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			d, stderr := runSearch(t, state, append([]string{"--all-agents"}, c.args...)...)
			want := refFiles(t, state, c.q, c.archived)
			t.Logf("%d hits", len(want))
			if got := d.got(); !slices.Equal(got, want) {
				t.Fatalf("search %v:\ngot  %q\nwant %q", c.args, got, want)
			}
			if len(want) == 0 {
				t.Fatalf("search %v: the reference finds nothing; a useless case", c.args)
			}
			for i := 1; i < len(d.Hits); i++ {
				if d.Hits[i].Timestamp > d.Hits[i-1].Timestamp {
					t.Fatalf("hits not newest first: %d after %d", d.Hits[i].Timestamp, d.Hits[i-1].Timestamp)
				}
			}
			for _, h := range d.Hits {
				if !strings.Contains(h.Snippet, h.Match) || h.Match == "" {
					t.Fatalf("hit %s: match %q not in snippet %q", h.ID, h.Match, h.Snippet)
				}
			}
			if c.q.lit == needle && !c.q.tools && strings.Count(stderr, "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl:") != 1 {
				t.Fatalf("want one warning for the invalid UTF-8 and torn lines, stderr:\n%s", stderr)
			}
		})
	}
}

// refEvents reads every event of a 2026.8+ store with plain SQL (zstd
// decoded here) and parses each.
func refEvents(t *testing.T, dbPath string, q refMatch) []string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+dbPath+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	live := map[string]bool{}
	rows, err := db.Query(`SELECT current_session_id FROM session_nodes WHERE session_key NOT LIKE '%:internal-session-effects:%'`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		live[id] = true
	}
	rows.Close()
	rows, err = db.Query(`SELECT session_id, event_json, event_zstd FROM transcript_events ORDER BY session_id, seq`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		var js, zs []byte
		if err := rows.Scan(&id, &js, &zs); err != nil {
			t.Fatal(err)
		}
		if zs != nil {
			if js, err = dec.DecodeAll(zs, nil); err != nil {
				t.Fatal(err)
			}
		}
		if live[id] {
			if h := refHit(id, js, q); h != "" {
				out = append(out, h)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestReferenceSQLiteEra: on the 2026.9.6 fixture, OpenClaw's FTS index and
// the event scan (--no-index) find the same messages as plain SQL and a
// parse of every event.
func TestReferenceSQLiteEra(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.9.6"), state); err != nil {
		t.Fatal(err)
	}
	dbs, _ := filepath.Glob(filepath.Join(state, "agents", "*", "agent", "openclaw-agent.sqlite"))
	if len(dbs) != 2 {
		t.Fatalf("want 2 agent stores, got %v", dbs)
	}
	cases := []struct {
		args []string
		q    refMatch
	}{
		{[]string{"MOCK"}, refMatch{lit: "MOCK"}},
		{[]string{"-i", "hello"}, refMatch{lit: "hello", fold: true}},
		{[]string{"--regex", `tool \w+ returned`}, refMatch{re: regexp.MustCompile(`tool \w+ returned`)}},
		{[]string{"-i", "agents.md", "--role", "assistant"}, refMatch{lit: "agents.md", fold: true, role: "assistant"}},
		{[]string{"the", "--include-tools"}, refMatch{lit: "the", tools: true}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			var want []string
			for _, p := range dbs {
				want = append(want, refEvents(t, p, c.q)...)
			}
			slices.Sort(want)
			if len(want) == 0 {
				t.Fatalf("the reference finds nothing; a useless case")
			}
			t.Logf("%d hits", len(want))
			viaIndex, _ := runSearch(t, state, append([]string{"--all-agents"}, c.args...)...)
			viaEvents, _ := runSearch(t, state, append([]string{"--all-agents", "--no-index"}, c.args...)...)
			if got := viaIndex.got(); !slices.Equal(got, want) {
				t.Fatalf("default:\ngot  %q\nwant %q", got, want)
			}
			if got := viaEvents.got(); !slices.Equal(got, want) {
				t.Fatalf("--no-index:\ngot  %q\nwant %q", got, want)
			}
			for _, h := range viaEvents.Hits {
				if h.Source != "events" {
					t.Fatalf("--no-index hit from %q", h.Source)
				}
			}
			tools := slices.Contains(c.args, "--include-tools")
			for _, h := range viaIndex.Hits {
				if want := map[bool]string{false: "index", true: "events"}[tools]; h.Source != want {
					t.Fatalf("hit from %q, want %q", h.Source, want)
				}
			}
		})
	}
}

// TestBigLines: a line longer than the read chunk (the buffer grows) is
// found like any other.
func TestBigLines(t *testing.T) {
	state := jsonState(t)
	p := filepath.Join(state, "agents", "main", "sessions", "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("filler ", 400_000) // ~2.8 MB, beyond the 1 MiB chunk
	line := `{"type":"message","id":"big1","timestamp":"2026-11-22T11:00:00.000Z","message":{"role":"user","content":"` + big + needle + ` at the end"}}` + "\n"
	// Before the torn last line, so the file stays torn at its end.
	i := bytes.LastIndexByte(data, '\n') + 1
	out := append(append(append([]byte{}, data[:i]...), line...), data[i:]...)
	if err := os.WriteFile(p, out, 0o600); err != nil {
		t.Fatal(err)
	}
	d, _ := runSearch(t, state, "--all-agents", needle)
	want := refFiles(t, state, refMatch{lit: needle}, false)
	if got := d.got(); !slices.Equal(got, want) || !slices.ContainsFunc(d.Hits, func(h hit) bool {
		return h.ID == "big1"
	}) {
		t.Fatalf("got %q\nwant %q (with big1)", got, want)
	}
}

// TestStaleIndexFallsBack: a session whose index OpenClaw marked for a
// rebuild (here also emptied) is searched through its events, and still
// finds every message.
func TestStaleIndexFallsBack(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.9.6"), state); err != nil {
		t.Fatal(err)
	}
	dbPath := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
	before, _ := runSearch(t, state, "-i", "mock")
	db, err := sql.Open("sqlite", dbPath)
	if err != nil {
		t.Fatal(err)
	}
	const main = "8000a7c0-cc69-4a7f-82ba-219f4a789783"
	for _, q := range []string{
		`UPDATE session_transcript_index_state SET needs_rebuild = 1 WHERE session_id = '` + main + `'`,
		`DELETE FROM session_transcript_fts_rows WHERE session_id = '` + main + `'`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	after, _ := runSearch(t, state, "-i", "mock")
	if !slices.Equal(after.got(), before.got()) {
		t.Fatalf("stale index: got %q, want %q", after.got(), before.got())
	}
	n := 0
	for _, h := range after.Hits {
		if h.SessionID == main {
			n++
			if h.Source != "events" {
				t.Fatalf("hit of the stale session from %q", h.Source)
			}
		}
	}
	if n == 0 {
		t.Fatal("no hit in the stale session")
	}
}

// TestArchives: --include-archived reads 2026.9's archives — kept in the
// store (identity or zstd, verified), published as files (*.zst streamed),
// the same archive never twice — and JSONL-era zstd archives.
func TestArchives(t *testing.T) {
	state := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.9.6"), state); err != nil {
		t.Fatal(err)
	}
	sess := filepath.Join(state, "agents", "main", "sessions")
	if err := os.MkdirAll(sess, 0o700); err != nil {
		t.Fatal(err)
	}
	jsonl := func(id, text string) []byte {
		return []byte(`{"type":"session","version":4,"id":"` + id + `","timestamp":"2026-11-20T00:00:00.000Z"}` + "\n" +
			`{"type":"message","id":"m-` + id[:4] + `","timestamp":"2026-11-20T00:00:01.000Z","message":{"role":"user","content":"` + text + `"}}` + "\n")
	}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	zst := func(b []byte) []byte { return enc.EncodeAll(b, nil) }
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	db, err := sql.Open("sqlite", filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	ins := func(id, key, reason, enc, name string, blob []byte, hash string) {
		if _, err := db.Exec(`INSERT INTO session_transcript_archives (session_id, generation, session_key, reason, encoding, archive_blob, archive_sha256, archive_name, created_at)
			VALUES (?, 'g1', ?, ?, ?, ?, ?, ?, 1795238300000)`, id, key, reason, enc, blob, hash, name); err != nil {
			t.Fatal(err)
		}
	}
	a1 := jsonl("aaaa0000-0000-4000-8000-000000000001", "archived zebra42 identity")
	a2 := zst(jsonl("bbbb0000-0000-4000-8000-000000000002", "archived zebra42 zstd"))
	ins("aaaa0000-0000-4000-8000-000000000001", "agent:main:main", "reset", "identity", "aaaa0000-0000-4000-8000-000000000001.jsonl.reset.2026-11-20T00-00-02.000Z.g1", a1, sum(a1))
	ins("bbbb0000-0000-4000-8000-000000000002", "agent:main:gone", "deleted", "zstd", "bbbb0000-0000-4000-8000-000000000002.jsonl.deleted.2026-11-20T00-00-02.000Z.g1.zst", a2, sum(a2))
	bad := jsonl("cccc0000-0000-4000-8000-000000000003", "archived zebra42 tampered")
	ins("cccc0000-0000-4000-8000-000000000003", "agent:main:main", "reset", "identity", "cccc.jsonl.reset.x", bad, sum([]byte("other")))
	db.Close()
	// The zstd one also published as a file (read once), and a file-only archive.
	if err := os.WriteFile(filepath.Join(sess, "bbbb0000-0000-4000-8000-000000000002.jsonl.deleted.2026-11-20T00-00-02.000Z.g1.zst"), a2, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sess, "dddd0000-0000-4000-8000-000000000004.jsonl.deleted.2026-11-19T00-00-00.000Z.zst"),
		zst(jsonl("dddd0000-0000-4000-8000-000000000004", "archived zebra42 file only")), 0o600); err != nil {
		t.Fatal(err)
	}
	if d, _ := runSearch(t, state, needle); d.Count != 0 {
		t.Fatalf("archives searched without --include-archived: %+v", d.Hits)
	}
	d, stderr := runSearch(t, state, needle, "--include-archived")
	var got []string
	for _, h := range d.Hits {
		got = append(got, h.Key+" "+h.SessionID+" "+h.Snippet)
	}
	want := []string{
		"main aaaa0000-0000-4000-8000-000000000001 archived zebra42 identity",
		"agent:main:gone bbbb0000-0000-4000-8000-000000000002 archived zebra42 zstd",
		" dddd0000-0000-4000-8000-000000000004 archived zebra42 file only",
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if !strings.Contains(stderr, "cccc.jsonl.reset.x") || !strings.Contains(stderr, "failed verification") {
		t.Fatalf("no warning for the tampered archive:\n%s", stderr)
	}
	// --key keeps the archives of that session only.
	d, _ = runSearch(t, state, needle, "--include-archived", "--key", "main")
	if d.Count != 1 || d.Hits[0].SessionID != "aaaa0000-0000-4000-8000-000000000001" {
		t.Fatalf("--key main: %+v", d.Hits)
	}
}
