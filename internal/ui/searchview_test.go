package ui

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/openclaw/sessions/internal/ops"
)

// searchEnv is testEnv with the search index's cache in a temporary
// directory.
func searchEnv(t *testing.T, fixture string) (Env, string) {
	t.Helper()
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Cleanup(func() { _ = ops.CloseSearchIndexes() })
	return testEnv(t, fixture)
}

// noWait makes v's debounce hand its tick over at once (the wait is the
// timer's; what is tested is which tick searches).
func noWait(v *SearchView) *SearchView {
	v.after = func(m tea.Msg) tea.Cmd { return func() tea.Msg { return m } }
	return v
}

// typed types s into the search view and returns the debounce ticks its
// keys asked for (one a key that changed the query).
func typed(t *testing.T, v *SearchView, s string) []searchTickMsg {
	t.Helper()
	var ticks []searchTickMsg
	for _, r := range s {
		_, cmd := v.Update(press(string(r)))
		for _, m := range msgsOf(t, cmd) {
			if tk, ok := m.(searchTickMsg); ok {
				ticks = append(ticks, tk)
			}
		}
	}
	return ticks
}

// runSearch delivers tick to v and runs the search it starts; it returns
// the answer message (nil when the tick started nothing).
func runSearch(t *testing.T, v *SearchView, tick searchTickMsg) tea.Msg {
	t.Helper()
	_, cmd := v.Update(tick)
	if cmd == nil {
		return nil
	}
	for _, m := range msgsOf(t, cmd) {
		if r, ok := m.(searchResultMsg); ok {
			return r
		}
	}
	t.Fatalf("the tick's command sent no answer")
	return nil
}

func TestSearchViewTypingDebouncesAndAnswers(t *testing.T) {
	env, _ := searchEnv(t, "state-2026.1.30")
	v := noWait(NewSearchView(env, SearchOptions{AllAgents: true}))
	v.Init()
	if !v.Capturing() {
		t.Fatal("the search box does not have the keys")
	}
	ticks := typed(t, v, "hello")
	if len(ticks) != 5 {
		t.Fatalf("%d debounce ticks for 5 keys", len(ticks))
	}
	// every key restarts the wait: only the last tick searches
	for _, tk := range ticks[:4] {
		if _, cmd := v.Update(tk); cmd != nil {
			t.Fatalf("a stale tick (%q) searched", tk.query)
		}
	}
	ans := runSearch(t, v, ticks[4])
	if ans == nil {
		t.Fatal("the last tick did not search")
	}
	v.Update(ans)
	// smart case: a lowercase query ignores case, as -i
	if v.total != 4 || len(v.hits) != 4 {
		t.Fatalf("hello: %d hits of %d, want 4 of 4 (-i)", len(v.hits), v.total)
	}
	frame := plain(v.Render(120, 20))
	for _, want := range []string{"4 hits", "agent:main:signal:group:", "assistant", "MOCK reply #1: Hello from the peer generator", "main"} {
		if !strings.Contains(frame, want) {
			t.Errorf("frame lacks %q:\n%s", want, frame)
		}
	}
	// an uppercase letter makes it case-sensitive
	ticks = typed(t, v, "X")
	v.Update(runSearch(t, v, ticks[len(ticks)-1]))
	if v.total != 0 || !strings.Contains(plain(v.Render(120, 20)), "no hit") {
		t.Fatalf("helloX: %d hits:\n%s", v.total, plain(v.Render(120, 20)))
	}
}

func TestSearchViewShortQueryWaits(t *testing.T) {
	env, _ := searchEnv(t, "state-2026.1.30")
	v := noWait(NewSearchView(env, SearchOptions{AllAgents: true}))
	ticks := typed(t, v, "he")
	if ans := runSearch(t, v, ticks[len(ticks)-1]); ans != nil {
		t.Fatalf("a 2-byte query searched: %#v", ans)
	}
	if !strings.Contains(plain(v.Render(100, 10)), "3 or more bytes") {
		t.Fatalf("no hint:\n%s", plain(v.Render(100, 10)))
	}
	// one CJK character is 3 bytes: it searches
	v2 := noWait(NewSearchView(env, SearchOptions{AllAgents: true}))
	ticks = typed(t, v2, "再")
	if ans := runSearch(t, v2, ticks[0]); ans == nil {
		t.Fatal("a 3-byte CJK query did not search")
	}
}

