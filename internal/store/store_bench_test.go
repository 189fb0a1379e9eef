package store_test

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

	"github.com/google/uuid"
	"github.com/openclaw/sessions/internal/store"
	"github.com/tidwall/gjson"
)

// fixtureStore is the real OpenClaw 2026.1.30 store the synthetic ones are
// cloned from.
const fixtureStore = "../../testdata/state-2026.1.30/agents/main/sessions/sessions.json"

// synthStore clones the entries of the fixture store into a sessions.json of
// n entries, the way `openclaw-peer synth-store` does (no peer needed): each
// clone keeps its source entry's bytes and formatting (JSON.stringify(store,
// null, 2)) and gets a fresh key of the same kind, a fresh seeded uuid4
// sessionId, a spread-out updatedAt and, when the source had one, a
// sessionFile next to the new store.
func synthStore(tb testing.TB, n int, out string) {
	tb.Helper()
	data, err := os.ReadFile(fixtureStore)
	if err != nil {
		tb.Fatal(err)
	}
	type src struct {
		key string
		raw string
	}
	var srcs []src
	var now int64
	gjson.ParseBytes(data).ForEach(func(k, v gjson.Result) bool {
		if v.IsObject() && v.Get("sessionId").String() != "" {
			srcs = append(srcs, src{k.String(), v.Raw})
			if u := v.Get("updatedAt").Int(); u > now {
				now = u
			}
		}
		return true
	})
	if len(srcs) == 0 {
		tb.Fatal("no entries with a sessionId in the fixture")
	}
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
	dir := filepath.Dir(out)
	var buf bytes.Buffer
	buf.Grow(n * 6000)
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
		key := strings.Join(parts, ":")
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
		buf.WriteString("\n  ")
		buf.WriteString(strconv.Quote(key))
		buf.WriteString(": ")
		buf.WriteString(raw)
	}
	buf.WriteString("\n}")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(out, buf.Bytes(), 0o600); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkLoadStore10k: store.Load on a 10,000-entry store of real entries
// (about 54 MB, ~5.4 KB per entry) — the hot path of `sessions list`.
func BenchmarkLoadStore10k(b *testing.B) {
	p := filepath.Join(b.TempDir(), "sessions.json")
	synthStore(b, 10_000, p)
	st, err := os.Stat(p)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := store.Load(p)
		if err != nil {
			b.Fatal(err)
		}
		if len(s.Entries) != 10_000 {
			b.Fatalf("loaded %d entries, want 10000", len(s.Entries))
		}
	}
}
