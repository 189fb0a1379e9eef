package hostread

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/sanitize"
	srch "github.com/openclaw/sessions/internal/search"
	"github.com/openclaw/sessions/internal/searchindex"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
)

// The policy: what indexes in about a scan's time of the whole state
// (1/scanPerIndex of its bytes), never less than catchUpFloor, is a
// catch-up the search does itself; more is left to a background build.
func TestInlineUpdate(t *testing.T) {
	const gb = 1 << 30
	for _, c := range []struct {
		b    searchindex.Backlog
		want bool
	}{
		{searchindex.Backlog{}, true}, // up to date
		{searchindex.Backlog{Sources: 12, Bytes: 300 << 10, Total: 300 << 10}, true},              // a small state's first build
		{searchindex.Backlog{Sources: 1, Bytes: catchUpFloor, Total: 10 << 20}, true},             // the floor
		{searchindex.Backlog{Sources: 1, Bytes: catchUpFloor + 1, Total: 10 << 20}, false},        // past it
		{searchindex.Backlog{Sources: 1, Bytes: 150 << 20, Total: 150 << 20}, false},              // one huge unbuilt transcript
		{searchindex.Backlog{Sources: 10000, Bytes: 64 << 20, Total: 64 << 20}, false},            // 10,000 unbuilt sessions
		{searchindex.Backlog{Sources: 3, Bytes: gb / scanPerIndex, Total: gb}, true},              // a catch-up of a big state
		{searchindex.Backlog{Sources: 300, Bytes: gb/scanPerIndex + 1, Total: gb}, false},         // far behind
		{searchindex.Backlog{Sources: 40, Bytes: 2 << 20, Total: 3 * gb}, true},                   // a day's appends
		{searchindex.Backlog{Sources: 9000, Bytes: 2 * gb, Total: 3 * gb}, false},                 // most of it new
		{searchindex.Backlog{Sources: 1, Bytes: catchUpFloor / 2, Total: catchUpFloor / 2}, true}, // tiny
	} {
		if got := inlineUpdate(c.b); got != c.want {
			t.Errorf("%+v: inline %v, want %v (budget %d)", c.b, got, c.want, catchUpBudget(c.b.Total))
		}
	}
}

