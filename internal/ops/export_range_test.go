package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/export"
)

// seqsOf are the sequence numbers of a Markdown export's messages.
func seqsOf(md string) []int {
	var out []int
	for _, ln := range strings.Split(md, "\n") {
		if rest, ok := strings.CutPrefix(ln, "## "); ok {
			var n int
			if i := strings.IndexByte(rest, '.'); i > 0 && json.Unmarshal([]byte(rest[:i]), &n) == nil {
				out = append(out, n)
			}
		}
	}
	return out
}

func TestExportRanges(t *testing.T) {
	o, _ := fixtureOps(t, "state-2026.1.30", nil, Config{})
	sess, page, err := o.OpenHistory(context.Background(), "main", "", HistoryQuery{Limit: 5, IncludeTools: true, Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	sess.Close()
	if page.NextCursor == "" {
		t.Fatal("no cursor")
	}
	ts5 := export.MessageTime(page.Messages[0]) // message 13's time (17 messages)
	_, all, err := o.OpenHistory(context.Background(), "main", "", HistoryQuery{Limit: 1000, IncludeTools: true, Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	t3 := export.MessageTime(all.Messages[2])
	t5 := export.MessageTime(all.Messages[4])
	stamp := func(ms int64) string { return time.UnixMilli(ms).UTC().Format(time.RFC3339Nano) }
	for _, c := range []struct {
		name string
		q    ExportQuery
		want []int
		rng  string
	}{
		{"seq", ExportQuery{From: "3", To: "seq:5"}, []int{3, 4, 5}, "from message 3 to message 5 (inclusive)"},
		{"last", ExportQuery{Last: 3}, []int{15, 16, 17}, "the last 3 messages"},
		{"last of range", ExportQuery{To: "10", Last: 2}, []int{9, 10}, "the last 2 messages up to message 10 (inclusive)"},
		{"id", ExportQuery{From: "id:7d47fd7b", To: "468cb7e2"}, []int{3, 4}, "from id 7d47fd7b to id 468cb7e2 (inclusive)"},
		{"cursor", ExportQuery{From: page.NextCursor}, []int{13, 14, 15, 16, 17}, "from cursor " + page.NextCursor},
		{"time", ExportQuery{From: stamp(t3), To: "time:" + stamp(t5)}, []int{3, 4, 5}, "from " + export.Stamp(t3) + " to " + export.Stamp(t5) + " (inclusive)"},
		{"time cursor's", ExportQuery{From: stamp(ts5)}, []int{13, 14, 15, 16, 17}, ""},
		{"7d back from now: the fixture is older", ExportQuery{From: "7d"}, nil, ""},
		{"no tools: numbers kept", ExportQuery{From: "3", To: "6", NoTools: true}, []int{3, 6}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			c.q.Format = export.Markdown
			out, res := exportOf(t, o, "main", c.q)
			got := seqsOf(out)
			if !equalInts(got, c.want) || res.Messages != len(c.want) {
				t.Errorf("messages %v (%d), want %v", got, res.Messages, c.want)
			}
			if c.rng != "" && !strings.Contains(out, "- Range: "+c.rng+"\n") {
				t.Errorf("range not stated as %q:\n%.600s", c.rng, out)
			}
		})
	}
	// jsonl: the lines of the range, after the transcript's header line.
	out, _ := exportOf(t, o, "main", ExportQuery{Format: export.JSONL, Last: 1})
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"type":"session"`) || !strings.Contains(lines[1], `"role":"assistant"`) {
		t.Errorf("jsonl --last 1: %q", out)
	}
	for _, bad := range []ExportQuery{{From: "seq:0"}, {To: "0"}, {From: "time:yesterday"}, {From: "gw1.abc"}, {Last: -1}} {
		bad.Format = export.Markdown
		_, err := o.Export(context.Background(), "main", "", bad, &bytes.Buffer{})
		if apperr.CodeOf(err) != apperr.CodeUsage {
			t.Errorf("%+v: %v, want a usage error", bad, err)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// With --lineage the transcript a reset left comes first, after a marked
// boundary; without it, only the current transcript.
func TestExportLineage(t *testing.T) {
	o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{})
	sessDir := filepath.Join(dir, "agents", "main", "sessions")
	cur := filepath.Join(sessDir, "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	old := "0badc0de-0000-4000-8000-000000000001"
	// The earlier transcript: what /new left; the current one's header
	// names it as its parentSession (how 1.30 links them).
	if err := os.WriteFile(filepath.Join(sessDir, old+".jsonl"), []byte(`{"type":"session","version":3,"id":"`+old+`","timestamp":"2026-11-20T01:00:00.000Z","cwd":"/w"}
{"type":"message","id":"e1","parentId":null,"timestamp":"2026-11-20T01:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"before the reset"}],"timestamp":1795222801000}}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(cur)
	b = bytes.Replace(b, []byte(`"cwd":"/home/claw/.openclaw/workspace"}`), []byte(`"cwd":"/home/claw/.openclaw/workspace","parentSession":"`+filepath.Join(sessDir, old+".jsonl")+`"}`), 1)
	if err := os.WriteFile(cur, b, 0o600); err != nil {
		t.Fatal(err)
	}
	out, _ := exportOf(t, o, "main", ExportQuery{Format: export.Markdown})
	if strings.Contains(out, "before the reset") {
		t.Error("without --lineage the earlier transcript is exported")
	}
	out, res := exportOf(t, o, "main", ExportQuery{Format: export.Markdown, Lineage: true})
	i, j := strings.Index(out, "before the reset"), strings.Index(out, "Hello from the peer generator")
	if i < 0 || j < i || res.Transcripts != 2 || res.Messages != 18 {
		t.Fatalf("--lineage: earlier at %d, current at %d, %d transcripts, %d messages:\n%.1500s", i, j, res.Transcripts, res.Messages, out)
	}
	if !strings.Contains(out, "**Earlier transcript "+old+" (before a reset)**") || !strings.Contains(out, "**Current transcript c040fd20") {
		t.Errorf("no marked boundary:\n%.1500s", out)
	}
	html, _ := exportOf(t, o, "main", ExportQuery{Format: export.HTML, Lineage: true})
	if !strings.Contains(html, `class="boundary"`) || !strings.Contains(html, "Earlier transcript "+old) {
		t.Error("html: no marked boundary")
	}
	js, _ := exportOf(t, o, "main", ExportQuery{Format: export.JSON, Lineage: true})
	var doc struct {
		Transcripts []export.Segment `json:"transcripts"`
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil || len(doc.Transcripts) != 2 || doc.Transcripts[0].Source != "orphan" || doc.Transcripts[1].First != 2 {
		t.Errorf("json transcripts %+v (%v)", doc.Transcripts, err)
	}
}

// A compaction's summary stands where the compaction is, in every format
// but jsonl, which stays the file byte for byte.
func TestExportCompaction(t *testing.T) {
	o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{})
	f := filepath.Join(dir, "agents", "main", "sessions", "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	b, _ := os.ReadFile(f)
	b = append(b, `{"type":"compaction","id":"k1","parentId":"x","timestamp":"2026-11-21T05:00:00.000Z","summary":"We talked about <IDENTITY.md>.","firstKeptEntryId":"x","tokensBefore":900}
{"type":"message","id":"after","parentId":"k1","timestamp":"2026-11-21T05:00:01.000Z","message":{"role":"user","content":"after the compaction","timestamp":1795237201000}}
`...)
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	md, res := exportOf(t, o, "main", ExportQuery{Format: export.Markdown})
	i, j := strings.Index(md, "## 18. Compaction summary · 2026-11-21 05:00:00Z\n\nWe talked about <IDENTITY.md>.\n"), strings.Index(md, "## 19. User")
	if i < 0 || j < i || res.Messages != 19 {
		t.Errorf("the summary is not where the compaction stands (%d, %d, %d messages):\n%s", i, j, res.Messages, md[max(0, len(md)-600):])
	}
	html, _ := exportOf(t, o, "main", ExportQuery{Format: export.HTML})
	if !strings.Contains(html, `<span class="role">Compaction summary</span>`) || !strings.Contains(html, "We talked about &lt;IDENTITY.md&gt;.") {
		t.Error("html: no compaction summary")
	}
	if got, _ := exportOf(t, o, "main", ExportQuery{Format: export.JSONL}); got != string(b) {
		t.Error("jsonl with a compaction is not the file")
	}
}
