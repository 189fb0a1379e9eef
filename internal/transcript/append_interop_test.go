//go:build interop

// Interop of transcript.Append with the real OpenClaw 2026.1.30 / pi
// SessionManager (../shared/peer). Run: make interop.
package transcript

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/testutil/peertest"
)

// lastLine returns the last line of the file, parsed.
func lastLine(t *testing.T, file string) map[string]any {
	t.Helper()
	data, _ := os.ReadFile(file)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	var m map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestInteropAppendBesideOpenClaw: our appender (2 goroutines) beside ONE
// real pi/OpenClaw appender (transcript-append, under OpenClaw's transcript
// lock) on one transcript → one linear chain with every message
// (transcript-check). Then pi opens our transcript with our last line as its
// leaf: its next append's parentId is our last id.
func TestInteropAppendBesideOpenClaw(t *testing.T) {
	p := peertest.Peer(t)
	dir := t.TempDir()
	const sid = "3f6c1d2e-8a4b-4c5d-9e0f-1a2b3c4d5e6f"
	file := filepath.Join(dir, sid+".jsonl")
	// We create the transcript: header + [user, assistant].
	first, err := Append(context.Background(), file, AppendOptions{SessionID: sid, Cwd: dir},
		UserMessage("hello from sessions", time.Now()),
		AssistantMessage{Content: []json.RawMessage{TextBlock("hi")}, API: "openai-completions", Provider: "mock", Model: "mock-1", Usage: Usage{Input: 5, Output: 1, TotalTokens: 5}, Timestamp: time.Now()}.JSON())
	if err != nil {
		t.Fatal(err)
	}
	const peerN, gor, gorN = 300, 2, 150
	var wg sync.WaitGroup
	var peerOut string
	wg.Add(1)
	go func() {
		defer wg.Done()
		var err error
		if _, peerOut, err = peertest.Tool(p, "transcript-append", "--file", file, "--count", fmt.Sprint(peerN)); err != nil {
			t.Error(err)
		}
	}()
	var held []time.Duration
	var mu sync.Mutex
	for g := 0; g < gor; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < gorN; i++ {
				msg := DeliveryMirrorMessage(fmt.Sprintf("go %d #%d", g, i), time.Now())
				if i%2 == 1 {
					msg = UserMessage(fmt.Sprintf("go user %d #%d", g, i), time.Now())
				}
				res, err := Append(context.Background(), file, AppendOptions{LockTimeout: 60 * time.Second}, msg)
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				held = append(held, res.Held)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	want := 2 + peerN + gor*gorN
	check, err := peertest.TranscriptCheck(p, file, want)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("transcript-check (%d messages: 2 + %d OpenClaw + %d ours): %s; OpenClaw: %s", want, peerN, gor*gorN, check, peerOut)
	if first.ParentID != "" {
		t.Errorf("first parent %q", first.ParentID)
	}

	// Our last line is pi's leaf.
	ours, err := Append(context.Background(), file, AppendOptions{}, DeliveryMirrorMessage("our last line", time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	peertest.Cmd(t, p, "transcript-append", "--file", file, "--count", "1")
	if got := lastLine(t, file); got["parentId"] != ours.LastID() {
		t.Errorf("pi's next entry has parentId %v, want our last id %s", got["parentId"], ours.LastID())
	}
	if _, err := peertest.TranscriptCheck(p, file, want+2); err != nil {
		t.Fatal(err)
	}
}

// TestInteropPiReadsTranscriptWeCreated: a transcript we created (header +
// [user, assistant]) is opened by pi as valid: its append chains onto our
// last id and the header is kept (not rewritten with a random id).
func TestInteropPiReadsTranscriptWeCreated(t *testing.T) {
	p := peertest.Peer(t)
	dir := t.TempDir()
	const sid = "0b0c0d0e-1f2a-4b3c-8d4e-5f6a7b8c9d0e"
	file := filepath.Join(dir, sid+".jsonl")
	res, err := Append(context.Background(), file, AppendOptions{SessionID: sid, Cwd: dir},
		UserMessage("q", time.Now()), DeliveryMirrorMessage("a", time.Now()))
	if err != nil {
		t.Fatal(err)
	}
	peertest.Cmd(t, p, "transcript-append", "--file", file, "--count", "1", "--session-id", sid)
	if got := lastLine(t, file); got["parentId"] != res.LastID() {
		t.Errorf("parentId %v, want %s", got["parentId"], res.LastID())
	}
	h, _ := ReadHeader(file)
	if h == nil || h.ID != sid {
		t.Errorf("header rewritten: %+v", h)
	}
	if _, err := peertest.TranscriptCheck(p, file, 3); err != nil {
		t.Fatal(err)
	}
}
