package transcript

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/lock"
)

var at = time.Date(2026, 1, 30, 12, 34, 56, 789_000_000, time.UTC)

func fixedNow() time.Time { return at }

func TestPayloadFormats(t *testing.T) {
	cases := map[string]struct{ got, want string }{
		"user": {string(UserMessage("hi <there> & \"you\"", at)),
			`{"role":"user","content":[{"type":"text","text":"hi <there> & \"you\""}],"timestamp":1769776496789}`},
		"assistant": {string(AssistantMessage{
			Content:   []json.RawMessage{TextBlock("hello")},
			API:       "openai-completions",
			Provider:  "mock",
			Model:     "mock-1",
			Usage:     Usage{Input: 10, Output: 2, CacheRead: 3, TotalTokens: 15, Cost: Cost{Input: 0.001, Total: 0.001}},
			Timestamp: at,
		}.JSON()),
			`{"role":"assistant","content":[{"type":"text","text":"hello"}],"api":"openai-completions","provider":"mock","model":"mock-1","usage":{"input":10,"output":2,"cacheRead":3,"cacheWrite":0,"totalTokens":15,"cost":{"input":0.001,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.001}},"stopReason":"stop","timestamp":1769776496789}`},
		"assistant error": {string(AssistantMessage{API: "a", Provider: "p", Model: "m", StopReason: "error", ErrorMessage: "boom", Timestamp: at}.JSON()),
			`{"role":"assistant","content":[],"api":"a","provider":"p","model":"m","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"error","errorMessage":"boom","timestamp":1769776496789}`},
		"delivery mirror": {string(DeliveryMirrorMessage("sent it", at)),
			`{"role":"assistant","content":[{"type":"text","text":"sent it"}],"api":"openai-responses","provider":"openclaw","model":"delivery-mirror","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1769776496789}`},
		"tool result": {string(ToolResultMessage("call_1", "exec", []json.RawMessage{TextBlock("ok")}, json.RawMessage(`{"code":0}`), false, at)),
			`{"role":"toolResult","toolCallId":"call_1","toolName":"exec","content":[{"type":"text","text":"ok"}],"details":{"code":0},"isError":false,"timestamp":1769776496789}`},
		"tool result no details": {string(ToolResultMessage("c", "t", nil, nil, true, at)),
			`{"role":"toolResult","toolCallId":"c","toolName":"t","content":[],"isError":true,"timestamp":1769776496789}`},
	}
	for name, c := range cases {
		if c.got != c.want {
			t.Errorf("%s:\n got  %s\n want %s", name, c.got, c.want)
		}
	}
	for _, c := range []struct {
		text  string
		media []string
		want  string
	}{
		{"  hello  ", []string{"https://x/a.png"}, "hello"},
		{"", []string{"https://cdn.example/media/a.png?x=1", "file:///tmp/b%20c.jpg"}, "a.png, b c.jpg"},
		{" ", []string{"https://example.com/"}, "media"},
		{"", nil, ""},
	} {
		if got := MirrorText(c.text, c.media); got != c.want {
			t.Errorf("MirrorText(%q, %v) = %q, want %q", c.text, c.media, got, c.want)
		}
	}
}

func readLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("no final newline")
	}
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("bad line %q: %v", sc.Text(), err)
		}
		out = append(out, m)
	}
	return out
}

func TestAppendCreatesHeaderAndChain(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s1.jsonl")
	res, err := Append(context.Background(), file, AppendOptions{SessionID: "s1", Cwd: "/ws", Now: fixedNow},
		UserMessage("q", at), AssistantMessage{Content: []json.RawMessage{TextBlock("a")}, API: "x", Provider: "p", Model: "m", Timestamp: at}.JSON())
	if err != nil {
		t.Fatal(err)
	}
	if !res.Created || res.ParentID != "" || len(res.IDs) != 2 {
		t.Fatalf("res %+v", res)
	}
	data, _ := os.ReadFile(file)
	first, _, _ := strings.Cut(string(data), "\n")
	if want := `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-30T12:34:56.789Z","cwd":"/ws"}`; first != want {
		t.Errorf("header %s\nwant   %s", first, want)
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if want := fmt.Sprintf(`{"type":"message","id":"%s","parentId":null,"timestamp":"2026-01-30T12:34:56.789Z","message":{"role":"user"`, res.IDs[0]); !strings.HasPrefix(lines[1], want) {
		t.Errorf("line 2 %s", lines[1])
	}
	ls := readLines(t, file)
	if ls[2]["parentId"] != res.IDs[0] || ls[2]["id"] != res.IDs[1] {
		t.Errorf("chain: %v", ls[2])
	}
	st, _ := os.Stat(file)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	// A second batch chains onto the last entry in file order.
	res2, err := Append(context.Background(), file, AppendOptions{Now: fixedNow}, UserMessage("again", at))
	if err != nil {
		t.Fatal(err)
	}
	if res2.Created || res2.ParentID != res.IDs[1] {
		t.Errorf("res2 %+v", res2)
	}
	if id, _, _ := LastEntryID(file); id != res2.LastID() {
		t.Errorf("leaf %s, want %s", id, res2.LastID())
	}
	if _, err := os.Stat(file + ".lock"); !os.IsNotExist(err) {
		t.Error("lock left")
	}
}

// TestAppendRefusesTruncatable: format §4.5 — OpenClaw truncates a
// transcript without an assistant message before its next run.
func TestAppendRefusesTruncatable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.jsonl")
	_, err := Append(context.Background(), file, AppendOptions{SessionID: "s"}, UserMessage("lost?", at))
	if !errors.Is(err, ErrNoAssistant) || apperr.CodeOf(err) != apperr.CodeError {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Error("file created")
	}
	header := `{"type":"session","version":3,"id":"s","timestamp":"2026-01-30T12:34:56.789Z","cwd":"/"}` + "\n"
	_ = os.WriteFile(file, []byte(header), 0o644)
	_, err = Append(context.Background(), file, AppendOptions{}, UserMessage("lost?", at), ToolResultMessage("c", "t", nil, nil, false, at))
	if !errors.Is(err, ErrNoAssistant) {
		t.Fatalf("err = %v", err)
	}
	if got, _ := os.ReadFile(file); string(got) != header {
		t.Error("header-only transcript changed")
	}
	// With the reply in the same batch it is accepted; afterwards user-only
	// appends are fine.
	if _, err := Append(context.Background(), file, AppendOptions{}, UserMessage("q", at), DeliveryMirrorMessage("a", at)); err != nil {
		t.Fatal(err)
	}
	if _, err := Append(context.Background(), file, AppendOptions{}, UserMessage("q2", at)); err != nil {
		t.Fatal(err)
	}
}

