package ops

import (
	"bytes"
	"database/sql"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/hostmetrics"
	"github.com/openclaw/sessions/internal/metrics"
	prometheus "github.com/openclaw/sessions/internal/promlite"
	"github.com/openclaw/sessions/internal/testutil/stateextras"
)

// snapCollector exposes one snapshot as it is.
type snapCollector struct{ s *metrics.Snapshot }

func (snapCollector) Describe(chan<- *prometheus.Desc)      {}
func (c snapCollector) Collect(ch chan<- prometheus.Metric) { metrics.Emit(c.s, ch) }

// snapText is a snapshot as a scrape shows it (the Prometheus text format,
// every value), and its error count.
func snapText(t *testing.T, s *metrics.Snapshot) string {
	t.Helper()
	reg := prometheus.NewRegistry()
	reg.MustRegister(snapCollector{s})
	var b bytes.Buffer
	if err := metrics.Write(&b, reg, false); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "errors %d\n", s.Errors)
	return b.String()
}

// stateTree is every file of dir with its size, mode and mtime: a scrape
// must leave it as it is.
func stateTree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "%s %v %d %d\n", p, fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// warmRig is a long-lived Metrics on a copy of a fixture, and what its
// scrapes are held to.
type warmRig struct {
	t     *testing.T
	cfg   Config
	q     MetricsQuery
	dir   string
	clock time.Time
	m     *Metrics
}

func newWarmRig(t *testing.T, fixture string, q MetricsQuery) *warmRig {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir()) // the usage cache
	r := &warmRig{t: t, q: q, clock: time.UnixMilli(1795236260000)}
	o, dir := fixtureOps(t, fixture, nil, Config{Now: func() time.Time { return r.clock }})
	r.cfg, r.dir = o.Config(), dir
	m, err := NewMetrics(r.cfg, q)
	if err != nil {
		t.Fatal(err)
	}
	// the files copied just now are older than the racy window by this
	// clock: what the first scrape reads of them is kept
	m.r.Clock = func() time.Time { return time.Now().Add(time.Hour) }
	r.m = m
	return r
}

// check scrapes with the long-lived Metrics and holds it to a new
// Metrics's first scrape and to the reference; the state dir is left as
// it was.
func (r *warmRig) check(what string) {
	t := r.t
	t.Helper()
	before := stateTree(t, r.dir)
	warm := snapText(t, r.m.Snapshot())
	fc := r.cfg
	fc.Cache = nil
	fresh, err := NewMetrics(fc, r.q)
	if err != nil {
		t.Fatal(err)
	}
	cold := snapText(t, fresh.Snapshot())
	ref := snapText(t, referenceSnapshot(fc, r.q))
	if warm != ref {
		t.Errorf("%s: the warm scrape differs from the reference\nwarm:\n%s\nreference:\n%s", what, warm, ref)
	}
	if cold != ref {
		t.Errorf("%s: a cold scrape differs from the reference\ncold:\n%s\nreference:\n%s", what, cold, ref)
	}
	if after := stateTree(t, r.dir); after != before {
		t.Errorf("%s: the scrapes changed the state dir\nbefore:\n%s\nafter:\n%s", what, before, after)
	}
}

func (r *warmRig) counts() hostmetrics.Counts { return r.m.r.Counts() }

// an assistant message as OpenClaw 2026.1.30 writes it, with its usage
const assistantLine = `{"type":"message","id":"warm%04d","parentId":null,"timestamp":"2026-11-20T10:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"api":"openai-completions","provider":"mock","model":"mock-2","usage":{"input":%d,"output":7,"cacheRead":0,"cacheWrite":0,"totalTokens":%d,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1795236260000}}`