func TestSearchViewNewerQueryCancelsOlder(t *testing.T) {
	env, _ := searchEnv(t, "state-2026.1.30")
	v := noWait(NewSearchView(env, SearchOptions{AllAgents: true}))
	ticks := typed(t, v, "hello")
	_, first := v.Update(ticks[len(ticks)-1]) // the search starts, not run yet
	if first == nil || v.ctx == nil {
		t.Fatal("no search started")
	}
	older := v.ctx
	// a newer query cancels the older search, and waits for it to end:
	// one search at a time
	ticks = typed(t, v, " gr")
	if _, cmd := v.Update(ticks[len(ticks)-1]); cmd != nil {
		t.Fatal("a second search ran beside the first")
	}
	if older.Err() == nil {
		t.Fatal("the newer query did not cancel the older search")
	}
	// the older search's answer is dropped, and the newer query searched
	var late tea.Msg
	for _, m := range msgsOf(t, first) {
		if r, ok := m.(searchResultMsg); ok {
			late = r
		}
	}
	if late == nil {
		t.Fatal("the older search sent no answer")
	}
	_, next := v.Update(late)
	if v.query != "" || len(v.hits) != 0 {
		t.Fatalf("the older answer was shown: %q, %d hits", v.query, len(v.hits))
	}
	if next == nil {
		t.Fatal("the waiting query was not searched when the older search ended")
	}
	for _, m := range msgsOf(t, next) {
		v.Update(m)
	}
	if v.query != "hello gr" || v.total != 2 {
		t.Fatalf("%d hits for %q, want 2 for \"hello gr\"", v.total, v.query)
	}
}

func TestSearchViewEnterJumpsToTheMessage(t *testing.T) {
	env, dir := searchEnv(t, "state-2026.1.30")
	tp := filepath.Join(dir, mainTranscript)
	// the needle, then enough messages after it that it is not on the
	// newest page
	appendLine(t, tp, messageLine("needle01", "user", []map[string]any{{"type": "text", "text": "where is the zqxneedle42 kept"}}))
	for i := range pageSize + 20 {
		appendLine(t, tp, messageLine(fmt.Sprintf("fill%04d", i), "assistant", []map[string]any{{"type": "text", "text": fmt.Sprintf("filler line %d", i)}}))
	}
	sv := loadedSessions(t, env, SessionsOptions{AllAgents: true})
	_, cmd := sv.Update(press("S"))
	var v *SearchView
	for _, m := range msgsOf(t, cmd) {
		if p, ok := m.(PushMsg); ok {
			v, _ = p.View.(*SearchView)
		}
	}
	if v == nil {
		t.Fatal("S did not open the search view")
	}
	noWait(v)
	ticks := typed(t, v, "zqxneedle42")
	v.Update(runSearch(t, v, ticks[len(ticks)-1]))
	if len(v.hits) != 1 || v.hits[0].ID != "needle01" {
		t.Fatalf("hits %+v", v.hits)
	}
	_, cmd = v.Update(press("enter"))
	var sess *SessionView
	for _, m := range msgsOf(t, cmd) {
		if p, ok := m.(PushMsg); ok {
			sess, _ = p.View.(*SessionView)
		}
	}
	if sess == nil {
		t.Fatal("enter did not open the session")
	}
	t.Cleanup(sess.Close)
	if sess.row.Key != "main" || sess.row.Model == "" {
		t.Fatalf("the session opened on %+v, not the listing's row", sess.row)
	}
	runJump(t, sess)
	frame := plain(sess.Render(100, 30))
	if !strings.Contains(frame, "where is the zqxneedle42 kept") {
		t.Fatalf("the hit's message is not in view:\n%s", frame)
	}
	if strings.Contains(frame, fmt.Sprintf("filler line %d", pageSize+19)) {
		t.Fatalf("the view is still at the newest message:\n%s", frame)
	}
	// highlighted: its lines carry the hit's mark
	var marked bool
	for _, l := range strings.Split(frame, "\n") {
		if strings.Contains(l, "zqxneedle42") && strings.HasPrefix(l, "▶") {
			marked = true
		}
	}
	if !marked {
		t.Fatalf("the hit's message is not highlighted:\n%s", frame)
	}
	// the hit's page reaches the newest page: every message once, no gap
	if n := len(sess.msgs); n != 17+1+pageSize+20 {
		t.Errorf("%d messages drawn, want the transcript's %d", n, 17+1+pageSize+20)
	}
	for _, m := range sess.msgs {
		if m.notice != "" {
			t.Errorf("a gap is said: %s", m.notice)
		}
	}
	// esc leaves the session, and from the search view goes back
	if _, c := sess.Update(press("esc")); !isPop(t, c) {
		t.Fatal("esc did not leave the session")
	}
	if _, c := v.Update(press("esc")); !isPop(t, c) {
		t.Fatal("esc did not leave the search")
	}
}

