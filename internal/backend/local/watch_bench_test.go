package local

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/openclaw/sessions/internal/backend"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/testutil/rusage"
	"github.com/openclaw/sessions/internal/testutil/storegen"
	"github.com/openclaw/sessions/internal/watch"
)

// watch10k is a feed's first snapshot of a 10,000-session JSON store with
// its transcripts (storegen.State), and the store's path.
func watch10k(b *testing.B, messages bool) (*localWatch, string) {
	dir := storegen.State(b, 10_000)
	env := config.Env{Home: b.TempDir(), Getenv: func(string) string { return "" }}
	l := &Local{State: func() (*state.State, error) { return state.Open(state.Options{StateDir: dir, Env: env}) }, Warn: func(string) {}}
	w, err := l.startWatch(backend.WatchQuery{Messages: messages}, func([]watch.Event) error { return nil })
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(w.close)
	if len(w.order) != 1 || len(w.order[0].snap) != 10_000 {
		b.Fatalf("snapshot of %d stores", len(w.order))
	}
	return w, filepath.Join(dir, "agents", "main", "sessions", "sessions.json")
}

// BenchmarkWatchOneChange10k: what a feed does after OpenClaw rewrote a
// 10,000-session sessions.json to change one session (its totalTokens):
// find the members that changed (storediff: the common prefix and suffix
// of the two versions), parse and diff the one, the updated event.
// Writing the file is not timed.
func BenchmarkWatchOneChange10k(b *testing.B) { benchOneChange(b, false) }

// BenchmarkWatchOneChange10kFull: the same change read as a feed without
// storediff would (and this one does for another layout): the whole store
// parsed again, every entry compared.
func BenchmarkWatchOneChange10kFull(b *testing.B) { benchOneChange(b, true) }

func benchOneChange(b *testing.B, full bool) {
	w, path := watch10k(b, false)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	at := bytes.Index(data, []byte(`"totalTokens": `))
	if at < 0 {
		b.Fatal("no totalTokens in the store")
	}
	at += len(`"totalTokens": `)
	end := at + bytes.IndexAny(data[at:], ",\n}")
	versions := make([][]byte, 2)
	for i := range versions {
		v := append([]byte(nil), data[:at]...)
		v = append(v, strconv.Itoa(100000+i)...)
		versions[i] = append(v, data[end:]...)
	}
	js := w.order[0]
	var cpu, sys int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		// As OpenClaw writes it: a new file renamed over the old one.
		if err := os.WriteFile(path+".tmp", versions[i%2], 0o600); err != nil {
			b.Fatal(err)
		}
		if err := os.Rename(path+".tmp", path); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if full {
			js.index = nil
		}
		c0, s0 := int64(rusage.CPU()), int64(rusage.Sys())
		evs, err := w.loadJSON(js, false)
		cpu += int64(rusage.CPU()) - c0
		sys += int64(rusage.Sys()) - s0
		if err != nil || len(evs) != 1 || evs[0].Kind != watch.Updated {
			b.Fatalf("events %+v, %v", evs, err)
		}
	}
	b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(sys)/float64(b.N)/1e6, "sys-ms/op")
}

// BenchmarkWatchMessage10k: a message appended to one transcript of the
// 10,000-session store: the appended line read and its event.
func BenchmarkWatchMessage10k(b *testing.B) {
	w, _ := watch10k(b, true)
	js := w.order[0]
	var tp string
	for _, it := range js.snap {
		if it.Transcript.Path != "" {
			tp = it.Transcript.Path
			break
		}
	}
	line := []byte(`{"type":"message","id":"b1","parentId":null,"timestamp":"2026-11-22T10:00:00.000Z","message":{"role":"assistant","content":[{"type":"text","text":"benchmark reply"}],"timestamp":1795255200000}}` + "\n")
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		f, err := os.OpenFile(tp, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		_, err = f.Write(line)
		f.Close()
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if evs := w.tailJSON(tp); len(evs) != 1 || evs[0].Kind != watch.Message {
			b.Fatalf("events %+v", evs)
		}
	}
}
