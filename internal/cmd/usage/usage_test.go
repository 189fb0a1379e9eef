package usage_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
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

// sums are the reference's totals of one group.
type sums struct {
	Messages, Input, Output, CacheRead, CacheWrite, CostMicro int64
}

// reference is an independent count: every line of every transcript parsed
// with encoding/json (no pre-filter, no gjson, no cache), every event of a
// SQLite store read with plain SQL and decoded, each (sessionId, entry id)
// counted once; grouped by agent, model and UTC day.
type reference struct {
	groups map[string]*sums
	seen   map[string]bool
}

func (r *reference) line(agent, sid string, line []byte) {
	if !utf8.Valid(line) {
		return // skipped, as documented
	}
	var e struct {
		ID        string          `json:"id"`
		Timestamp string          `json:"timestamp"`
		Message   json.RawMessage `json:"message"`
	}
	if json.Unmarshal(line, &e) != nil || len(e.Message) == 0 {
		return
	}
	var m struct {
		Role      string   `json:"role"`
		Model     string   `json:"model"`
		Timestamp *float64 `json:"timestamp"`
		Usage     *struct {
			Input, Output, CacheRead, CacheWrite float64
			Cost                                 *struct {
				Total *float64 `json:"total"`
			} `json:"cost"`
		} `json:"usage"`
	}
	if json.Unmarshal(e.Message, &m) != nil || m.Role != "assistant" || m.Usage == nil {
		return
	}
	if e.ID != "" {
		k := sid + "\x00" + e.ID
		if r.seen[k] {
			return
		}
		r.seen[k] = true
	}
	ts := time.UnixMilli(0) // no timestamp at all: the epoch
	if m.Timestamp != nil {
		ts = time.UnixMilli(int64(*m.Timestamp))
	} else if t, err := time.Parse(time.RFC3339Nano, e.Timestamp); err == nil {
		ts = t
	}
	g := agent + " " + m.Model + " " + ts.UTC().Format("2006-01-02")
	s := r.groups[g]
	if s == nil {
		s = &sums{}
		r.groups[g] = s
	}
	s.Messages++
	s.Input += int64(m.Usage.Input)
	s.Output += int64(m.Usage.Output)
	s.CacheRead += int64(m.Usage.CacheRead)
	s.CacheWrite += int64(m.Usage.CacheWrite)
	if m.Usage.Cost != nil && m.Usage.Cost.Total != nil {
		s.CostMicro += int64(math.Round(*m.Usage.Cost.Total * 1e6))
	}
}

func (r *reference) file(t *testing.T, agent, sid, path string) {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		r.line(agent, sid, sc.Bytes())
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

func (r *reference) sqlite(t *testing.T, agent, path string) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT session_id, event_json, event_zstd FROM transcript_events ORDER BY session_id, seq")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	zrows := 0
	for rows.Next() {
		var sid string
		var js, zs []byte
		if err := rows.Scan(&sid, &js, &zs); err != nil {
			t.Fatal(err)
		}
		if js == nil {
			if js, err = dec.DecodeAll(zs, nil); err != nil {
				t.Fatal(err)
			}
			zrows++
		}
		r.line(agent, sid, js)
	}
	t.Logf("%s: %d zstd rows decoded", path, zrows)
}

// build computes the reference over a state dir.
func build(t *testing.T, state string) map[string]sums {
	r := &reference{groups: map[string]*sums{}, seen: map[string]bool{}}
	agents, _ := filepath.Glob(filepath.Join(state, "agents", "*"))
	for _, a := range agents {
		agent := filepath.Base(a)
		if db := filepath.Join(a, "agent", "openclaw-agent.sqlite"); exists(db) {
			r.sqlite(t, agent, db)
		} else {
			files, _ := filepath.Glob(filepath.Join(a, "sessions", "*.jsonl"))
			for _, f := range files {
				r.file(t, agent, strings.TrimSuffix(filepath.Base(f), ".jsonl"), f)
			}
		}
		archives, _ := filepath.Glob(filepath.Join(a, "sessions", "*.jsonl.*"))
		sort.Strings(archives)
		for _, f := range archives {
			base := filepath.Base(f)
			r.file(t, agent, base[:strings.Index(base, ".jsonl.")], f)
		}
	}
	out := map[string]sums{}
	for k, v := range r.groups {
		out[k] = *v
	}
	return out
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// run runs `sessions usage` and returns its rows by agent, model and day.
func run(t *testing.T, state string, extra ...string) (map[string]sums, string) {
	t.Helper()
	ios, _, out, errOut := iostreams.Test()
	env := map[string]string{"XDG_CACHE_HOME": t.TempDir()}
	t.Setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
	f := &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(k string) string { return env[k] }, Home: "/nonexistent-home"},
		Flags:  &cmdutil.GlobalFlags{},
		Now:    time.Now,
		Getenv: func(k string) string { return env[k] },
	}
	args := append([]string{"--state-dir", state, "usage", "--all-agents", "--include-archived", "--by", "agent,model,day", "--json"}, extra...)
	if code := cli.Run(f, args); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var doc struct {
		Rows []struct {
			Agent, Model, Day                              string
			Messages, InputTokens, OutputTokens            int64
			CacheReadTokens, CacheWriteTokens, TotalTokens int64
			CostMicroUsd                                   int64
		}
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	got := map[string]sums{}
	for _, r := range doc.Rows {
		got[r.Agent+" "+r.Model+" "+r.Day] = sums{r.Messages, r.InputTokens, r.OutputTokens, r.CacheReadTokens, r.CacheWriteTokens, r.CostMicroUsd}
	}
	return got, errOut.String()
}

