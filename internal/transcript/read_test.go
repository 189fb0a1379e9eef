package transcript

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/tidwall/gjson"
)

// fixtureGlob: the real 2026.1.30 transcripts of the repository's testdata.
const fixtureGlob = "../../testdata/state-2026.1.30/agents/*/sessions/*.jsonl"

// setTunables shrinks the block/line thresholds for one test and restores
// them afterwards.
func setTunables(t testing.TB, block, big, probe, fwd int) {
	t.Helper()
	ob, og, op, of, oh := blockSize, bigLine, headProbe, fwdBuf, headerMax
	ofb, opm, ohp := firstBlock, probeMin, headerPeek
	blockSize, bigLine, headProbe, fwdBuf = block, big, probe, fwd
	// The first backward block grows from a quarter of block; tool results
	// are probed from the big-line size; the header peek is tiny, so the
	// slow path runs too.
	firstBlock, probeMin, headerPeek = max(1, block/4), big, max(1, block/8)
	t.Cleanup(func() {
		blockSize, bigLine, headProbe, fwdBuf, headerMax = ob, og, op, of, oh
		firstBlock, probeMin, headerPeek = ofb, opm, ohp
	})
}

func writeTranscript(t testing.TB, content []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "t.jsonl")
	if err := os.WriteFile(p, content, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// reference is an independent, whole-file implementation of the reading
// rules with encoding/json (JSON.parse semantics: last duplicate key wins).
func reference(content []byte, opts Options) (msgs []json.RawMessage, skipped int, size int64) {
	maxLine := opts.MaxLineBytes
	if maxLine <= 0 {
		maxLine = DefaultMaxLineBytes
	}
	size = int64(len(content))
	pieces := bytes.Split(content, []byte("\n"))
	var off int64
	for i, l := range pieces {
		start := off
		off += int64(len(l)) + 1
		final := i == len(pieces)-1
		if final && len(l) == 0 {
			break
		}
		if len(l) > maxLine {
			if final {
				size = start
			} else {
				skipped++
			}
			continue
		}
		if len(l) > probeMin && !opts.IncludeTools && !final {
			head := l[:min(len(l), headProbe)]
			if gjson.GetBytes(head, "message.role").Str == "toolResult" {
				continue
			}
		}
		if strings.TrimFunc(string(l), func(r rune) bool {
			return strings.ContainsRune(" \t\n\v\f\r\u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff", r) || (r >= 0x2000 && r <= 0x200a)
		}) == "" && utf8.Valid(l) {
			continue
		}
		var top map[string]json.RawMessage
		if !utf8.Valid(l) || !json.Valid(l) {
			if final {
				size = start
			} else {
				skipped++
			}
			continue
		}
		if json.Unmarshal(l, &top) != nil {
			continue // valid JSON, not an object
		}
		m, ok := top["message"]
		if !ok || m[0] != '{' {
			continue
		}
		var mo map[string]json.RawMessage
		if json.Unmarshal(m, &mo) != nil {
			panic("message object does not decode")
		}
		var role string
		_ = json.Unmarshal(mo["role"], &role)
		if role == "toolResult" && !opts.IncludeTools {
			continue
		}
		msgs = append(msgs, m)
	}
	if opts.Limit > 0 && len(msgs) > opts.Limit {
		msgs = msgs[len(msgs)-opts.Limit:]
	}
	return msgs, skipped, size
}

func readBoth(t testing.TB, path string, opts Options) (fwd, bwd *Result) {
	t.Helper()
	f, size, err := open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return readBothAt(t, f, size, opts)
}

func readBothAt(t testing.TB, f io.ReaderAt, size int64, opts Options) (fwd, bwd *Result) {
	t.Helper()
	fwd, err := readForward(f, size, opts)
	if err != nil {
		t.Fatal(err)
	}
	if opts.Limit > 0 {
		bwd, err = readBackward(f, size, opts)
		if err != nil {
			t.Fatal(err)
		}
	}
	return fwd, bwd
}

func sameMessages(a, b []json.RawMessage) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func describe(ms []json.RawMessage) string {
	var b strings.Builder
	for _, m := range ms {
		s := string(m)
		if len(s) > 60 {
			s = s[:60] + "…"
		}
		fmt.Fprintf(&b, "  %s\n", s)
	}
	return b.String()
}

// checkAgree compares forward, backward and the reference on content for
// every limit and both tool settings.
func checkAgree(t testing.TB, content []byte) {
	t.Helper()
	path := writeTranscript(t, content)
	for _, tools := range []bool{false, true} {
		all, wantSkipped, wantSize := reference(content, Options{IncludeTools: tools})
		for limit := 0; limit <= len(all)+2; limit++ {
			opts := Options{Limit: limit, IncludeTools: tools}
			want := all
			if limit > 0 && len(want) > limit {
				want = want[len(want)-limit:]
			}
			fwd, bwd := readBoth(t, path, opts)
			if !sameMessages(fwd.Messages, want) {
				t.Fatalf("forward limit=%d tools=%v:\n got:\n%s want:\n%s\ncontent: %q", limit, tools, describe(fwd.Messages), describe(want), content)
			}
			if fwd.Skipped != wantSkipped || fwd.Size != wantSize {
				t.Fatalf("forward limit=%d: skipped=%d size=%d, want %d %d; content %q", limit, fwd.Skipped, fwd.Size, wantSkipped, wantSize, content)
			}
			if bwd == nil {
				continue
			}
			if !sameMessages(bwd.Messages, want) {
				t.Fatalf("backward limit=%d tools=%v:\n got:\n%s want:\n%s\ncontent: %q", limit, tools, describe(bwd.Messages), describe(want), content)
			}
			if bwd.Size != wantSize || bwd.Skipped > fwd.Skipped {
				t.Fatalf("backward limit=%d: size=%d skipped=%d, want size %d skipped <= %d", limit, bwd.Size, bwd.Skipped, wantSize, fwd.Skipped)
			}
			if limit > len(all) && bwd.Skipped != fwd.Skipped {
				// Everything was examined: the counts must match too.
				t.Fatalf("backward read whole file: skipped=%d want %d", bwd.Skipped, fwd.Skipped)
			}
		}
	}
}

// randomTranscript builds a transcript with every kind of line the reader
// must cope with.
func randomTranscript(r *rand.Rand, big int) []byte {
	var b bytes.Buffer
	eol := func() {
		if r.IntN(4) == 0 {
			b.WriteString("\r\n")
		} else {
			b.WriteByte('\n')
		}
	}
	if r.IntN(5) != 0 {
		b.WriteString(`{"type":"session","version":3,"id":"s-1","timestamp":"2026-01-30T12:34:56.789Z","cwd":"/w"}`)
		eol()
	}
	roles := []string{"user", "assistant", "toolResult"}
	n := r.IntN(14)
	var last []byte
	for i := range n {
		var l []byte
		switch k := r.IntN(20); {
		case k < 9:
			role := roles[r.IntN(len(roles))]
			text := strings.Repeat(string(rune('a'+i%26)), 1+r.IntN(12))
			if r.IntN(6) == 0 {
				text = strings.Repeat("x", big+r.IntN(3*big+1)) // a big line
			}
			l = fmt.Appendf(nil, `{"type":"message","id":"%08x","parentId":null,"message":{"role":%q,"content":[{"type":"text","text":%q}],"n":%d}}`, i, role, text, i)
			if r.IntN(8) == 0 { // role after a long field: the head probe misses it
				l = fmt.Appendf(nil, `{"type":"message","message":{"content":%q,"role":%q,"n":%d}}`, strings.Repeat("y", 2*big), role, i)
			}
		case k == 9:
			l = []byte(`{"type":"custom","customType":"x","data":{"a":1},"id":"c1"}`)
		case k == 10:
			l = []byte([]string{"", "  ", "\t", "\u00a0", "\r"}[r.IntN(5)])
		case k == 11:
			l = []byte(`{"type":"message","message":{"role":"user","content":"tr`) // corrupt
		case k == 12:
			l = []byte("{\"type\":\"message\",\"message\":{\"role\":\"user\",\"content\":\"bad \xff utf8\"}}")
		case k == 13:
			l = []byte(`{"message":"not an object"}`)
		case k == 14:
			l = fmt.Appendf(nil, `{"message":{"role":"user","n":%d},"message":{"role":"toolResult","n":%d}}`, i, i)
		case k == 15:
			l = fmt.Appendf(nil, `{"message":{"role":"toolResult","n":%d},"message":{"role":"assistant","n":%d}}`, i, i)
		case k == 16:
			l = []byte(`[1,2,3]`)
		case k == 17:
			l = []byte(`{"message":null}`)
		case k == 18:
			l = fmt.Appendf(nil, `  {"message" : {"role":"user" , "n":%d} }  `, i)
		default:
			l = []byte(`garbage`)
		}
		b.Write(l)
		eol()
		last = l
	}
	switch r.IntN(4) {
	case 0: // torn last line
		if len(last) > 2 {
			b.Write(last[:1+r.IntN(len(last)-1)])
		}
	case 1: // complete last line without "\n"
		b.WriteString(`{"type":"message","message":{"role":"assistant","content":"end"}}`)
	}
	return b.Bytes()
}

func TestForwardBackwardAgree(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := range 400 {
		block := 1 + r.IntN(64)
		big := 8 + r.IntN(120)
		setTunables(t, block, big, 4+r.IntN(big), 16+r.IntN(64))
		content := randomTranscript(r, big)
		t.Run(fmt.Sprintf("iter%d", iter), func(t *testing.T) { checkAgree(t, content) })
	}
}

func TestForwardBackwardAgreeDefaultTunables(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 4 {
		checkAgree(t, randomTranscript(r, bigLine))
	}
}

func TestFixtures(t *testing.T) {
	files, err := filepath.Glob(fixtureGlob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures (%v)", err)
	}
	for _, p := range files {
		t.Run(filepath.Base(p), func(t *testing.T) {
			content, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			checkAgree(t, content)
			res, err := ReadMessages(p, Options{IncludeTools: true, Warn: func(m string) { t.Errorf("unexpected warning %q", m) }})
			if err != nil {
				t.Fatal(err)
			}
			id := strings.TrimSuffix(filepath.Base(p), ".jsonl")
			if res.Header == nil || res.Header.ID != id || res.Header.Type != "session" || res.Header.Version != 3 || res.Header.Cwd == "" {
				t.Fatalf("header = %+v", res.Header)
			}
			if res.Size != int64(len(content)) {
				t.Fatalf("size %d, want %d", res.Size, len(content))
			}
			lines := 0
			for _, l := range strings.Split(string(content), "\n") {
				if gjson.Get(l, "message").IsObject() {
					lines++
					if !strings.Contains(l, string(res.Messages[lines-1])) {
						t.Fatalf("message %d is not the bytes of line %q", lines, l)
					}
				}
			}
			if len(res.Messages) != lines || lines == 0 {
				t.Fatalf("%d messages, want %d", len(res.Messages), lines)
			}
			h, err := ReadHeader(p)
			if err != nil || *h != *res.Header {
				t.Fatalf("ReadHeader = %+v, %v", h, err)
			}
		})
	}
}

func TestMissingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "nope.jsonl")
	if _, err := ReadMessages(p, Options{}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("forward: %v", err)
	}
	if _, err := ReadMessages(p, Options{Limit: 5}); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("backward: %v", err)
	}
	if _, err := ReadHeader(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("header: %v", err)
	}
	if _, err := LeafPath(p, nil); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("leaf path: %v", err)
	}
	if _, _, err := LastEntryID(p); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("last entry: %v", err)
	}
	if _, err := ReadMessages(t.TempDir(), Options{}); err == nil {
		t.Fatal("directory read without error")
	}
}