// runJump runs a session view opened at a hit until its page is read
// and the hit's page put in place (the commands run as the program runs
// them: each on its own; the follow's wait is left waiting).
func runJump(t *testing.T, sess *SessionView) {
	t.Helper()
	out := make(chan tea.Msg, 64)
	var run func(tea.Cmd)
	run = func(cmd tea.Cmd) {
		if cmd == nil {
			return
		}
		go func() {
			m := cmd()
			if b, ok := m.(tea.BatchMsg); ok {
				for _, c := range b {
					run(c)
				}
				return
			}
			out <- m
		}()
	}
	run(sess.Init())
	deadline := time.After(60 * time.Second)
	for !sess.opened || sess.jumpTo != nil || sess.loading {
		select {
		case m := <-out:
			_, c := sess.Update(m)
			run(c)
		case <-deadline:
			t.Fatal("the hit's message was never reached")
		}
	}
}

// openHit opens the session of the search's hit with id, as Enter does.
func openHit(t *testing.T, v *SearchView, id string) *SessionView {
	t.Helper()
	v.cursor = -1
	for i, h := range v.hits {
		if h.ID == id {
			v.cursor = i
		}
	}
	if v.cursor < 0 {
		t.Fatalf("no hit %s among %+v", id, v.hits)
	}
	_, cmd := v.Update(press("enter"))
	for _, m := range msgsOf(t, cmd) {
		if p, ok := m.(PushMsg); ok {
			if sess, ok := p.View.(*SessionView); ok {
				t.Cleanup(sess.Close)
				return sess
			}
		}
	}
	t.Fatal("enter did not open the session")
	return nil
}

// Two messages with the same text (and role): Enter on the older one's
// hit marks that one, not the newer twin nearer the end — the jump names
// the message by its id, not by its text.
func TestSearchViewJumpTellsTwinsApart(t *testing.T) {
	env, dir := searchEnv(t, "state-2026.1.30")
	tp := filepath.Join(dir, mainTranscript)
	twin := func(id string, at int64) map[string]any {
		l := messageLine(id, "user", []map[string]any{{"type": "text", "text": "the zqxtwin answer is 42"}})
		l["message"].(map[string]any)["timestamp"] = at
		return l
	}
	older, newer := fixedNow.UnixMilli()-3_600_000, fixedNow.UnixMilli()-60_000
	appendLine(t, tp, twin("twinA", older))
	for i := range 10 {
		appendLine(t, tp, messageLine(fmt.Sprintf("mid%04d", i), "assistant", []map[string]any{{"type": "text", "text": fmt.Sprintf("between %d", i)}}))
	}
	appendLine(t, tp, twin("twinB", newer))
	for i := range pageSize + 10 {
		appendLine(t, tp, messageLine(fmt.Sprintf("fill%04d", i), "assistant", []map[string]any{{"type": "text", "text": fmt.Sprintf("filler line %d", i)}}))
	}
	v := noWait(NewSearchView(env, SearchOptions{AllAgents: true}))
	ticks := typed(t, v, "zqxtwin")
	v.Update(runSearch(t, v, ticks[len(ticks)-1]))
	if v.total != 2 {
		t.Fatalf("%d hits, want the two twins", v.total)
	}
	for _, c := range []struct {
		id string
		at int64
	}{{"twinA", older}, {"twinB", newer}} {
		sess := openHit(t, v, c.id)
		runJump(t, sess)
		var hits, twins []int64
		for _, m := range sess.msgs {
			if m.hit {
				hits = append(hits, m.at)
			}
			if len(m.blocks) > 0 && m.blocks[0].text == "the zqxtwin answer is 42" {
				twins = append(twins, m.at)
			}
		}
		if len(twins) != 2 || len(hits) != 1 || hits[0] != c.at {
			t.Fatalf("%s: marked %v, want [%d] (the twins drawn: %v)", c.id, hits, c.at, twins)
		}
		frame := plain(sess.Render(100, 30))
		var marked bool
		for _, l := range strings.Split(frame, "\n") {
			marked = marked || strings.HasPrefix(l, "▶") && strings.Contains(l, "zqxtwin")
		}
		if !marked {
			t.Fatalf("%s: the marked twin is not in view:\n%s", c.id, frame)
		}
		sess.Close()
	}
}

func isPop(t *testing.T, cmd tea.Cmd) bool {
	for _, m := range msgsOf(t, cmd) {
		if _, ok := m.(PopMsg); ok {
			return true
		}
	}
	return false
}

func TestSearchViewThroughGatewaySaysItCannot(t *testing.T) {
	env, _ := searchEnv(t, "state-2026.1.30")
	env = envFor(env, "prod") // --context prod: a gateway the invocation names
	v := noWait(NewSearchView(env, SearchOptions{}))
	for _, m := range msgsOf(t, v.Init()) {
		v.Update(m)
	}
	frame := plain(v.Render(120, 10))
	if !strings.Contains(frame, "does not work through a gateway") {
		t.Fatalf("no refusal:\n%s", frame)
	}
	ticks := typed(t, v, "hello")
	if len(ticks) != 0 {
		t.Fatal("a refused search still debounces queries")
	}
}