// A long-lived Metrics on a sessions.json-era state: what it keeps is
// taken again while nothing changes, and every kind of write OpenClaw
// makes between two scrapes shows in the next one exactly as a fresh
// reading shows it.
func TestMetricsWarmJSON(t *testing.T) {
	r := newWarmRig(t, "state-2026.1.30", MetricsQuery{AllAgents: true, PerSessionTop: 3, Active: 48 * time.Hour})
	sessions := filepath.Join(r.dir, "agents", "main", "sessions")
	tr := func(sid string) string { return filepath.Join(sessions, sid+".jsonl") }

	r.check("first scrape")
	r.check("second scrape")
	if c := r.counts(); c.Kept == 0 || c.UsageKept == 0 {
		t.Fatalf("an unchanged state was read again: %+v", c)
	}

	// time passes: the active window moves, nothing is read again
	r.clock = r.clock.Add(30 * 24 * time.Hour)
	read := r.counts().Read
	r.check("a month later")
	if c := r.counts(); c.Read != read {
		t.Errorf("the structure was read again for a clock change: %+v", c)
	}

	// a message appended to a transcript: that file read again, usage
	// rolled up again, the structure kept
	rolled := r.counts().Rolled
	appendLine(t, tr("c040fd20-0a1c-4ce0-924c-6e695a32eecb"), fmt.Sprintf(assistantLine, 1, 1000, 1007))
	r.check("a line appended")
	if c := r.counts(); c.Read != read || c.Rolled != rolled+1 {
		t.Errorf("after an append: %+v (read %d, rolled %d before)", c, read, rolled)
	}
	// and a second one at once (same file, the same second)
	appendLine(t, tr("c040fd20-0a1c-4ce0-924c-6e695a32eecb"), fmt.Sprintf(assistantLine, 2, 5, 12))
	r.check("a second line appended")

	// a live turn lock and a dead writer's lock
	live := tr("c040fd20-0a1c-4ce0-924c-6e695a32eecb") + ".lock"
	dead := tr("26a610b5-ea74-4c48-bd74-9be14f7f2944") + ".lock"
	payload := fmt.Sprintf("{\n  \"pid\": %d,\n  \"createdAt\": %q\n}", os.Getpid(), r.clock.Add(-time.Minute).UTC().Format("2006-01-02T15:04:05.000Z"))
	if err := os.WriteFile(live, []byte(payload), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dead, []byte("{\n  \"pid\": 999999999,\n  \"createdAt\": \"2026-01-01T00:00:00.000Z\"\n}"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.check("locks held")
	os.Remove(live)
	os.Remove(dead)
	r.check("locks gone")

	// sessions.json rewritten by OpenClaw: a session more (a copy of one
	// under a new key and sessionId)
	store := filepath.Join(r.dir, "agents", "ops", "sessions", "sessions.json")
	data, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte("{\n"), []byte("{\n  \"agent:ops:telegram:group:-77\": {\"sessionId\": \"9e0d7a5c-1111-4222-8333-444455556666\", \"updatedAt\": 1795236200000, \"chatType\": \"group\", \"lastChannel\": \"telegram\", \"totalTokens\": 999999},\n"), 1)
	if err := os.WriteFile(store, data, 0o600); err != nil {
		t.Fatal(err)
	}
	r.check("a session added to a store")

	// a new transcript: an orphan (no entry has its sessionId), counted by usage
	orphan, err := os.ReadFile(tr("c040fd20-0a1c-4ce0-924c-6e695a32eecb"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(tr("0fa1e6b2-aaaa-4bbb-8ccc-ddddeeeeffff"), orphan, 0o600); err != nil {
		t.Fatal(err)
	}
	r.check("a new transcript file")

	// an archived copy (a reset) beside it
	if err := os.WriteFile(tr("0fa1e6b2-aaaa-4bbb-8ccc-ddddeeeeffff")+".reset.2026-11-20T10-00-00.000Z", orphan, 0o600); err != nil {
		t.Fatal(err)
	}
	r.check("an archived copy")

	// a transcript deleted
	if err := os.Remove(tr("02161643-4320-459e-9b07-c42d02d97f2f")); err != nil {
		t.Fatal(err)
	}
	r.check("a transcript deleted")

	// a line that is not JSON: skipped and counted as an error on every
	// scrape, also when nothing is read again
	appendLine(t, tr("0c59edd8-9b7b-4d26-9fb1-8b3778f90a3d"), `{"type":"message","message":{"role":"assistant","usage":`)
	r.check("a corrupt line")
	r.check("a corrupt line, again")

	// the config changes the price of a model, which a message that
	// recorded no cost of its own is priced at
	noCost := `{"type":"message","id":"warm0099","parentId":null,"timestamp":"2026-11-20T10:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}],"provider":"mock","model":"mock-1","usage":{"input":1000,"output":7,"cacheRead":0,"cacheWrite":0,"totalTokens":1007},"stopReason":"stop","timestamp":1795236260000}}`
	appendLine(t, tr("c040fd20-0a1c-4ce0-924c-6e695a32eecb"), noCost)
	r.check("a message without its cost")
	cfgPath := filepath.Join(r.dir, "openclaw.json")
	cdata, err := os.ReadFile(cfgPath)
	if err != nil {
		t.Fatal(err)
	}
	cdata = bytes.Replace(cdata, []byte(`"input": 0,`), []byte(`"input": 3,`), 1)
	if err := os.WriteFile(cfgPath, cdata, 0o600); err != nil {
		t.Fatal(err)
	}
	r.check("a price configured")

	// an entry's sessionFile moved to a directory that does not exist yet,
	// then the directory made with a longer copy of the transcript in it:
	// nothing changes in the sessions dir, but the entry's transcript is
	// now the copy (and its old file an orphan)
	moved := filepath.Join(r.dir, "moved")
	mainStore := filepath.Join(sessions, "sessions.json")
	sdata, err := os.ReadFile(mainStore)
	if err != nil {
		t.Fatal(err)
	}
	old := "/home/claw/.openclaw/agents/main/sessions/ae601eb7-ceae-4d11-b896-102fd9dddff6.jsonl"
	if !bytes.Contains(sdata, []byte(old)) {
		t.Fatalf("the fixture has no sessionFile %s", old)
	}
	sdata = bytes.Replace(sdata, []byte(old), []byte(filepath.Join(moved, "ae601eb7-ceae-4d11-b896-102fd9dddff6.jsonl")), 1)
	if err := os.WriteFile(mainStore, sdata, 0o600); err != nil {
		t.Fatal(err)
	}
	r.check("a sessionFile in a directory not there")
	r.check("a sessionFile in a directory not there, again")
	body, err := os.ReadFile(tr("ae601eb7-ceae-4d11-b896-102fd9dddff6"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(moved, 0o700); err != nil {
		t.Fatal(err)
	}
	body = append(body, fmt.Sprintf(assistantLine+"\n", 4, 300, 307)...)
	if err := os.WriteFile(filepath.Join(moved, "ae601eb7-ceae-4d11-b896-102fd9dddff6.jsonl"), body, 0o600); err != nil {
		t.Fatal(err)
	}
	r.check("the sessionFile's directory made")

	// a new agent, with a transcript and no store
	if err := os.MkdirAll(filepath.Join(r.dir, "agents", "solo", "sessions"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(r.dir, "agents", "solo", "sessions", "5010a000-0000-4000-8000-000000000001.jsonl"), orphan, 0o600); err != nil {
		t.Fatal(err)
	}
	r.check("a new agent")

	// a transcript replaced by a symbolic link (to a copy inside the
	// state dir): its entry's transcript resolves through the link, so
	// nothing of the structure is kept, and each scrape still equals a
	// fresh one
	target := filepath.Join(r.dir, "agents", "main", "moved.jsonl")
	if err := os.Rename(tr("f0a65321-234f-4249-82a5-20d842f0160d"), target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, tr("f0a65321-234f-4249-82a5-20d842f0160d")); err != nil {
		t.Fatal(err)
	}
	r.check("a transcript behind a link")
	appendLine(t, target, fmt.Sprintf(assistantLine, 3, 40, 47))
	r.check("a line appended behind the link")
	kept := r.counts().Kept
	r.check("the link, again")
	if c := r.counts(); c.Kept != kept {
		t.Errorf("a structure resolved through a link was kept: %+v", c)
	}
}

// The same on a 2026.8+ SQLite state: a commit in the -wal by a writer
// that stays open, a new session, the checkpoint when it closes.
func TestMetricsWarmSQLite(t *testing.T) {
	r := newWarmRig(t, "state-2026.9.6", MetricsQuery{AllAgents: true, PerSessionTop: 2})
	r.check("first scrape")
	r.check("second scrape")
	if c := r.counts(); c.Kept == 0 || c.UsageKept == 0 {
		t.Fatalf("an unchanged state was read again: %+v", c)
	}
	p := filepath.Join(r.dir, "agents", "main", "agent", "openclaw-agent.sqlite")
	w, err := sql.Open("sqlite", "file:"+p)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	exec := func(q string, args ...any) {
		t.Helper()
		if _, err := w.Exec(q, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`UPDATE session_nodes SET entry_json = json_set(entry_json, '$.totalTokens', 123456) WHERE session_key = 'agent:main:cron:peer-job-1'`)
	r.check("a commit in the -wal")
	exec(`INSERT INTO session_nodes (session_key, current_session_id, entry_json, updated_at, entry_valid)
		SELECT 'agent:main:telegram:group:-4242', 'aaaaaaaa-0000-4000-8000-000000000042',
		       json_set(entry_json, '$.sessionId', 'aaaaaaaa-0000-4000-8000-000000000042', '$.updatedAt', 1795236260000), 1795236260000, 1
		FROM session_nodes WHERE session_key = 'agent:main:telegram:group:-100123'`)
	r.check("a session added")
	exec(`INSERT INTO transcript_events (session_id, seq, event_json, created_at, event_utf8_bytes)
		SELECT session_id, seq + 1000, json_set(event_json, '$.id', 'warm' || seq), created_at, event_utf8_bytes
		FROM transcript_events WHERE session_id = '8000a7c0-cc69-4a7f-82ba-219f4a789783' AND event_json LIKE '%"usage"%'`)
	r.check("messages added")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r.check("the writer gone (checkpointed)")
}

// --agent: one agent's scrape, kept and read again as every agent's.
func TestMetricsWarmOneAgent(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	r := newWarmRig(t, "state-2026.1.30", MetricsQuery{PerSessionTop: 2})
	r.cfg.Agent = "ops"
	m, err := NewMetrics(r.cfg, r.q)
	if err != nil {
		t.Fatal(err)
	}
	m.r.Clock = r.m.r.Clock
	r.m = m
	r.check("ops, first scrape")
	appendLine(t, filepath.Join(r.dir, "agents", "ops", "sessions", "5ceeb65c-a102-4129-8193-0ee080a00422.jsonl"), fmt.Sprintf(assistantLine, 9, 77, 84))
	r.check("ops, a line appended")
	appendLine(t, filepath.Join(r.dir, "agents", "main", "sessions", "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl"), fmt.Sprintf(assistantLine, 10, 77, 84))
	r.check("ops, another agent's line appended")
	if c := r.counts(); c.Kept == 0 {
		t.Errorf("nothing kept: %+v", c)
	}
}

// Every state of the coverage suite (archived copies, an orphan
// attributed by a header, an agent without a store, a 2026.8+ key's
// earlier window and events without one), every agent or one, as the
// operator and as a sandboxed requester: a Metrics's first scrape and the
// next (kept, where it may be) are the reference's.
func TestMetricsEqualsReference(t *testing.T) {
	for _, c := range []struct {
		name    string
		fixture string
		extra   func(t *testing.T, dir string)
	}{
		{"1.30", "state-2026.1.30", nil},
		{"1.30+archives+orphans", "state-2026.1.30", stateextras.JSON},
		{"9.6", "state-2026.9.6", nil},
		{"9.6+orphans", "state-2026.9.6", stateextras.SQLite},
		{"9.8", "state-2026.9.8", nil},
	} {
		for _, who := range []struct {
			name  string
			tweak func(*Config)
		}{
			{"operator", nil},
			{"agent main", func(cf *Config) { cf.Agent = "main" }},
			{"sandboxed", func(cf *Config) { cf.As, cf.Sandboxed = "agent:main:main", true }},
		} {
			t.Run(c.name+"/"+who.name, func(t *testing.T) {
				dir := copyReadFixture(t, c.fixture)
				if c.extra != nil {
					c.extra(t, dir)
				}
				t.Setenv("XDG_CACHE_HOME", t.TempDir())
				o, _ := newTestOps(t, dir, nil, who.tweak)
				cfg := o.Config()
				q := MetricsQuery{AllAgents: true, PerSessionTop: 3}
				m, err := NewMetrics(cfg, q)
				if err != nil {
					t.Fatal(err)
				}
				m.r.Clock = func() time.Time { return time.Now().Add(time.Hour) }
				ref := snapText(t, referenceSnapshot(cfg, q))
				for i := range 3 {
					if got := snapText(t, m.Snapshot()); got != ref {
						t.Fatalf("scrape %d:\n%s\nreference:\n%s", i+1, got, ref)
					}
				}
				restricted := who.tweak != nil && cfg.Sandboxed
				if cnt := m.r.Counts(); restricted && cnt.Kept > 0 || !restricted && cnt.Kept != 2 {
					t.Errorf("readings kept: %+v", cnt)
				}
			})
		}
	}
}