const testHeader = `{"type":"session","version":3,"id":"abc","timestamp":"2026-01-30T12:34:56.789Z","cwd":"/w","parentSession":"/p.jsonl"}`

func testMsgLine(id, role, text string) string {
	return fmt.Sprintf(`{"type":"message","id":%q,"parentId":null,"timestamp":"2026-01-30T12:34:56.789Z","message":{"role":%q,"content":[{"type":"text","text":%q}]}}`, id, role, text)
}

func TestWarnOnceAndCounts(t *testing.T) {
	content := strings.Join([]string{
		testHeader,
		testMsgLine("a", "user", "one"),
		`{"broken`,
		"",
		"   ",
		"{\"message\":{\"role\":\"user\",\"content\":\"\xc3\x28\"}}",
		testMsgLine("b", "assistant", "two"),
		`not json`,
		testMsgLine("c", "toolResult", "three"),
		`{"type":"message","message":{"role":"assis`, // torn last line
	}, "\n")
	p := writeTranscript(t, []byte(content))
	for _, limit := range []int{0, 10} {
		var warnings []string
		res, err := ReadMessages(p, Options{Limit: limit, Warn: func(m string) { warnings = append(warnings, m) }})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Messages) != 2 || res.Skipped != 3 {
			t.Fatalf("limit %d: %d messages, %d skipped", limit, len(res.Messages), res.Skipped)
		}
		want := fmt.Sprintf("transcript %s: skipped 3 unreadable lines (corrupt JSON or invalid UTF-8)", p)
		if len(warnings) != 1 || warnings[0] != want {
			t.Fatalf("warnings %q, want [%q]", warnings, want)
		}
		if res.Size != int64(strings.LastIndex(content, "\n")+1) {
			t.Fatalf("size %d: torn line not excluded", res.Size)
		}
		if res.Header == nil || res.Header.ParentSession != "/p.jsonl" {
			t.Fatalf("header %+v", res.Header)
		}
	}
	// Limit 1 only looks at the end: the corrupt lines before are not examined.
	var n int
	res, err := ReadMessages(p, Options{Limit: 1, Warn: func(string) { n++ }})
	if err != nil || len(res.Messages) != 1 || res.Skipped != 1 || n != 1 {
		t.Fatalf("limit 1: %v %d skipped, %d warnings", err, res.Skipped, n)
	}
	res, err = ReadMessages(p, Options{IncludeTools: true})
	if err != nil || len(res.Messages) != 3 {
		t.Fatalf("with tools: %v %d", err, len(res.Messages))
	}
}

