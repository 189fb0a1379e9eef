// Package storegen generates big, realistic session stores for tests and
// benchmarks without the OpenClaw peer: it clones the real entries of the
// fixture's main store (testdata/state-2026.1.30) the way `openclaw-peer
// synth-store [--with-transcripts]` does. Output is deterministic (seeded).
// Only tests import it.
package storegen

import (
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
	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/testutil"
)

// source is one fixture entry a clone is made from.
type source struct {
	key, raw, sid string
	transcript    []string // lines; nil when the source has none
}

// sources reads the fixture main store's entries that have a sessionId
// (with their transcripts when withTranscripts) and the newest updatedAt.
func sources(tb testing.TB, withTranscripts bool) (srcs []source, now int64) {
	tb.Helper()
	srcDir := filepath.Join(testutil.Fixture(tb), "agents", "main", "sessions")
	data, err := os.ReadFile(filepath.Join(srcDir, "sessions.json"))
	if err != nil {
		tb.Fatal(err)
	}
	gjson.ParseBytes(data).ForEach(func(k, v gjson.Result) bool {
		sid := v.Get("sessionId").String()
		if !v.IsObject() || sid == "" {
			return true
		}
		s := source{key: k.String(), raw: v.Raw, sid: sid}
		if withTranscripts {
			if b, err := os.ReadFile(filepath.Join(srcDir, sid+".jsonl")); err == nil {
				s.transcript = strings.Split(strings.TrimRight(string(b), "\n"), "\n")
			}
		}
		srcs = append(srcs, s)
		if u := v.Get("updatedAt").Int(); u > now {
			now = u
		}
		return true
	})
	if len(srcs) == 0 {
		tb.Fatal("no entries with a sessionId in the fixture")
	}
	return srcs, now
}

var uuidRe = regexp.MustCompile(`^[0-9a-f-]{36}$`)

// Members returns n store members, `"KEY": {…}`, cloned round-robin from
// the fixture's entries: each keeps its source entry's bytes and formatting
// (JSON.stringify(store, null, 2)) and gets a fresh key of the same kind
// (agent:<id>:main → agent:<id>:synthetic:sN; a uuid last part → a new
// uuid; else the last part suffixed -N), a seeded uuid4 sessionId, an
// updatedAt 37 s older than the previous clone's (the first is the
// fixture's newest) and, when the source had one, a sessionFile in dir.
// With transcripts, the source's transcript is copied to dir/SID.jsonl
// (header id rewritten) for every clone of a source that has one.
func Members(tb testing.TB, n int, dir string, transcripts bool) []string {
	tb.Helper()
	srcs, now := sources(tb, transcripts)
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
	if transcripts {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			tb.Fatal(err)
		}
	}
	members := make([]string, 0, n)
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
		members = append(members, strconv.Quote(strings.Join(parts, ":"))+": "+raw)
		if s.transcript != nil {
			lines := append([]string(nil), s.transcript...)
			lines[0] = strings.Replace(lines[0], `"id":"`+s.sid+`"`, `"id":"`+sid+`"`, 1)
			if err := os.WriteFile(filepath.Join(dir, sid+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
				tb.Fatal(err)
			}
		}
	}
	return members
}

// Marshal lays members out as OpenClaw writes a store (JSON.stringify(store,
// null, 2)): one member per line, indented by two spaces.
func Marshal(members []string) []byte {
	return []byte("{\n  " + strings.Join(members, ",\n  ") + "\n}")
}

// WriteStore writes a store of n cloned entries (Members) to path, their
// sessionFile next to it.
func WriteStore(tb testing.TB, n int, path string) {
	tb.Helper()
	writeStore(tb, n, path, false)
}

func writeStore(tb testing.TB, n int, path string, transcripts bool) {
	tb.Helper()
	dir := filepath.Dir(path)
	data := Marshal(Members(tb, n, dir, transcripts))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatal(err)
	}
}

// State writes a state dir into a temp dir of tb: the fixture's config and
// a main agent whose store holds n cloned entries (Members) with their
// transcripts. It returns the state dir.
func State(tb testing.TB, n int) string {
	tb.Helper()
	state := filepath.Join(tb.TempDir(), "state")
	dir := filepath.Join(state, "agents", "main", "sessions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		tb.Fatal(err)
	}
	cfg, err := os.ReadFile(filepath.Join(testutil.Fixture(tb), "openclaw.json"))
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(state, "openclaw.json"), cfg, 0o600); err != nil {
		tb.Fatal(err)
	}
	writeStore(tb, n, filepath.Join(dir, "sessions.json"), true)
	return state
}
