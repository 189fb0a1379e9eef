package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/openclaw/sessions/internal/render"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil"
)

// A 200 MB transcript opens in the session view as fast as `history` reads
// its newest page:
//
//	go test -run '^$' -bench 200MB -benchtime 10x ./internal/ui

// state200MB is the demo state with agent main's main session's
// transcript grown to 200 MB (about 200,000 messages of 1 KB), in a
// temporary dir of b.
func state200MB(b *testing.B) string {
	hugeState := filepath.Join(b.TempDir(), "state")
	func() {
		if err := testutil.CopyTree(testutil.Fixture(b), hugeState); err != nil {
			b.Fatal(err)
		}
		filler := strings.Repeat("lorem ipsum dolor sit amet ", 36)
		var buf bytes.Buffer
		for i := 0; buf.Len() < 200<<20; i++ {
			role := "user"
			if i%2 == 1 {
				role = "assistant"
			}
			line, _ := json.Marshal(map[string]any{"type": "message", "id": fmt.Sprintf("b%07d", i), "parentId": nil,
				"timestamp": "2026-11-26T12:00:00.000Z",
				"message": map[string]any{"role": role, "content": []map[string]any{{"type": "text", "text": fmt.Sprintf("%d %s", i, filler)}},
					"timestamp": 1795900000000 + i}})
			buf.Write(line)
			buf.WriteByte('\n')
		}
		p := filepath.Join(hugeState, mainTranscript)
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		if _, err := f.Write(buf.Bytes()); err != nil {
			b.Fatal(err)
		}
	}()
	return hugeState
}

func benchOps(b *testing.B, st string) func() *ops.Ops {
	home := b.TempDir()
	getenv := func(string) string { return "" }
	cfg := ops.Config{StateDir: st, Env: config.Env{Home: home, Getenv: getenv}, Getenv: getenv}
	return func() *ops.Ops { return ops.New(cfg) }
}

// BenchmarkHistoryPage200MB: what `sessions history main --limit 50` does —
// the session, its newest page, the page as text.
func BenchmarkHistoryPage200MB(b *testing.B) {
	newOps := benchOps(b, state200MB(b))
	page := func() int {
		o := newOps()
		ctx := context.Background()
		sess, err := o.Session(ctx, "main", "")
		if err != nil {
			b.Fatal(err)
		}
		defer sess.Close()
		res, err := o.History(ctx, sess, ops.HistoryQuery{Limit: pageSize})
		if err != nil {
			b.Fatal(err)
		}
		var out bytes.Buffer
		if err := render.Messages(&out, res.Messages); err != nil {
			b.Fatal(err)
		}
		return out.Len()
	}
	page()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		page()
	}
}

// BenchmarkOpen200MB: Enter on the session until its newest page is drawn
// (show's fields arrive beside it, on their own).
func BenchmarkOpen200MB(b *testing.B) {
	env := Env{Ops: benchOps(b, state200MB(b)), Styles: NewStyles(true), Now: time.Now}
	open := func() string {
		v := NewSessionView(env, state.Row{Key: "main", AgentID: "main", Kind: "main"})
		v.Update(v.readNewest()())
		defer v.Close()
		return v.Render(160, 48)
	}
	if frame := plain(open()); !strings.Contains(frame, "lorem ipsum") {
		b.Fatalf("frame:\n%s", frame)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		open()
	}
}

// BenchmarkBurst10k: 500 updated sessions arrive at once on a 10,000-row
// view, then the frame is drawn (the rows are sorted once, not per event).
func BenchmarkBurst10k(b *testing.B) {
	env := Env{Ops: func() *ops.Ops { return ops.New(ops.Config{}) }, Styles: NewStyles(true), Now: time.Now}
	rows := make([]state.Row, 10_000)
	for i := range rows {
		at := float64(1795900000000 + i)
		rows[i] = state.Row{Key: fmt.Sprintf("agent:main:synthetic:s%d", i), AgentID: "main", Kind: "other", UpdatedAt: &at}
	}
	v := NewSessionsView(env, SessionsOptions{})
	v.Update(sessionsLoadedMsg{res: &ops.ListResult{Sessions: rows, Count: len(rows), TotalCount: len(rows)}})
	v.Render(160, 46)
	n := 0
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		for range 500 {
			n++
			at := float64(1795900000000 + 10_000 + n)
			key := fmt.Sprintf("agent:main:synthetic:s%d", n%10_000)
			v.Update(ChangedMsg{Event: ops.WatchEvent{Kind: "updated", AgentID: "main", Key: key,
				Session: &state.Row{Key: key, AgentID: "main", Kind: "other", UpdatedAt: &at}}})
		}
		v.Render(160, 46)
	}
}

// BenchmarkSearchKey200MB: what one key of the search view costs once its
// debounce is over — ops.Search and the hits drawn — on the 200 MB state,
// answered from the search index this process keeps open (built before the
// timer starts) beside the scan ($SESSIONS_NO_INDEX), for a rare and a
// common query (every hit counted: totalCount):
//
//	go test -run '^$' -bench SearchKey200MB -benchtime 10x ./internal/ui
func BenchmarkSearchKey200MB(b *testing.B) {
	st := state200MB(b)
	b.Setenv("XDG_CACHE_HOME", b.TempDir())
	defer func() { _ = ops.CloseSearchIndexes() }()
	for _, q := range []string{"150001 lorem", "lorem ipsum"} {
		for _, mode := range []string{"index", "scan"} {
			b.Run(mode+"/"+strings.ReplaceAll(q, " ", "_"), func(b *testing.B) {
				getenv := func(k string) string {
					if k == ops.NoIndexEnv && mode == "scan" {
						return "1"
					}
					return ""
				}
				home := b.TempDir()
				cfg := ops.Config{StateDir: st, Env: config.Env{Home: home, Getenv: getenv}, Getenv: getenv}
				env := Env{Ops: func() *ops.Ops { return ops.New(cfg) }, Styles: NewStyles(true), Now: time.Now}
				v := NewSearchView(env, SearchOptions{})
				key := func() {
					v.gen++
					v.Update(v.start(q)())
					_ = v.Render(120, 40)
				}
				key() // the index brought up to date and opened
				if v.err != nil || v.total == 0 {
					b.Fatalf("%q: %d hits, %v", q, v.total, v.err)
				}
				for b.Loop() {
					key()
				}
				b.ReportMetric(float64(v.total), "hits")
			})
		}
	}
}
