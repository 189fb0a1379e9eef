package hostread

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	srch "github.com/openclaw/sessions/internal/search"
)

// A warm process (the MCP server, the UI) searching as a search runs by
// default — the transcripts' stamps taken by the listing, one batch per
// directory, the backlog weighed from them and the catch-up taking them —
// sees every change at its next search, answering as the scan does: an
// append, a rewrite of the same size with its mtime set back, a transcript
// gone, one renamed, a new one in a directory whose mtime is set back.
func TestSearchIndexedWarmSeesEveryChange(t *testing.T) {
	const needle = "zqxwarm42"
	s := indexedState(t, needle)
	dir := filepath.Join(s.Dir.Path, "agents", "main", "sessions")
	m, err := srch.Compile(srch.Query{Pattern: needle})
	if err != nil {
		t.Fatal(err)
	}
	o := &srch.Options{Matcher: m}
	cache := t.TempDir()
	var debug []string
	q := func(indexed bool) *SearchQuery {
		q := &SearchQuery{AllAgents: true, IncludeArchived: true, Options: o}
		if indexed {
			q.Index = &SearchIndex{Pattern: srch.Query{Pattern: needle}, CacheDir: cache,
				Debug: func(s string) { debug = append(debug, s) },
				Background: func() error {
					t.Fatal("a background build started")
					return nil
				}}
		}
		return q
	}
	line := func(id, text string) string {
		b, err := json.Marshal(map[string]any{"type": "message", "id": id, "timestamp": "2026-11-21T10:00:00.000Z",
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}})
		if err != nil {
			t.Fatal(err)
		}
		return string(b) + "\n"
	}
	appendTo := func(name, data string) {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(data); err != nil {
			t.Fatal(err)
		}
	}
	check := func(what string, want int) {
		t.Helper()
		scan, err := Search(s, q(false))
		if err != nil {
			t.Fatal(err)
		}
		debug = nil
		got, err := Search(s, q(true))
		if err != nil {
			t.Fatal(err)
		}
		if scan.Total != want || got.Total != scan.Total || !reflect.DeepEqual(got.Hits, scan.Hits) {
			t.Fatalf("%s: indexed %d hits %+v, scan %d %+v, want %d; debug %q", what, got.Total, got.Hits, scan.Total, scan.Hits, want, debug)
		}
		for _, d := range debug {
			if strings.Contains(d, "scanning") {
				t.Fatalf("%s: the scan answered: %q", what, debug)
			}
		}
	}
	// A placeholder of the needle's length, rewritten to it in place later.
	placeholder := strings.Repeat("y", len(needle))
	appendTo("26a610b5-ea74-4c48-bd74-9be14f7f2944.jsonl", line("warm-same", "same size "+placeholder))
	check("built", 3)
	check("nothing changed", 3)

	appendTo("02161643-4320-459e-9b07-c42d02d97f2f.jsonl", line("warm-app", "appended "+needle))
	check("appended to", 4)

	p := filepath.Join(dir, "26a610b5-ea74-4c48-bd74-9be14f7f2944.jsonl")
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(10 * time.Millisecond) // a later ctime on any clock tick
	if err := os.WriteFile(p, []byte(strings.Replace(string(data), placeholder, needle, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	check("rewritten in place, same size and mtime", 5)

	if err := os.Remove(filepath.Join(dir, "02161643-4320-459e-9b07-c42d02d97f2f.jsonl")); err != nil {
		t.Fatal(err)
	}
	check("gone", 4)

	// renamed: the hit is the renamed file's (another sessionId: an orphan)
	if err := os.Rename(p, filepath.Join(dir, "99999999-0000-4000-8000-000000000001.jsonl")); err != nil {
		t.Fatal(err)
	}
	check("renamed", 4)

	di, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "99999999-0000-4000-8000-000000000002.jsonl"), []byte(line("warm-new", "new "+needle)), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(dir, di.ModTime(), di.ModTime()); err != nil {
		t.Fatal(err)
	}
	check("a new file, the directory's mtime set back", 5)
}