func TestSearchKeyInHelp(t *testing.T) {
	a, _ := loadedApp(t, Options{Views: DefaultViews()})
	a.Update(press("?"))
	if !strings.Contains(plain(a.Frame()), "search every session") {
		t.Fatalf("help lacks the search key:\n%s", plain(a.Frame()))
	}
	a.Update(press("x")) // closes the help
	// in the search view ? is typed: the status line does not offer help
	_, cmd := a.Update(press("S"))
	for _, m := range msgsOf(t, cmd) {
		a.Update(m)
	}
	a.Update(press("?"))
	frame := plain(a.Frame())
	lines := strings.Split(frame, "\n")
	if last := lines[len(lines)-1]; !strings.Contains(frame, "search every session: ?") || strings.Contains(last, "? help") || !strings.Contains(last, "enter open · esc back") {
		t.Fatalf("search view:\n%s", frame)
	}
}

// TestSearchViewJumpSQLite: on a 2026.8+ store (the hit read from
// OpenClaw's index or the events) Enter marks the hit's message too.
func TestSearchViewJumpSQLite(t *testing.T) {
	env, _ := searchEnv(t, "state-2026.9.6")
	v := noWait(NewSearchView(env, SearchOptions{AllAgents: true}))
	ticks := typed(t, v, "returned 15 chars")
	v.Update(runSearch(t, v, ticks[len(ticks)-1]))
	if len(v.hits) != 1 || v.hits[0].Key != "main" || v.hits[0].Role != "assistant" {
		t.Fatalf("hits %+v", v.hits)
	}
	_, cmd := v.Update(press("enter"))
	var sess *SessionView
	for _, m := range msgsOf(t, cmd) {
		if p, ok := m.(PushMsg); ok {
			sess, _ = p.View.(*SessionView)
		}
	}
	if sess == nil {
		t.Fatal("enter did not open the session")
	}
	t.Cleanup(sess.Close)
	runJump(t, sess)
	var marked []string
	for _, l := range strings.Split(plain(sess.Render(100, 30)), "\n") {
		if strings.HasPrefix(l, "▶") {
			marked = append(marked, l)
		}
	}
	if len(marked) != 2 || !strings.Contains(marked[0], "assistant") || !strings.Contains(marked[1], "MOCK: tool exec returned 15 chars: hello-from-exec") {
		t.Fatalf("marked lines %q", marked)
	}
}

// TestSearchViewMasksForARequester: with a requester (--as), the search
// is an agent's, as `sessions search --as` is: hits from the masked text
// (a secret is neither shown nor findable), and Enter still finds the
// hit's message in the masked transcript.
func TestSearchViewMasksForARequester(t *testing.T) {
	env, dir := searchEnv(t, "state-2026.1.30")
	appendLine(t, filepath.Join(dir, mainTranscript), messageLine("secret01", "user",
		[]map[string]any{{"type": "text", "text": "use sk-abcdefghijklmnop1234 please, zqxmasked"}}))
	base := env.Ops
	env.Ops = func() *ops.Ops {
		cfg := base().Config()
		cfg.As = "main"
		return ops.New(cfg)
	}
	v := noWait(NewSearchView(env, SearchOptions{}))
	ticks := typed(t, v, "zqxmasked")
	v.Update(runSearch(t, v, ticks[len(ticks)-1]))
	frame := plain(v.Render(160, 10))
	if v.total != 1 || strings.Contains(frame, "sk-abcdefghijklmnop1234") || !strings.Contains(frame, "sk-abc…1234") {
		t.Fatalf("%d hits, the secret not masked:\n%s", v.total, frame)
	}
	v2 := noWait(NewSearchView(env, SearchOptions{}))
	ticks = typed(t, v2, "sk-abcdef")
	v2.Update(runSearch(t, v2, ticks[len(ticks)-1]))
	if v2.total != 0 {
		t.Fatalf("the masked secret was found: %d hits", v2.total)
	}
	_, cmd := v.Update(press("enter"))
	var sess *SessionView
	for _, m := range msgsOf(t, cmd) {
		if p, ok := m.(PushMsg); ok {
			sess, _ = p.View.(*SessionView)
		}
	}
	if sess == nil {
		t.Fatal("enter did not open the session")
	}
	t.Cleanup(sess.Close)
	runJump(t, sess)
	if !strings.Contains(plain(sess.Render(120, 30)), "▶  use sk-abc…1234 please") {
		t.Fatalf("the masked hit's message is not marked:\n%s", plain(sess.Render(120, 30)))
	}
}