func TestSingularWarning(t *testing.T) {
	p := writeTranscript(t, []byte(testHeader+"\n{\n"+testMsgLine("a", "user", "x")+"\n"))
	var got string
	if _, err := ReadMessages(p, Options{Warn: func(m string) { got = m }}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "skipped 1 unreadable line (") {
		t.Fatalf("warning %q", got)
	}
}

func TestCRLF(t *testing.T) {
	lf := testHeader + "\n" + testMsgLine("a", "user", "one") + "\n\n" + testMsgLine("b", "assistant", "two") + "\n"
	crlf := strings.ReplaceAll(lf, "\n", "\r\n")
	for _, limit := range []int{0, 1, 2, 5} {
		a, err := ReadMessages(writeTranscript(t, []byte(lf)), Options{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		b, err := ReadMessages(writeTranscript(t, []byte(crlf)), Options{Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		if !sameMessages(a.Messages, b.Messages) || b.Skipped != 0 || b.Header == nil || b.Header.ID != "abc" {
			t.Fatalf("limit %d: LF %s CRLF %s skipped %d", limit, describe(a.Messages), describe(b.Messages), b.Skipped)
		}
	}
}

func TestNoHeader(t *testing.T) {
	for _, first := range []string{`{"type":"message","id":"x"}`, `{"type":"session","id":5}`, `{"type":"session"`, `[1]`} {
		p := writeTranscript(t, []byte(first+"\n"+testMsgLine("a", "user", "hi")+"\n"))
		res, err := ReadMessages(p, Options{})
		if err != nil || res.Header != nil || len(res.Messages) != 1 {
			t.Fatalf("%s: %v %+v %d", first, err, res.Header, len(res.Messages))
		}
		if h, err := ReadHeader(p); h != nil || err != nil {
			t.Fatalf("ReadHeader(%s) = %+v %v", first, h, err)
		}
	}
	// Leading blank lines are passed over, as pi does (content.trim()).
	p := writeTranscript(t, []byte("\n  \n"+testHeader+"\n"))
	if h, err := ReadHeader(p); err != nil || h == nil || h.ID != "abc" {
		t.Fatalf("header after blank lines: %+v %v", h, err)
	}
	// Empty file.
	p = writeTranscript(t, nil)
	res, err := ReadMessages(p, Options{Limit: 3})
	if err != nil || res.Header != nil || len(res.Messages) != 0 || res.Messages == nil {
		t.Fatalf("empty: %+v %v", res, err)
	}
}

func TestMaxLineBytes(t *testing.T) {
	long := testMsgLine("a", "user", strings.Repeat("z", 500))
	content := testHeader + "\n" + long + "\n" + testMsgLine("b", "user", "short") + "\n"
	p := writeTranscript(t, []byte(content))
	for _, limit := range []int{0, 5} {
		var w string
		res, err := ReadMessages(p, Options{Limit: limit, MaxLineBytes: 300, Warn: func(m string) { w = m }})
		if err != nil || len(res.Messages) != 1 || res.Skipped != 1 || !strings.Contains(w, "longer than 300 bytes") {
			t.Fatalf("limit %d: %v %d %d %q", limit, err, len(res.Messages), res.Skipped, w)
		}
	}
}

func TestHugeLines(t *testing.T) {
	// A 10 MB tool result, a 3 MB user message: both directions, with and
	// without tools, default tunables.
	huge := testMsgLine("t", "toolResult", strings.Repeat("T", 10<<20))
	user := testMsgLine("u", "user", strings.Repeat("U", 3<<20))
	content := testHeader + "\n" + testMsgLine("a", "user", "first") + "\n" + user + "\n" + huge + "\n" + testMsgLine("b", "assistant", "last") + "\n"
	checkAgree(t, []byte(content))
	p := writeTranscript(t, []byte(content))
	res, err := ReadMessages(p, Options{Limit: 2})
	if err != nil || len(res.Messages) != 2 || len(res.Messages[0]) < 3<<20 {
		t.Fatalf("%v %d", err, len(res.Messages))
	}
	res, err = ReadMessages(p, Options{Limit: 2, IncludeTools: true})
	if err != nil || len(res.Messages) != 2 || len(res.Messages[0]) < 10<<20 {
		t.Fatalf("%v %d", err, len(res.Messages))
	}
}

func TestLimitCountsAfterFilter(t *testing.T) {
	var lines []string
	lines = append(lines, testHeader)
	for i := range 10 {
		lines = append(lines, testMsgLine(fmt.Sprint(i), "assistant", fmt.Sprint("a", i)), testMsgLine(fmt.Sprint(i), "toolResult", fmt.Sprint("t", i)))
	}
	p := writeTranscript(t, []byte(strings.Join(lines, "\n")+"\n"))
	res, err := ReadMessages(p, Options{Limit: 3})
	if err != nil || len(res.Messages) != 3 {
		t.Fatal(err, len(res.Messages))
	}
	for i, m := range res.Messages {
		if got := gjson.GetBytes(m, "content.0.text").Str; got != fmt.Sprint("a", 7+i) {
			t.Fatalf("message %d = %s", i, got)
		}
	}
}

// countingReaderAt counts the bytes read through it.
type countingReaderAt struct {
	f *os.File
	n int64
}

func (c *countingReaderAt) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.f.ReadAt(p, off)
	c.n += int64(n)
	return n, err
}

// bigTranscript writes a transcript of about target bytes shaped like
// OpenClaw's: user/assistant/toolResult turns, 1% of tool results 300 KB.
func bigTranscript(t testing.TB, dir string, target int64) string {
	t.Helper()
	p := filepath.Join(dir, fmt.Sprintf("big-%d.jsonl", target))
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	w := bytes.NewBuffer(nil)
	w.WriteString(testHeader + "\n")
	r := rand.New(rand.NewPCG(7, 7))
	var written int64
	pad300k := strings.Repeat("r", 300<<10)
	// The last 30 turns are ordinary ones, so that the tail of every file
	// looks the same whatever its size.
	body := target - 100<<10
	for i, tail := 0, -1; tail != 0; i++ {
		if tail < 0 && written+int64(w.Len()) >= body {
			tail = 30
		}
		if tail > 0 {
			tail--
		}
		fmt.Fprintf(w, `{"type":"message","id":"%08x","parentId":"%08x","timestamp":"2026-01-30T12:34:56.789Z","message":{"role":"user","content":[{"type":"text","text":"question %d about the build"}],"timestamp":1795236228806}}`+"\n", 3*i, 3*i-1, i)
		fmt.Fprintf(w, `{"type":"message","id":"%08x","parentId":"%08x","timestamp":"2026-01-30T12:34:56.789Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"call_%d","name":"read","arguments":{"path":"f%d"}}],"api":"openai-completions","provider":"mock","model":"mock-1","usage":{"input":5759,"output":11,"cacheRead":0,"cacheWrite":0,"totalTokens":5770,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"toolUse","timestamp":1795236228806}}`+"\n", 3*i+1, 3*i, i, i)
		out := strings.Repeat("line of tool output\\n", 20+r.IntN(200))
		if i%100 == 99 && tail < 0 { // 1% of tool results are 300 KB
			out = pad300k
		}
		fmt.Fprintf(w, `{"type":"message","id":"%08x","parentId":"%08x","timestamp":"2026-01-30T12:34:56.789Z","message":{"role":"toolResult","toolCallId":"call_%d","toolName":"read","content":[{"type":"text","text":"%s"}],"isError":false,"timestamp":1795236228806}}`+"\n", 3*i+2, 3*i+1, i, out)
		if w.Len() > 64<<10 {
			written += int64(w.Len())
			if _, err := f.Write(w.Bytes()); err != nil {
				t.Fatal(err)
			}
			w.Reset()
		}
	}
	if _, err := f.Write(w.Bytes()); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTailReadsOnlyTheEnd(t *testing.T) {
	p := bigTranscript(t, t.TempDir(), 24<<20)
	f, size, err := open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := &countingReaderAt{f: f}
	res, err := readBackward(c, size, Options{Limit: 50})
	if err != nil || len(res.Messages) != 50 {
		t.Fatal(err)
	}
	if c.n > 8<<20 {
		t.Fatalf("tail of 50 read %d of %d bytes", c.n, size)
	}
	fwd, err := ReadMessages(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !sameMessages(res.Messages, fwd.Messages[len(fwd.Messages)-50:]) {
		t.Fatal("tail differs from the end of a forward read")
	}
	t.Logf("file %d MB, tail of 50 read %d KB", size>>20, c.n>>10)
}

func TestTailMemoryBound(t *testing.T) {
	// The last line is a 12 MB tool result; tools excluded, it must not be
	// loaded: the allocations stay around a few blocks.
	huge := testMsgLine("t", "toolResult", strings.Repeat("T", 12<<20))
	content := testHeader + "\n" + testMsgLine("a", "user", "q") + "\n" + testMsgLine("b", "assistant", "r") + "\n" + huge + "\n"
	p := writeTranscript(t, []byte(content))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, err := ReadMessages(p, Options{Limit: 2})
	runtime.ReadMemStats(&after)
	if err != nil || len(res.Messages) != 2 {
		t.Fatal(err)
	}
	allocs := after.TotalAlloc - before.TotalAlloc
	if allocs > 4<<20 {
		t.Fatalf("tail past a 12 MB tool result allocated %d bytes", allocs)
	}
	t.Logf("tail past a 12 MB excluded tool result allocated %d KB", allocs>>10)
}
