package usage

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// fixtureLines returns the lines of every fixture transcript (JSON era).
func fixtureData(t testing.TB) []byte {
	t.Helper()
	files, err := filepath.Glob("../../testdata/state-2026.1.30/agents/*/sessions/*.jsonl")
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixture transcripts: %v", err)
	}
	var all []byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	return all
}

// hard is a transcript with what a real one holds besides plain replies:
// thinking blocks, tool calls and results, an image, a message without cost,
// one whose usage sits in a huge line, invalid UTF-8, a corrupt line, a user
// message that mentions "usage", and a torn last line.
func hard() []byte {
	var b bytes.Buffer
	b.WriteString(`{"type":"session","version":3,"id":"s1","timestamp":"2026-11-20T10:00:00.000Z","cwd":"/"}` + "\n")
	b.WriteString(`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-11-20T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"how much \"usage\" is left?"}],"timestamp":1795168801000}}` + "\n")
	b.WriteString(`{"type":"message","id":"a2","parentId":"a1","timestamp":"2026-11-20T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"let me think","thinkingSignature":"sig"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x"}}],"api":"anthropic-messages","provider":"anthropic","model":"claude-x","usage":{"input":100,"output":20,"cacheRead":300,"cacheWrite":40,"totalTokens":460,"cost":{"input":0.0003,"output":0.0003,"cacheRead":0.00009,"cacheWrite":0.00015,"total":0.00084}},"stopReason":"toolUse","timestamp":1795168802000}}` + "\n")
	b.WriteString(`{"type":"message","id":"a3","parentId":"a2","timestamp":"2026-11-20T10:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"` + strings.Repeat("tool output ", 3000) + `"},{"type":"image","data":"` + strings.Repeat("QUJD", 5000) + `","mimeType":"image/png"}],"isError":false,"timestamp":1795168803000}}` + "\n")
	b.WriteString(`{"type":"message","id":"a4","parentId":"a3","timestamp":"2026-11-20T23:59:59.000Z","message":{"role":"assistant","content":[{"type":"text","text":"` + strings.Repeat("long answer ", 4000) + `"}],"provider":"openai","model":"gpt-x","usage":{"input":7,"output":8,"totalTokens":15},"stopReason":"stop","timestamp":1795219199000}}` + "\n")
	b.WriteString("{\"type\":\"message\",\"id\":\"a5\",\"message\":{\"role\":\"assistant\",\"usage\":{\"input\":1},\"content\":[{\"type\":\"text\",\"text\":\"bad \xff\xfe\"}]}}\n")
	b.WriteString(`{"type":"message","id":"a6","message":{"role":"assistant","usage":{"input":1}` + "\n") // corrupt
	b.WriteString(`{"type":"message","id":"a7","parentId":"a4","timestamp":"2026-11-21T00:00:01.000Z","message":{"role":"assistant","content":[],"provider":"openclaw","model":"delivery-mirror","usage":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1795219201000}}` + "\n")
	b.WriteString(`{"type":"message","id":"a8","timestamp":"2026-11-21T00:00:02.000Z","message":{"role":"assistant","provider":"anthropic","model":"claude-x","usage":{"input":5,"output":5,"cost":{"total":0.5}}}}` + "\n")
	b.WriteString(`{"type":"message","id":"a9","message":{"role":"assistant","usage":{"input":9`) // torn
	return b.Bytes()
}

// collectScan scans data twice, from an io.ReaderAt (long lines are read
// again with ReadAt) and from a plain stream (long lines are copied as they
// stream): both must give the same.
func collectScan(t testing.TB, data []byte, size, maxLine int) ([]Message, Skips) {
	t.Helper()
	var got, got2 []Message
	sk, err := scan(bytes.NewReader(data), size, maxLine, func(r Message) { got = append(got, r.Clone()) })
	if err != nil {
		t.Fatal(err)
	}
	sk2, err := scan(struct{ io.Reader }{bytes.NewReader(data)}, size, maxLine, func(r Message) { got2 = append(got2, r.Clone()) })
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, got2) || sk != sk2 {
		t.Fatalf("ReaderAt and stream scans differ:\n%+v %+v\n%+v %+v", got, sk, got2, sk2)
	}
	return got, sk
}

func collectNaive(data []byte, maxLine int) ([]Message, Skips) {
	var got []Message
	sk := scanNaive(data, maxLine, func(r Message) { got = append(got, r.Clone()) })
	return got, sk
}

func TestScanEqualsNaive(t *testing.T) {
	for name, data := range map[string][]byte{"fixture": fixtureData(t), "hard": hard(), "hard+fixture": append(fixtureData(t), hard()...)} {
		for _, size := range []int{16, 64, 4096, bufSize} {
			for _, maxLine := range []int{100, 40000, MaxLine} {
				t.Run(fmt.Sprintf("%s/buf%d/max%d", name, size, maxLine), func(t *testing.T) {
					fast, fsk := collectScan(t, data, size, maxLine)
					slow, ssk := collectNaive(data, maxLine)
					if !reflect.DeepEqual(fast, slow) || fsk != ssk {
						t.Fatalf("fast path differs from the naive one:\nfast %d %+v\nnaive %d %+v", len(fast), fsk, len(slow), ssk)
					}
				})
			}
		}
	}
}