// bigState is a copy of the 1.30 fixture whose main session holds n more
// messages of pad bytes each (one of them says needle): a transcript
// whose first index is past the catch-up budget when n*pad is.
func bigState(t *testing.T, n, pad int, needle string) *state.State {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), dir); err != nil {
		t.Fatal(err)
	}
	appendMessages(t, dir, 0, n, pad, needle)
	s, err := state.Open(state.Options{StateDir: dir, Env: config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"}, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(); CloseIndexes() })
	return s
}

// appendMessages appends messages from..from+n-1 to the main session's
// transcript of the state in dir; the middle one says needle.
func appendMessages(t *testing.T, dir string, from, n, pad int, needle string) {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(dir, "agents/main/sessions/c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var buf []byte
	for i := from; i < from+n; i++ {
		text := fmt.Sprintf("message %d %s", i, strings.Repeat("filler ", pad/7))
		if i == from+n/2 {
			text += " " + needle
		}
		line, err := json.Marshal(map[string]any{"type": "message", "id": fmt.Sprintf("big%d", i), "timestamp": fmt.Sprintf("2026-11-21T10:%02d:%02d.000Z", i/60%60, i%60),
			"message": map[string]any{"role": []string{"user", "assistant"}[i%2], "content": []any{map[string]any{"type": "text", "text": text}}}})
		if err != nil {
			t.Fatal(err)
		}
		buf = append(append(buf, line...), '\n')
	}
	if _, err := f.Write(buf); err != nil {
		t.Fatal(err)
	}
}

// A search that finds the index far behind (its first build of a
// transcript past the budget) answers by the scan at once and starts one
// build in the background; while a process holds the index's lock (that
// build) a search scans without waiting and starts none; once it is built
// searches answer from it, and a small append is a catch-up done inline.
// Without a way to build in the background the search updates inline, as
// a catch-up does.
func TestSearchFarBehind(t *testing.T) {
	const needle = "zqxneedle"
	s := bigState(t, 6000, 1000, needle) // ~6 MB: past the 4 MiB floor
	m, err := srch.Compile(srch.Query{Pattern: needle})
	if err != nil {
		t.Fatal(err)
	}
	o := &srch.Options{Matcher: m}
	q := func(x *SearchIndex) *SearchQuery {
		return &SearchQuery{AllAgents: true, IncludeArchived: true, Options: o, Limit: 10, Index: x}
	}
	scan, err := Search(s, q(nil))
	if err != nil || scan.Total != 1 {
		t.Fatalf("scan: %+v %v", scan, err)
	}
	cache := t.TempDir()
	starts := 0
	var debug []string
	search := func(bg func() error) *SearchAnswer {
		t.Helper()
		debug = nil
		x := &SearchIndex{Pattern: srch.Query{Pattern: needle}, CacheDir: cache, Background: bg, Debug: func(s string) { debug = append(debug, s) }}
		a, err := Search(s, q(x))
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	start := func() error { starts++; return nil }
	same := func(what string, a, want *SearchAnswer) {
		t.Helper()
		if a.Total != want.Total || !reflect.DeepEqual(a.Hits, want.Hits) || !reflect.DeepEqual(a.Warnings, want.Warnings) {
			t.Fatalf("%s: %d hits %+v, want %d %+v (debug %q)", what, a.Total, a.Hits, want.Total, want.Hits, debug)
		}
	}
	said := func(what, line string) {
		t.Helper()
		if !slices.ContainsFunc(debug, func(d string) bool { return strings.Contains(d, line) }) {
			t.Fatalf("%s: debug %q, want a line saying %q", what, debug, line)
		}
	}
	backlog := func() searchindex.Backlog {
		t.Helper()
		ix, err := openIndex(s, &SearchIndex{CacheDir: cache}, nil)
		if err != nil {
			t.Fatal(err)
		}
		all, err := indexSources(s, nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := ix.Backlog(all)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}

	same("first search", search(start), scan)
	said("first search", "building it in the background; scanning")
	if starts != 1 {
		t.Fatalf("%d builds started, want 1", starts)
	}
	if b := backlog(); b.Bytes != b.Total || b.Total < catchUpFloor {
		t.Fatalf("the search built the index itself: backlog %+v", b)
	}

	// The build holds the index's lock: no second one, no wait.
	ix, err := openIndex(s, &SearchIndex{CacheDir: cache}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fl := flock.New(filepath.Join(ix.Dir(), "lock"))
	if ok, err := fl.TryLock(); !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	same("while it is built", search(start), scan)
	said("while it is built", "being indexed by another process; scanning")
	fl.Unlock()
	if starts != 1 {
		t.Fatalf("%d builds started, want 1", starts)
	}
	// The build stopped before it finished (the lock is free, the index
	// not built): no other is started for a while.
	same("after a build that stopped", search(start), scan)
	said("after a build that stopped", "stopped before it finished; scanning")
	if starts != 1 {
		t.Fatalf("%d builds started, want 1", starts)
	}
	old := time.Now().Add(-backgroundRetry - time.Second)
	if err := os.Chtimes(filepath.Join(ix.Dir(), backgroundMarker), old, old); err != nil {
		t.Fatal(err)
	}
	same("a while after", search(start), scan)
	said("a while after", "building it in the background; scanning")
	if starts != 2 {
		t.Fatalf("%d builds started, want 2", starts)
	}

	// Built (what the background process does): answered from the index.
	all, err := indexSources(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.Update(context.Background(), all); err != nil {
		t.Fatal(err)
	}
	same("built", search(start), scan)
	if _, err := os.Stat(filepath.Join(ix.Dir(), backgroundMarker)); !os.IsNotExist(err) {
		t.Fatalf("the marker of the background build outlived the build: %v", err)
	}
	for _, d := range debug {
		if strings.Contains(d, "scanning") {
			t.Fatalf("built: %q", debug)
		}
	}
	said("built", "search index: ")

	// A few more messages: a catch-up, inline.
	appendMessages(t, s.Dir.Path, 6000, 20, 100, needle)
	a := search(start)
	if starts != 2 || a.Total != 2 {
		t.Fatalf("catch-up: %d hits, %d builds started (debug %q)", a.Total, starts, debug)
	}
	if b := backlog(); b.Bytes != 0 {
		t.Fatalf("after the catch-up: %+v", b)
	}

	// No background builds: the search updates inline.
	if err := CloseIndexes(); err != nil {
		t.Fatal(err)
	}
	cache = t.TempDir()
	scan, err = Search(s, q(nil))
	if err != nil {
		t.Fatal(err)
	}
	same("inline", search(nil), scan)
	for _, d := range debug {
		if strings.Contains(d, "background") {
			t.Fatalf("inline: %q", debug)
		}
	}
	if b := backlog(); b.Bytes == b.Total {
		t.Fatalf("the inline update indexed nothing: %+v (debug %q)", b, debug)
	}
}

// A build in the background whose state dir goes away stops, keeping what
// it finished, and writes nothing but the cache dir (the state dir is not
// made again); one that finds another process updating the index does
// nothing.
func TestBackgroundBuildStateGone(t *testing.T) {
	s := bigState(t, 100, 100, "x")
	cache := t.TempDir()
	all, err := indexSources(s, nil)
	if err != nil {
		t.Fatal(err)
	}
	ix, err := openIndex(s, &SearchIndex{CacheDir: cache}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fl := flock.New(filepath.Join(ix.Dir(), "lock"))
	if ok, err := fl.TryLock(); !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	if err := background(context.Background(), s, &SearchIndex{CacheDir: cache}, nil, all); err != nil {
		t.Fatalf("busy: %v", err)
	}
	fl.Unlock()
	if b, err := ix.Backlog(all); err != nil || b.Bytes != b.Total {
		t.Fatalf("built while another process held the lock: %+v %v", b, err)
	}

	moved := s.Dir.Path + ".moved"
	if err := os.Rename(s.Dir.Path, moved); err != nil {
		t.Fatal(err)
	}
	before := tree(t, moved)
	err = background(context.Background(), s, &SearchIndex{CacheDir: cache}, nil, all)
	if err == nil || !strings.Contains(err.Error(), "is gone: the background build stopped") {
		t.Fatalf("state gone: %v", err)
	}
	if _, err := os.Lstat(s.Dir.Path); !os.IsNotExist(err) {
		t.Fatalf("the state dir is back: %v", err)
	}
	if after := tree(t, moved); !reflect.DeepEqual(before, after) {
		t.Fatalf("the state changed:\n%v\n%v", before, after)
	}
}

// tree is every file under dir with its size and modification time.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out[p] = fmt.Sprint(fi.Mode(), fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sessions index says when a process holds the index's lock (a build in
// the background under way), and not otherwise; asking creates nothing.
func TestIndexUpdating(t *testing.T) {
	s := bigState(t, 10, 10, "x")
	cache := t.TempDir()
	a, err := Index(context.Background(), s, IndexQuery{CacheDir: cache, Update: true})
	if err != nil || a.Updating {
		t.Fatalf("after an update: updating %v, %v", a.Updating, err)
	}
	fl := flock.New(filepath.Join(a.Indexes[0].Dir, "lock"))
	if ok, err := fl.TryLock(); !ok || err != nil {
		t.Fatalf("lock: %v %v", ok, err)
	}
	if a, err = Index(context.Background(), s, IndexQuery{CacheDir: cache}); err != nil || !a.Updating {
		t.Fatalf("lock held: updating %v, %v", a.Updating, err)
	}
	fl.Unlock()
	if a, err = Index(context.Background(), s, IndexQuery{CacheDir: cache}); err != nil || a.Updating {
		t.Fatalf("released: updating %v, %v", a.Updating, err)
	}
	if searchindex.Updating(filepath.Join(cache, "none")) {
		t.Fatal("no index: updating")
	}
	if _, err := os.Stat(filepath.Join(cache, "none")); !os.IsNotExist(err) {
		t.Fatalf("Updating created something: %v", err)
	}
}

// An agent's search follows the same rule for its masked index: far
// behind, it answers by the scan at once (the masked scan's answer) and
// starts one build in the background; that build (Index with Background
// and the search's mask and mask key, run for the requester) builds the
// requester's masked index only, and then the search answers from it.
// A requester may run no other index action, nor a background build
// without a mask.
func TestMaskedSearchFarBehind(t *testing.T) {
	const needle = "zqxmaskedneedle"
	op := bigState(t, 6000, 1000, needle)
	s, err := state.Open(state.Options{StateDir: op.Dir.Path, As: "agent:main:main", Env: config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"}, Warn: func(string) {}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if s.Req.Operator() {
		t.Fatal("not a requester")
	}
	m, err := srch.Compile(srch.Query{Pattern: needle})
	if err != nil {
		t.Fatal(err)
	}
	mask := sanitize.NewRedactor(nil, nil)
	const maskKey = "test mask"
	o := &srch.Options{Matcher: m, Mask: mask, MaxLine: maskedMaxLine}
	q := func(x *SearchIndex) *SearchQuery {
		return &SearchQuery{AllAgents: true, IncludeArchived: true, Options: o, Limit: 10, Index: x}
	}
	scan, err := Search(s, q(nil))
	if err != nil || scan.Total != 1 {
		t.Fatalf("scan: %+v %v", scan, err)
	}
	cache := t.TempDir()
	starts := 0
	var debug []string
	// scanned: the work too is the scan's
	search := func(scanned bool) *SearchAnswer {
		t.Helper()
		debug = nil
		x := &SearchIndex{Pattern: srch.Query{Pattern: needle}, CacheDir: cache, MaskKey: maskKey,
			Background: func() error { starts++; return nil }, Debug: func(s string) { debug = append(debug, s) }}
		a, err := Search(s, q(x))
		if err != nil {
			t.Fatal(err)
		}
		if a.Total != scan.Total || !reflect.DeepEqual(a.Hits, scan.Hits) || !reflect.DeepEqual(a.Warnings, scan.Warnings) || (scanned && a.Work != scan.Work) {
			t.Fatalf("%d hits %+v work %+v, want %d %+v work %+v (debug %q)", a.Total, a.Hits, a.Work, scan.Total, scan.Hits, scan.Work, debug)
		}
		return a
	}
	said := func(what, line string) {
		t.Helper()
		if !slices.ContainsFunc(debug, func(d string) bool { return strings.Contains(d, line) }) {
			t.Fatalf("%s: debug %q, want a line saying %q", what, debug, line)
		}
	}
	search(true)
	said("first search", "building it in the background; scanning")
	if starts != 1 {
		t.Fatalf("%d builds started, want 1", starts)
	}

	// Not the requester's to ask: the status, an update, a build of the
	// raw index.
	for _, iq := range []IndexQuery{{}, {Update: true, Mask: mask, MaskKey: maskKey}, {Rebuild: true}, {Remove: true}, {Update: true, Background: true}} {
		iq.CacheDir = cache
		if _, err := Index(context.Background(), s, iq); apperr.CodeOf(err) != apperr.CodeForbidden {
			t.Fatalf("%+v: %v, want forbidden", iq, err)
		}
	}
	if _, err := Index(context.Background(), s, IndexQuery{CacheDir: cache, Update: true, Background: true, Mask: mask}); err == nil {
		t.Fatal("a masked build without a mask key")
	}

	// The builder the search starts.
	a, err := Index(context.Background(), s, IndexQuery{CacheDir: cache, Update: true, Background: true, Mask: mask, MaskKey: maskKey})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Indexes) != 0 || a.Stats != nil {
		t.Fatalf("the builder's answer holds a status: %+v", a)
	}
	search(false)
	for _, d := range debug {
		if strings.Contains(d, "scanning") || strings.Contains(d, "background") {
			t.Fatalf("built: %q", debug)
		}
	}
	said("built", "search index: ")
	if starts != 1 {
		t.Fatalf("%d builds started, want 1", starts)
	}
	all, err := indexSources(op, nil)
	if err != nil {
		t.Fatal(err)
	}
	sts, err := searchindex.Inspect(cache, searchindex.StateKey(op.Dir.Path), all)
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		if !st.Masked && st.Built {
			t.Fatalf("the masked builder built the raw index: %+v", sts)
		}
	}
	if len(sts) != 1 || !sts[0].Masked || !sts[0].Built {
		t.Fatalf("indexes %+v, want the masked one built", sts)
	}
}