func TestAppendRefusesBadHeader(t *testing.T) {
	for name, content := range map[string]string{
		"no header":   `{"type":"message","id":"a","parentId":null,"timestamp":"x","message":{"role":"assistant","content":[]}}` + "\n",
		"garbage":     "not json\n",
		"id not str":  `{"type":"session","id":5}` + "\n",
		"blank first": "\n\n",
	} {
		t.Run(name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "s.jsonl")
			_ = os.WriteFile(file, []byte(content), 0o644)
			_, err := Append(context.Background(), file, AppendOptions{SessionID: "s"}, DeliveryMirrorMessage("x", at))
			if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), file) {
				t.Fatalf("err = %v", err)
			}
			if got, _ := os.ReadFile(file); string(got) != content {
				t.Error("file changed")
			}
		})
	}
}

func TestAppendTerminatesTornLine(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.jsonl")
	content := `{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/"}` + "\n" +
		`{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"t","message":{"role":"assistant","content":[]}}` + "\n" +
		`{"type":"message","id":"bbbb`
	_ = os.WriteFile(file, []byte(content), 0o644)
	res, err := Append(context.Background(), file, AppendOptions{}, UserMessage("q", at))
	if err != nil {
		t.Fatal(err)
	}
	if res.ParentID != "aaaaaaaa" {
		t.Errorf("parent %q", res.ParentID)
	}
	data, _ := os.ReadFile(file)
	if !bytes.HasPrefix(data, []byte(content+"\n{")) {
		t.Errorf("torn line not terminated:\n%s", data)
	}
}

func TestFreshIDsAvoidExisting(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.jsonl")
	// A file large enough to span several read blocks, every id quoted.
	var b bytes.Buffer
	for b.Len() < 3<<20 {
		fmt.Fprintf(&b, "{\"id\":\"%s\"}\n", randomID())
	}
	_ = os.WriteFile(file, b.Bytes(), 0o644)
	ids, err := freshIDs(file, true, 50)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if len(id) != 8 || seen[id] || bytes.Contains(b.Bytes(), []byte(`"`+id+`"`)) {
			t.Errorf("bad id %q", id)
		}
		seen[id] = true
	}
	// occurring finds a needle straddling a block boundary.
	data := bytes.Repeat([]byte("x"), (1<<20)-4)
	data = append(data, []byte(`"deadbeef"`)...)
	_ = os.WriteFile(file, data, 0o644)
	if found, _ := occurring(file, []string{"deadbeef"}); !found["deadbeef"] {
		t.Error("straddling id not found")
	}
}

func TestAppendLockHeld(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.jsonl")
	h, err := lock.AcquireTranscript(context.Background(), file, lock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	_, err = Append(context.Background(), file, AppendOptions{SessionID: "s", LockTimeout: 150 * time.Millisecond}, DeliveryMirrorMessage("x", at))
	if apperr.CodeOf(err) != apperr.CodeLock || !strings.Contains(err.Error(), fmt.Sprintf("pid=%d", os.Getpid())) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Error("file created")
	}
}

// TestAppendConcurrentLinearChain: goroutines appending at once produce one
// linear chain (every parentId is the previous line's id).
func TestAppendConcurrentLinearChain(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.jsonl")
	const workers, each = 6, 20
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if _, err := Append(context.Background(), file, AppendOptions{SessionID: "s", Cwd: "/"}, DeliveryMirrorMessage(fmt.Sprintf("w%d #%d", w, i), time.Now())); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	ls := readLines(t, file)
	if len(ls) != 1+workers*each || ls[0]["type"] != "session" {
		t.Fatalf("%d lines", len(ls))
	}
	prev := any(nil)
	for i, l := range ls[1:] {
		if l["parentId"] != prev {
			t.Fatalf("line %d: parentId %v, want %v", i+2, l["parentId"], prev)
		}
		prev = l["id"]
	}
}
