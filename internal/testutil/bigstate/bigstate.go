// Package bigstate generates a big OpenClaw state for the search benchmarks
// (docs/PERFORMANCE.md, "Search index"): both storage eras — JSONL
// transcripts of 2026.1–2026.7 and the sessions of a 2026.9.6 SQLite store
// (the fixture's main store with events added) — about 10,000 sessions of
// user, assistant and tool messages in English with some Cyrillic and CJK,
// a rare word and a common one planted at known rates. Output is
// deterministic (seeded) and reused between runs when already there. Only
// tests import it.
package bigstate

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/openclaw/sessions/internal/testutil"
)

// Words planted: Rare in about one message in 40,000 (at least 1), Common
// in about one in 8 (at least 10,000 in a corpus of 80,000 messages or more).
const (
	Rare   = "zqxrare17"
	Common = "deploy"
)

// Spec is what to generate.
type Spec struct {
	Sessions int   // about half in each era
	Bytes    int64 // of transcript text, about
	Seed     uint64
}

// FromEnv is the spec SESSIONS_BENCH_SESSIONS and SESSIONS_BENCH_BYTES
// (with a k, M or G suffix) ask for; def when unset.
func FromEnv(def Spec) Spec {
	if v, err := strconv.Atoi(os.Getenv("SESSIONS_BENCH_SESSIONS")); err == nil && v > 0 {
		def.Sessions = v
	}
	if v := os.Getenv("SESSIONS_BENCH_BYTES"); v != "" {
		mul := int64(1)
		switch v[len(v)-1] {
		case 'k', 'K':
			mul, v = 1<<10, v[:len(v)-1]
		case 'm', 'M':
			mul, v = 1<<20, v[:len(v)-1]
		case 'g', 'G':
			mul, v = 1<<30, v[:len(v)-1]
		}
		if f, err := strconv.ParseFloat(v, 64); err == nil && f > 0 {
			def.Bytes = int64(f * float64(mul))
		}
	}
	return def
}

// State is a generated state.
type State struct {
	Dir      string   // the state dir
	Files    []string // the JSONL transcripts
	DB       string   // the main agent's SQLite store
	Sessions []string // the store's generated sessions (with events)
	Bytes    int64    // transcript bytes written (JSONL lines and event JSON)
}

var (
	latin = strings.Fields(`the build failed again after the last merge please check logs and run tests before release
		service restart config file path timeout error warning retry cache token user agent session message reply
		report summary budget meeting schedule review docs branch commit fix issue pull request`)
	cyrillic = strings.Fields(`сервер перезапуск ошибка журнал проверка сборка выпуск настройка`)
	cjk      = []string{"再起動", "サーバー", "ログ", "設定", "エラー", "部署", "服务器", "重启", "日志", "检查"}
)

func sentence(r *rand.Rand, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		switch k := r.IntN(100); {
		case k < 4:
			b.WriteString(cyrillic[r.IntN(len(cyrillic))])
		case k < 8:
			b.WriteString(cjk[r.IntN(len(cjk))])
		default:
			b.WriteString(latin[r.IntN(len(latin))])
		}
	}
	return b.String()
}

// line is one message event; n counts messages.
func line(r *rand.Rand, n int, sid string) string {
	text := sentence(r, 5+r.IntN(40))
	if r.IntN(8) == 0 {
		text += " " + Common
	}
	if r.IntN(40000) == 0 || n == 0 {
		text += " " + Rare
	}
	q, _ := jsonQuote(text)
	ts := fmt.Sprintf("2026-%02d-%02dT%02d:%02d:00.000Z", 1+r.IntN(11), 1+r.IntN(28), r.IntN(24), r.IntN(60))
	id := fmt.Sprintf("%s-%d", sid[:8], n)
	switch r.IntN(5) {
	case 0:
		out, _ := jsonQuote(strings.Repeat(sentence(r, 12)+"\n", 1+r.IntN(12)))
		return fmt.Sprintf(`{"type":"message","id":%q,"timestamp":%q,"message":{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":%s}]}}`, id, ts, out)
	case 1, 2:
		return fmt.Sprintf(`{"type":"message","id":%q,"timestamp":%q,"message":{"role":"assistant","content":[{"type":"text","text":%s},{"type":"toolCall","id":"c1","name":"exec","arguments":{"command":"make build"}}]}}`, id, ts, q)
	}
	return fmt.Sprintf(`{"type":"message","id":%q,"timestamp":%q,"message":{"role":"user","content":%s}}`, id, ts, q)
}

func jsonQuote(s string) (string, error) {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range s {
		switch c {
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String(), nil
}

// Generate writes the state of spec under dir (kept: a second call with
// the same spec and dir reads what is there).
func Generate(tb testing.TB, dir string, spec Spec) *State {
	tb.Helper()
	mark := filepath.Join(dir, fmt.Sprintf(".bigstate-v1-%d-%d-%d", spec.Sessions, spec.Bytes, spec.Seed))
	st := &State{Dir: dir, DB: filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite")}
	jdir := filepath.Join(dir, "agents", "json", "sessions")
	sid := func(i int) string { return fmt.Sprintf("%08x-0000-4000-8000-%012x", i, spec.Seed) }
	half := spec.Sessions / 2
	per := spec.Bytes / int64(max(spec.Sessions, 1))
	if _, err := os.Stat(mark); err == nil {
		for i := range half {
			st.Files = append(st.Files, filepath.Join(jdir, sid(i)+".jsonl"))
		}
		for i := half; i < spec.Sessions; i++ {
			st.Sessions = append(st.Sessions, sid(i))
		}
		b, _ := os.ReadFile(mark)
		st.Bytes, _ = strconv.ParseInt(string(b), 10, 64)
		return st
	}
	os.RemoveAll(dir)
	if err := os.MkdirAll(jdir, 0o700); err != nil {
		tb.Fatal(err)
	}
	fix := filepath.Join(testutil.Root(tb), "testdata", "state-2026.9.6")
	if err := testutil.CopyTree(fix, dir); err != nil {
		tb.Fatal(err)
	}
	r := rand.New(rand.NewPCG(spec.Seed, 17))
	n := 0
	for i := range half {
		var b strings.Builder
		b.WriteString(fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}`, sid(i)) + "\n")
		for int64(b.Len()) < per {
			b.WriteString(line(r, n, sid(i)) + "\n")
			n++
		}
		p := filepath.Join(jdir, sid(i)+".jsonl")
		if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
			tb.Fatal(err)
		}
		st.Files = append(st.Files, p)
		st.Bytes += int64(b.Len())
	}
	db, err := sql.Open("sqlite", "file:"+st.DB+"?_pragma=journal_mode(wal)")
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		tb.Fatal(err)
	}
	ins, err := tx.Prepare(`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES (?, ?, ?, 1795255200000)`)
	if err != nil {
		tb.Fatal(err)
	}
	for i := half; i < spec.Sessions; i++ {
		s := sid(i)
		var size int64
		for seq := 0; size < per; seq++ {
			ev := line(r, n, s)
			n++
			if _, err := ins.Exec(s, seq, ev); err != nil {
				tb.Fatal(err)
			}
			size += int64(len(ev)) + 1
		}
		st.Sessions = append(st.Sessions, s)
		st.Bytes += size
	}
	if err := tx.Commit(); err != nil {
		tb.Fatal(err)
	}
	if _, err := db.Exec(`PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(mark, []byte(strconv.FormatInt(st.Bytes, 10)), 0o600); err != nil {
		tb.Fatal(err)
	}
	return st
}
