package hostread

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/sanitize"
	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
)

// maskedMaxLine is the longest line an agent's search reads in these
// tests (ops.SearchMaskMaxLine's role).
const maskedMaxLine = 1 << 20

// indexedState is a copy of the 1.30 fixture with messages holding needle
// appended to agent:main:main: a short one, and one longer than an
// agent's search reads (maskedMaxLine) but shorter than the scan's.
func indexedState(t *testing.T, needle string) *state.State {
	t.Helper()
	dir := t.TempDir()
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), dir); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(filepath.Join(dir, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for i, text := range []string{"short " + needle, strings.Repeat("lorem ipsum ", maskedMaxLine/12+1) + needle, "again " + needle} {
		line, err := json.Marshal(map[string]any{"type": "message", "id": fmt.Sprintf("idx%d", i), "timestamp": fmt.Sprintf("2026-11-20T10:00:0%d.000Z", i),
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"}, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); CloseIndexes() })
	return s
}

// searchBoth runs q by the scan and from the index (twice: built, then
// warm), and fails unless the three answers are the same; it returns the
// warm indexed one and the debug lines of the indexed runs.
func searchBoth(t *testing.T, s *state.State, pattern string, o *srch.Options, maskKey string, limit, context int) (*SearchAnswer, []string) {
	t.Helper()
	m, err := srch.Compile(srch.Query{Pattern: pattern})
	if err != nil {
		t.Fatal(err)
	}
	o.Matcher = m
	q := func(x *SearchIndex) *SearchQuery {
		return &SearchQuery{AllAgents: true, IncludeArchived: true, Options: o, Limit: limit, Context: context, Index: x}
	}
	scan, err := Search(s, q(nil))
	if err != nil {
		t.Fatal(err)
	}
	var debug []string
	cache := t.TempDir()
	var got *SearchAnswer
	for range 2 {
		x := &SearchIndex{Pattern: srch.Query{Pattern: pattern}, CacheDir: cache, MaskKey: maskKey, Debug: func(s string) { debug = append(debug, s) }}
		if got, err = Search(s, q(x)); err != nil {
			t.Fatal(err)
		}
		if got.Total != scan.Total || !reflect.DeepEqual(got.Hits, scan.Hits) || !reflect.DeepEqual(got.Warnings, scan.Warnings) || got.Partial != scan.Partial {
			t.Fatalf("indexed: %d hits %+v, warnings %q\nscan: %d hits %+v, warnings %q\ndebug: %q",
				got.Total, got.Hits, got.Warnings, scan.Total, scan.Hits, scan.Warnings, debug)
		}
	}
	return got, debug
}

// An agent's search reads no line longer than its MaxLine, which is
// shorter than the lines the index keeps: a source holding one is scanned,
// so that the line is skipped and warned about as the scan does, never
// found in the text the index kept of it. The operator's search finds it.
func TestSearchIndexedLongLine(t *testing.T) {
	const needle = "zqxidxlong17"
	s := indexedState(t, needle)
	agent, _ := searchBoth(t, s, needle, &srch.Options{Mask: sanitize.NewRedactor(nil, nil), MaxLine: maskedMaxLine}, "test mask", 0, 0)
	if agent.Total != 2 || len(agent.Warnings) == 0 {
		t.Errorf("agent: %d hits (want the 2 short messages), warnings %q", agent.Total, agent.Warnings)
	}
	operator, _ := searchBoth(t, s, needle, &srch.Options{}, "", 0, 0)
	if operator.Total != 3 {
		t.Errorf("operator: %d hits, want 3", operator.Total)
	}
}

// A query verified on the text the index keeps reads no transcript again:
// for an agent, whose index holds masked text, nothing is masked at query
// time (Work.BytesMasked 0) and the work counted is one message examined
// per candidate, as the index selected them from masked text. The answer,
// with its snippets, context and page, is the scan's.
func TestSearchIndexedKeptText(t *testing.T) {
	const needle = "zqxidxkept17"
	s := indexedState(t, needle)
	// the long line is an operator's: the agent's search scans its source
	for _, c := range []struct {
		name    string
		o       *srch.Options
		maskKey string
	}{
		{"operator", &srch.Options{}, ""},
		{"operator with tools", &srch.Options{IncludeTools: true}, ""},
		{"agent", &srch.Options{Mask: sanitize.NewRedactor(nil, nil)}, "test mask"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, debug := searchBoth(t, s, needle, c.o, c.maskKey, 2, 1)
			if got.Total != 3 || len(got.Hits) != 2 {
				t.Fatalf("%d hits, %d shown; want 3, 2", got.Total, len(got.Hits))
			}
			if got.Work.BytesMasked != 0 || got.Work.Lines != 3 || got.Work.Parsed != 3 || got.Work.Hits != 3 {
				t.Errorf("work %+v: want the 3 candidates examined from the kept text, nothing masked or read", got.Work)
			}
			for _, d := range debug {
				if strings.Contains(d, "scanning") || strings.Contains(d, "reading the candidates' lines") {
					t.Errorf("debug: %s", d)
				}
			}
		})
	}
}

// A line longer than the scan reads (search.DefaultMaxLine, 16 MiB) is
// skipped by the scan with a warning; the index passed it over too, but
// silently, so an indexed answer lacked the warning. The source holding
// it is now scanned within the indexed answer: the same hits (not the one
// in the long line) and the same warning, warm and cold.
func TestSearchIndexedOversizeLine(t *testing.T) {
	const needle = "zqxidxhuge17"
	s := indexedState(t, needle)
	f, err := os.OpenFile(filepath.Join(s.Dir.Path, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range []string{strings.Repeat("x", srch.DefaultMaxLine+1<<20) + needle, "after " + needle} {
		line, err := json.Marshal(map[string]any{"type": "message", "id": fmt.Sprintf("huge%d", i), "timestamp": fmt.Sprintf("2026-11-21T10:00:0%d.000Z", i),
			"message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "text", "text": text}}}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write(append(line, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	f.Close()
	got, _ := searchBoth(t, s, needle, &srch.Options{}, "", 0, 0)
	if got.Total != 4 || len(got.Warnings) == 0 {
		t.Errorf("%d hits (want the 4 readable messages), warnings %q", got.Total, got.Warnings)
	}
}

// A long-lived process (the MCP server, the UI) searches from the index it
// keeps open; `sessions index --remove` removes it under the process: its
// next search builds it again (a small state: inline) and answers from it,
// as the scan does — it used to scan on every search until it restarted.
func TestSearchIndexedAfterRemove(t *testing.T) {
	const needle = "zqxidxgone17"
	s := indexedState(t, needle)
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
			q.Index = &SearchIndex{Pattern: srch.Query{Pattern: needle}, CacheDir: cache, Debug: func(s string) { debug = append(debug, s) }}
		}
		return q
	}
	scan, err := Search(s, q(false))
	if err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"built", "after --remove"} {
		if step == "after --remove" {
			if a, err := Index(context.Background(), s, IndexQuery{CacheDir: cache, Remove: true}); err != nil || len(a.Removed) != 1 {
				t.Fatalf("remove: %+v %v", a, err)
			}
		}
		debug = nil
		got, err := Search(s, q(true))
		if err != nil {
			t.Fatal(err)
		}
		if got.Total != scan.Total || !reflect.DeepEqual(got.Hits, scan.Hits) {
			t.Fatalf("%s: %d hits %+v, scan %d %+v", step, got.Total, got.Hits, scan.Total, scan.Hits)
		}
		for _, d := range debug {
			if strings.Contains(d, "scanning") {
				t.Fatalf("%s: the scan answered: %q", step, debug)
			}
		}
	}
	a, err := Index(context.Background(), s, IndexQuery{CacheDir: cache})
	if err != nil || len(a.Indexes) != 1 || a.Indexes[0].Changed != 0 {
		t.Fatalf("the index built again: %+v %v", a, err)
	}
}