// hardLines are appended to a fixture transcript: thinking blocks, a tool
// call and its big result with an image, a cost-less message, invalid
// UTF-8, and (last) a torn line.
func hardLines() string {
	var b strings.Builder
	b.WriteString(`{"type":"message","id":"h1","parentId":null,"timestamp":"2026-11-22T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"hmm \"usage\"","thinkingSignature":"sig"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x"}}],"provider":"anthropic","model":"claude-x","usage":{"input":100,"output":20,"cacheRead":300,"cacheWrite":40,"totalTokens":460,"cost":{"total":0.00084}},"stopReason":"toolUse","timestamp":1795255202000}}` + "\n")
	b.WriteString(`{"type":"message","id":"h2","parentId":"h1","timestamp":"2026-11-22T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"` + strings.Repeat("out ", 300000) + `"},{"type":"image","data":"` + strings.Repeat("QUJD", 100000) + `","mimeType":"image/png"}],"isError":false,"timestamp":1795255203000}}` + "\n")
	b.WriteString(`{"type":"message","id":"h3","parentId":"h2","timestamp":"2026-11-22T10:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("long ", 100000) + `"}],"provider":"openai","model":"gpt-x","usage":{"input":7,"output":8},"stopReason":"stop","timestamp":1795255204000}}` + "\n")
	b.WriteString("{\"type\":\"message\",\"id\":\"h4\",\"message\":{\"role\":\"assistant\",\"model\":\"bad\",\"usage\":{\"input\":1},\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}]}}\n")
	b.WriteString(`{"type":"message","id":"h5","message":{"role":"assistant","usage":{"input":9`)
	return b.String()
}

func TestUsageEqualsReference(t *testing.T) {
	for _, fx := range []string{"state-2026.1.30", "state-2026.9.6"} {
		t.Run(fx, func(t *testing.T) {
			state := filepath.Join(t.TempDir(), "state")
			if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", fx), state); err != nil {
				t.Fatal(err)
			}
			if fx == "state-2026.1.30" {
				dir := filepath.Join(state, "agents", "main", "sessions")
				main := filepath.Join(dir, "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
				orig, _ := os.ReadFile(main)
				// a .reset copy of a live transcript: nothing counted twice
				os.WriteFile(main+".reset.2026-11-21T05-00-00.000Z", orig, 0o644)
				appendTo(t, filepath.Join(dir, "ae601eb7-ceae-4d11-b896-102fd9dddff6.jsonl"), hardLines())
				// a deleted transcript of its own
				os.WriteFile(filepath.Join(dir, "99999999-8888-4777-8666-555555555555.jsonl.deleted.2026-11-22T00-00-00.000Z"),
					[]byte(strings.ReplaceAll(hardLines(), `"id":"h`, `"id":"d`)+"}}}\n"), 0o644)
			} else {
				// the 2026.8+ store's sessions dir holds published archives
				dir := filepath.Join(state, "agents", "main", "sessions")
				os.MkdirAll(dir, 0o755)
				os.WriteFile(filepath.Join(dir, "77777777-8888-4777-8666-555555555555.jsonl.reset.2026-11-22T00-00-00.000Z"), []byte(hardLines()), 0o644)
			}
			var archived string
			if fx == "state-2026.9.6" {
				// a reset archive kept in the database (zstd), of a session no longer live
				archived = strings.ReplaceAll(hardLines(), `"id":"h`, `"id":"z`) + "}}}\n"
				insertArchive(t, filepath.Join(state, "agents", "ops", "agent", "openclaw-agent.sqlite"), "66666666-8888-4777-8666-555555555555", archived)
			}
			want := build(t, state)
			if archived != "" {
				r := &reference{groups: map[string]*sums{}, seen: map[string]bool{}}
				for _, l := range strings.Split(archived, "\n") {
					r.line("ops", "66666666-8888-4777-8666-555555555555", []byte(l))
				}
				for k, v := range r.groups {
					w := want[k]
					want[k] = sums{w.Messages + v.Messages, w.Input + v.Input, w.Output + v.Output, w.CacheRead + v.CacheRead, w.CacheWrite + v.CacheWrite, w.CostMicro + v.CostMicro}
				}
			}
			got, stderr := run(t, state)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("usage differs from the reference:\n got %v\nwant %v", got, want)
			}
			if len(want) < 3 {
				t.Fatalf("reference too small to prove anything: %v", want)
			}
			if strings.Count(stderr, "skipped") != 1 {
				t.Errorf("want one warning about skipped lines, got:\n%s", stderr)
			}
			// The same from the cache, and with the cache disabled.
			if again, _ := run(t, state, "--no-cache"); !reflect.DeepEqual(again, want) {
				t.Fatalf("--no-cache differs:\n got %v\nwant %v", again, want)
			}
		})
	}
}