func TestScanHard(t *testing.T) {
	got, sk := collectScan(t, hard(), bufSize, MaxLine)
	want := []Message{
		{EntryID: "a2", TS: 1795168802000, Provider: "anthropic", Model: "claude-x", Input: 100, Output: 20, CacheRead: 300, CacheWrite: 40, CostMicros: 840, HasCost: true},
		{EntryID: "a4", TS: 1795219199000, Provider: "openai", Model: "gpt-x", Input: 7, Output: 8},
		{EntryID: "a7", TS: 1795219201000, Provider: "openclaw", Model: "delivery-mirror", HasCost: true},
		{EntryID: "a8", TS: 1795219202000, Provider: "anthropic", Model: "claude-x", Input: 5, Output: 5, CostMicros: 500000, HasCost: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("records:\n got %+v\nwant %+v", got, want)
	}
	if (sk != Skips{InvalidUTF8: 1, Corrupt: 1, Torn: 1}) {
		t.Fatalf("skips %+v", sk)
	}
}

func TestScanOversizeLineNeverHeld(t *testing.T) {
	line := `{"type":"message","id":"x","message":{"role":"assistant","usage":{"input":1},"content":"` + strings.Repeat("y", 5000) + `"}}` + "\n"
	got, sk := collectScan(t, []byte(line+line), 64, 1000)
	if len(got) != 0 || sk.Oversize != 2 {
		t.Fatalf("got %d records, skips %+v", len(got), sk)
	}
}

// FuzzScan holds the fast path (buffered, pre-filtered) equal to the naive
// one (every line split and parsed) on any input, at small buffer sizes so
// lines cross buffer boundaries.
func FuzzScan(f *testing.F) {
	f.Add(hard(), uint16(16), uint16(200))
	f.Add([]byte(`{"message":{"role":"assistant","usage":{"input":1}}}`), uint16(17), uint16(1000))
	f.Add([]byte("{\"message\":{\"role\":\"assistant\",\"usage\":{}}}\n\xff\"usage\"\n"), uint16(20), uint16(30))
	f.Fuzz(func(t *testing.T, data []byte, size, maxLine uint16) {
		sz := 16 + int(size)%512
		ml := 1 + int(maxLine)
		fast, fsk := collectScan(t, data, sz, ml)
		slow, ssk := collectNaive(data, ml)
		if !reflect.DeepEqual(fast, slow) || fsk != ssk {
			t.Fatalf("fast path differs (buf %d, max %d):\nfast %+v %+v\nnaive %+v %+v", sz, ml, fast, fsk, slow, ssk)
		}
	})
}

// TestScanEscapedKeys: a key or value spelled with \u escapes is found by
// the fast path as by a parse of every line.
func TestScanEscapedKeys(t *testing.T) {
	line := `{"id":"e1","message":{"role":"\u0061ssistant","\u0075sage":{"input":3},"model":"m"}}` + "\n"
	long := `{"id":"e2","message":{"role":"assistant","content":"` + strings.Repeat("z", 300) + `","\u0075sage":{"input":4}}}` + "\n"
	for _, size := range []int{16, 64, 4096} {
		fast, _ := collectScan(t, []byte(line+long), size, MaxLine)
		slow, _ := collectNaive([]byte(line+long), MaxLine)
		if len(fast) != 2 || !reflect.DeepEqual(fast, slow) {
			t.Fatalf("buf %d: fast %+v, naive %+v", size, fast, slow)
		}
	}
}

// TestExtractFastDecidesPlainLines: the one-pass extractor decides every
// line of the fixture itself (no hand-off to Extract) and agrees with
// Extract on each; FuzzScan covers the rest.
func TestExtractFastDecidesPlainLines(t *testing.T) {
	n := 0
	for _, line := range bytes.Split(fixtureData(t), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		p := newFastParser(line)
		m, st, ok := p.line()
		if !ok {
			t.Fatalf("handed off a plain line: %.200s", line)
		}
		wm, wst := Extract(line)
		if st != wst || m.Clone() != wm.Clone() {
			t.Fatalf("fast %v %+v, Extract %v %+v: %.200s", st, m, wst, wm, line)
		}
		if st == lineRecord {
			n++
		}
	}
	if n == 0 {
		t.Fatal("no assistant usage in the fixture")
	}
}

// FuzzExtractFast holds the one-pass extractor equal to Extract line by
// line (FuzzScan covers it inside the scan).
func FuzzExtractFast(f *testing.F) {
	for _, line := range bytes.Split(hard(), []byte("\n")) {
		f.Add(line)
	}
	f.Add([]byte(`{"id":"x","timestamp":"2026-11-20T10:00:02.5+01:00","message":{"role":"assistant","usage":{"input":1e2,"output":-0.5,"cacheRead":2.5,"cost":{"total":1E-3,"total":2}},"timestamp":null,"model":"","provider":"p","usage":{}}}`))
	f.Add([]byte(` {"message" : {"role":"assistant" , "usage":{"cost":[]} ,"timestamp":17e11} } `))
	f.Fuzz(func(t *testing.T, line []byte) {
		m, st := extractFast(line)
		wm, wst := Extract(line)
		if st != wst || m != wm {
			t.Fatalf("fast %v %+v, Extract %v %+v", st, m, wst, wm)
		}
	})
}
