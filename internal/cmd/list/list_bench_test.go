package list_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/openclaw/sessions/internal/cli"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/tidwall/gjson"
)

const fixtureState = "../../../testdata/state-2026.1.30"

// synthState writes a state dir with the fixture's config and a main agent
// whose store holds n entries cloned from the fixture's real entries, the way
// `openclaw-peer synth-store --with-transcripts` does (no peer needed): fresh
// keys of the same kinds, seeded uuid4 sessionIds, spread-out updatedAt,
// sessionFile next to the store when the source had one, and a copy of the
// source transcript (header id rewritten) for every clone.
func synthState(tb testing.TB, n int) string {
	tb.Helper()
	root := tb.TempDir()
	state := filepath.Join(root, "state")
	dir := filepath.Join(state, "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(fixtureState, "openclaw.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "openclaw.json"), cfg, 0o600); err != nil {
		tb.Fatal(err)
	}
	srcDir := filepath.Join(fixtureState, "agents", "main", "sessions")
	data, err := os.ReadFile(filepath.Join(srcDir, "sessions.json"))
	if err != nil {
		tb.Fatal(err)
	}
	type src struct {
		key, raw, sid string
		transcript    []string // lines; nil when the source has none
	}
	var srcs []src
	var now int64
	gjson.ParseBytes(data).ForEach(func(k, v gjson.Result) bool {
		sid := v.Get("sessionId").String()
		if !v.IsObject() || sid == "" {
			return true
		}
		s := src{key: k.String(), raw: v.Raw, sid: sid}
		if b, err := os.ReadFile(filepath.Join(srcDir, sid+".jsonl")); err == nil {
			s.transcript = strings.Split(strings.TrimRight(string(b), "\n"), "\n")
		}
		srcs = append(srcs, s)
		if u := v.Get("updatedAt").Int(); u > now {
			now = u
		}
		return true
	})
	rnd := rand.New(rand.NewPCG(1, 2))
	newID := func() string {
		var b [16]byte
		for i := range b {
			b[i] = byte(rnd.UintN(256))
		}
		b[6] = b[6]&0x0f | 0x40
		b[8] = b[8]&0x3f | 0x80
		return uuid.UUID(b).String()
	}
	uuidRe := regexp.MustCompile(`^[0-9a-f-]{36}$`)
	var buf bytes.Buffer
	buf.WriteString("{")
	for i := 0; i < n; i++ {
		s := srcs[i%len(srcs)]
		sid := newID()
		parts := strings.Split(s.key, ":")
		switch {
		case len(parts) >= 3 && parts[2] == "main":
			parts = append(parts[:2:2], "synthetic", fmt.Sprintf("s%d", i))
		case uuidRe.MatchString(parts[len(parts)-1]):
			parts[len(parts)-1] = newID()
		default:
			parts[len(parts)-1] = fmt.Sprintf("%s-%d", parts[len(parts)-1], i)
		}
		raw := s.raw
		type splice struct {
			at, end int
			with    string
		}
		var sp []splice
		set := func(field, val string) {
			if r := gjson.Get(raw, field); r.Exists() && r.Index > 0 {
				sp = append(sp, splice{r.Index, r.Index + len(r.Raw), val})
			}
		}
		set("sessionId", strconv.Quote(sid))
		set("updatedAt", strconv.FormatInt(now-int64(i)*37_000, 10))
		set("sessionFile", strconv.Quote(filepath.Join(dir, sid+".jsonl")))
		sort.Slice(sp, func(a, b int) bool { return sp[a].at > sp[b].at })
		for _, x := range sp {
			raw = raw[:x.at] + x.with + raw[x.end:]
		}
		if i > 0 {
			buf.WriteString(",")
		}
		fmt.Fprintf(&buf, "\n  %s: %s", strconv.Quote(strings.Join(parts, ":")), raw)
		if s.transcript != nil {
			lines := append([]string(nil), s.transcript...)
			lines[0] = strings.Replace(lines[0], `"id":"`+s.sid+`"`, `"id":"`+sid+`"`, 1)
			if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
				tb.Fatal(err)
			}
		}
	}
	buf.WriteString("\n}")
	if err := os.WriteFile(filepath.Join(dir, "sessions.json"), buf.Bytes(), 0o600); err != nil {
		tb.Fatal(err)
	}
	return state
}

// runList runs `sessions --state-dir STATE list ARGS...` in-process, as
// cmd/sessions does, and returns stdout.
func runList(tb testing.TB, state string, args ...string) *bytes.Buffer {
	ios, _, out, errOut := iostreams.Test()
	f := &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(string) string { return "" }, Home: filepath.Dir(state)},
		Flags:  &cmdutil.GlobalFlags{},
		Now:    time.Now,
		Getenv: func(string) string { return "" },
	}
	argv := append([]string{"--state-dir", state, "list"}, args...)
	if code := cli.Run(f, argv); code != 0 {
		tb.Fatalf("sessions %v: exit %d\n%s", argv, code, errOut)
	}
	return out
}

func benchList(b *testing.B, args ...string) {
	state := synthState(b, 10_000)
	out := runList(b, state, args...) // warm the page cache; check it works
	if !bytes.HasPrefix(out.Bytes(), []byte("{\n  \"count\": ")) {
		b.Fatalf("unexpected output: %.80s", out)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		runList(b, state, args...)
	}
}

// BenchmarkListJSON10k: `sessions list --json` (default --limit 200) end to
// end in-process on a 10,000-entry store: config, store, rows, sort,
// transcript paths, JSON.
func BenchmarkListJSON10k(b *testing.B) { benchList(b, "--json") }

// BenchmarkListJSON10kAll: the same with --limit 10000 (every row printed).
func BenchmarkListJSON10kAll(b *testing.B) { benchList(b, "--json", "--limit", "10000") }