func appendTo(t *testing.T, path, s string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := fmt.Fprint(f, s); err != nil {
		t.Fatal(err)
	}
}

// insertArchive adds a zstd reset archive of sid to session_transcript_archives
// (a write to a copy, as OpenClaw 2026.9.6 makes one).
func insertArchive(t *testing.T, path, sid, jsonl string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	enc, _ := zstd.NewWriter(nil)
	blob := enc.EncodeAll([]byte(jsonl), nil)
	enc.Close()
	sum := sha256.Sum256(blob)
	_, err = db.Exec(`INSERT INTO session_transcript_archives (session_id, generation, session_key, reason, encoding, archive_blob, archive_sha256, archive_name, created_at)
		VALUES (?, 'g1', 'agent:ops:cron:job-9', 'reset', 'zstd', ?, ?, ?, 1795255200000)`, sid, blob, hex.EncodeToString(sum[:]), sid+".jsonl.reset.x.zst")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		t.Fatal(err)
	}
}

func TestUsageTTYTable(t *testing.T) {
	ios, _, out, errOut := iostreams.Test()
	ios.SetStdoutTTY(true)
	ios.SetTerminalWidth(150)
	env := map[string]string{"XDG_CACHE_HOME": t.TempDir()}
	t.Setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
	f := &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(k string) string { return env[k] }, Home: "/nonexistent-home"},
		Flags:  &cmdutil.GlobalFlags{},
		Now:    time.Now,
		Getenv: func(k string) string { return env[k] },
	}
	if code := cli.Run(f, []string{"--state-dir", testutil.Fixture(t), "usage", "--all-agents", "--by", "agent,model"}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 6 {
		t.Fatalf("want header + 4 rows + totals, got:\n%s", out)
	}
	for _, h := range []string{"AGENT", "MODEL", "MESSAGES", "INPUT", "CACHE READ", "COST (USD)"} {
		if !strings.Contains(lines[0], h) {
			t.Errorf("header %q lacks %s", lines[0], h)
		}
	}
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "TOTAL") || !strings.Contains(last, "158,665") || !strings.Contains(last, "$0.00") {
		t.Errorf("totals row %q", last)
	}
}

func TestUsageFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{[]string{"usage", "--by", "day,nope"}, 2},
		{[]string{"usage", "--since", "7x"}, 2},
		{[]string{"usage", "--agent", "main", "--all-agents"}, 2},
		{[]string{"usage", "--by", "week", "--by", "month", "--since", "2w", "--until", "2026-12-01"}, 0},
	} {
		ios, _, _, errOut := iostreams.Test()
		env := map[string]string{"XDG_CACHE_HOME": t.TempDir()}
		t.Setenv("XDG_CACHE_HOME", env["XDG_CACHE_HOME"])
		f := &cmdutil.Factory{IO: ios, Env: config.Env{Getenv: func(k string) string { return env[k] }, Home: "/nonexistent-home"},
			Flags: &cmdutil.GlobalFlags{}, Now: time.Now, Getenv: func(k string) string { return env[k] }}
		if code := cli.Run(f, append([]string{"--state-dir", testutil.Fixture(t)}, c.args...)); code != c.code {
			t.Errorf("%v: exit %d, want %d (%s)", c.args, code, c.code, errOut)
		}
	}
}
