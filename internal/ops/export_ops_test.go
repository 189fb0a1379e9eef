package ops

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/openclaw/sessions/internal/export"
)

// exportOf runs one export and returns what it wrote.
func exportOf(t *testing.T, o *Ops, ref string, q ExportQuery) (string, *ExportResult) {
	t.Helper()
	var b bytes.Buffer
	res, err := o.Export(context.Background(), ref, "", q, &b)
	if err != nil {
		t.Fatalf("export %s: %v", ref, err)
	}
	return b.String(), res
}

// The JSON era's jsonl export is the transcript file, byte for byte: every
// live session's and every orphan's of the fixture.
func TestExportJSONLRoundTripFiles(t *testing.T) {
	o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{})
	files, _ := filepath.Glob(filepath.Join(dir, "agents", "*", "sessions", "*.jsonl"))
	if len(files) < 5 {
		t.Fatalf("only %d transcripts in the fixture", len(files))
	}
	for _, f := range files {
		sid := strings.TrimSuffix(filepath.Base(f), ".jsonl")
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := exportOf(t, o, sid, ExportQuery{Format: export.JSONL})
		if got != string(want) {
			t.Errorf("%s: jsonl export differs from the file (%d bytes vs %d)", sid, len(got), len(want))
		}
	}
}

// A last line without "\n" is written without one, and a corrupt line as
// it is stored: still the file, byte for byte.
func TestExportJSONLRoundTripOddLines(t *testing.T) {
	o, dir := fixtureOps(t, "state-2026.1.30", nil, Config{})
	f := filepath.Join(dir, "agents", "main", "sessions", "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	b, _ := os.ReadFile(f)
	b = append(b, "{corrupt\n\n"...)
	b = append(b, `{"type":"message","id":"zz","message":{"role":"user","content":"last"}}`...)
	if err := os.WriteFile(f, b, 0o600); err != nil {
		t.Fatal(err)
	}
	got, res := exportOf(t, o, "main", ExportQuery{Format: export.JSONL})
	if got != string(b) {
		t.Errorf("jsonl export differs from the file:\n%q\nwant\n%q", got[max(0, len(got)-200):], string(b[len(b)-200:]))
	}
	if res.Messages != 18 {
		t.Errorf("messages = %d, want 18", res.Messages)
	}
}

// The 2026.8+ jsonl export is the session's events as the store holds
// them, in seq order, one a line.
func TestExportJSONLRoundTripEvents(t *testing.T) {
	o, dir := fixtureOps(t, "state-2026.9.6", nil, Config{})
	dbs, _ := filepath.Glob(filepath.Join(dir, "agents", "main", "agent", "*.sqlite"))
	if len(dbs) != 1 {
		t.Fatalf("stores: %v", dbs)
	}
	u := url.URL{Scheme: "file", Path: dbs[0]}
	db, err := sql.Open("sqlite", u.String()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT session_id, group_concat(event_json, char(10)) FROM (SELECT session_id, event_json FROM transcript_events ORDER BY session_id, seq) GROUP BY session_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var sid, lines string
		if err := rows.Scan(&sid, &lines); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if _, err := o.Export(context.Background(), sid, "", ExportQuery{Format: export.JSONL}, &b); err != nil {
			t.Logf("%s: %v", sid, err) // a session another agent's scope hides
			continue
		}
		n++
		if b.String() != lines+"\n" {
			t.Errorf("%s: jsonl export differs from the events:\n%.300s\nwant\n%.300s", sid, b.String(), lines)
		}
	}
	if n < 2 {
		t.Fatalf("only %d sessions compared", n)
	}
}

// json is one valid document holding every message history reads, in
// order; markdown and html hold every message too.
func TestExportEveryFormatHasEveryMessage(t *testing.T) {
	for _, fx := range []string{"state-2026.1.30", "state-2026.9.6"} {
		o, _ := fixtureOps(t, fx, nil, Config{})
		sess, page, err := o.OpenHistory(context.Background(), "main", "", HistoryQuery{Limit: HistoryMaxLimit, IncludeTools: true, Raw: true})
		if err != nil {
			t.Fatal(err)
		}
		sess.Close()
		got, res := exportOf(t, o, "main", ExportQuery{Format: export.JSON})
		var doc struct {
			Session  export.Meta       `json:"session"`
			Messages []json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal([]byte(got), &doc); err != nil {
			t.Fatalf("%s: json export is no document: %v", fx, err)
		}
		if len(doc.Messages) != len(page.Messages) || res.Messages != len(page.Messages) {
			t.Fatalf("%s: %d messages exported, history has %d", fx, len(doc.Messages), len(page.Messages))
		}
		for i := range doc.Messages {
			if !bytes.Equal(doc.Messages[i], page.Messages[i]) {
				t.Errorf("%s: message %d differs from history's", fx, i+1)
			}
		}
		if doc.Session.Key != "main" || doc.Session.Range != "" || doc.Session.Entry == nil {
			t.Errorf("%s: session facts %+v", fx, doc.Session)
		}
		for _, f := range []export.Format{export.Markdown, export.HTML} {
			out, res := exportOf(t, o, "main", ExportQuery{Format: f})
			if res.Messages != len(page.Messages) {
				t.Errorf("%s %s: %d messages, want %d", fx, f, res.Messages, len(page.Messages))
			}
			for i := range page.Messages {
				mark := map[export.Format]string{export.Markdown: "## %d. ", export.HTML: `id="m%d"`}[f]
				if !strings.Contains(out, strings.Replace(mark, "%d", itoa(i+1), 1)) {
					t.Errorf("%s %s: message %d missing", fx, f, i+1)
				}
			}
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
