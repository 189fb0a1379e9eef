package search

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/sanitize"
)

// benchTranscript is ~8 MB of transcript lines like OpenClaw's: short user
// and assistant messages, tool calls, and tool results with escaped text.
func benchTranscript() []byte {
	var b bytes.Buffer
	out := strings.Repeat(`line of tool output with \"quotes\", a path /usr/lib/x and\n`, 40)
	for i := 0; b.Len() < 8<<20; i++ {
		fmt.Fprintf(&b, `{"type":"message","id":"u%07x","timestamp":"2026-11-21T04:43:35.141Z","message":{"role":"user","content":[{"type":"text","text":"please check the build number %d and report"}],"timestamp":1}}`+"\n", i, i)
		fmt.Fprintf(&b, `{"type":"message","id":"a%07x","timestamp":"2026-11-21T04:43:36.141Z","message":{"role":"assistant","content":[{"type":"text","text":"Running it."},{"type":"toolCall","id":"c%d","name":"exec","arguments":{"command":"make build"}}]}}`+"\n", i, i)
		fmt.Fprintf(&b, `{"type":"message","id":"t%07x","timestamp":"2026-11-21T04:43:37.141Z","message":{"role":"toolResult","toolCallId":"c%d","content":[{"type":"text","text":"%s"}]}}`+"\n", i, i, out)
	}
	if i := strings.Index(b.String()[4<<20:], "\n"); i >= 0 {
		// one hit in the middle
		at := 4<<20 + i + 1
		hit := `{"type":"message","id":"needle","timestamp":"2026-11-21T05:00:00.000Z","message":{"role":"user","content":"the zebra42 is here"}}` + "\n"
		return append(append(append([]byte{}, b.Bytes()[:at]...), hit...), b.Bytes()[at:]...)
	}
	return b.Bytes()
}

// benchScan runs the scan as the operator and as an agent, side by side in
// one run. An agent's scan parses and masks every line whatever the query
// (no byte pre-filter: its work must not tell what the mask hides), so its
// cost is the same for every query; the operator's is the byte search's.
func benchScan(b *testing.B, q Query, tools bool, want int) {
	for _, who := range []struct {
		name string
		mask Masker
	}{{"operator", nil}, {"agent", sanitize.NewRedactor(nil, nil)}} {
		b.Run(who.name, func(b *testing.B) { benchScanAs(b, q, tools, want, who.mask) })
	}
}

// benchScanAs is one scan of the bench transcript, as the operator (mask
// nil) or as an agent, whose search runs on the masked texts.
func benchScanAs(b *testing.B, q Query, tools bool, want int, mask Masker) {
	data := benchTranscript()
	m, err := Compile(q)
	if err != nil {
		b.Fatal(err)
	}
	sc := NewScanner(&Options{Matcher: m, IncludeTools: tools, Mask: mask})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, err := sc.Scan(bytes.NewReader(data), func(Hit) { n++ }); err != nil {
			b.Fatal(err)
		}
		if n != want {
			b.Fatalf("%d hits, want %d", n, want)
		}
	}
}

// BenchmarkScanLiteralRare: one hit in 8 MB — the byte search alone.
func BenchmarkScanLiteralRare(b *testing.B) { benchScan(b, Query{Pattern: "zebra42"}, false, 1) }

// BenchmarkScanLiteralFold: the same, case-insensitive.
func BenchmarkScanLiteralFold(b *testing.B) {
	benchScan(b, Query{Pattern: "ZEBRA42", IgnoreCase: true}, false, 1)
}

// BenchmarkScanRegexLiteral: a regex with a required literal is pre-filtered too.
func BenchmarkScanRegexLiteral(b *testing.B) {
	benchScan(b, Query{Pattern: `zebra[0-9]+ is`, Regex: true}, false, 1)
}

// BenchmarkScanLiteralCommon: a hit in every user message.
func BenchmarkScanLiteralCommon(b *testing.B) {
	benchScan(b, Query{Pattern: "build number"}, false, bytes.Count(benchTranscript(), []byte("build number")))
}

// BenchmarkScanToolsLiteral: tool calls and results searched too (an
// agent's masks every tool call's arguments and tool result).
func BenchmarkScanToolsLiteral(b *testing.B) { benchScan(b, Query{Pattern: "zebra42"}, true, 1) }

// BenchmarkScanRegexNoLiteral: nothing to pre-filter with: every line parsed.
func BenchmarkScanRegexNoLiteral(b *testing.B) {
	benchScan(b, Query{Pattern: `z[e]bra[0-9]+ is`, Regex: true}, false, 1)
}

// BenchmarkScanAgentRatio scans the bench transcript for a rare literal
// (tool results included) as the operator and as an agent in turn, each
// iteration both, and reports the agent's time over the operator's: the
// cost of searching masked text only (docs/PERFORMANCE.md, "search").
func BenchmarkScanAgentRatio(b *testing.B) {
	data := benchTranscript()
	m, err := Compile(Query{Pattern: "zebra42"})
	if err != nil {
		b.Fatal(err)
	}
	op := NewScanner(&Options{Matcher: m, IncludeTools: true})
	ag := NewScanner(&Options{Matcher: m, IncludeTools: true, Mask: sanitize.NewRedactor(nil, nil)})
	scan := func(sc *Scanner) time.Duration {
		start := time.Now()
		n := 0
		if _, err := sc.Scan(bytes.NewReader(data), func(Hit) { n++ }); err != nil {
			b.Fatal(err)
		}
		if n != 1 {
			b.Fatalf("%d hits, want 1", n)
		}
		return time.Since(start)
	}
	var tOp, tAg time.Duration
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		tOp += scan(op)
		tAg += scan(ag)
	}
	b.ReportMetric(float64(tAg)/float64(tOp), "agent/operator")
	b.ReportMetric(float64(len(data))*float64(b.N)/tAg.Seconds()/1e6, "agent-MB/s")
	b.ReportMetric(float64(len(data))*float64(b.N)/tOp.Seconds()/1e6, "operator-MB/s")
}

// benchScriptTranscript is benchTranscript with user messages and
// assistant thinking (~1 KB) in Japanese and Russian among the English
// ones (one in four each), tool output with ANSI \u001b escapes, and one rare word planted per script, each once:
// the data of the BenchmarkScanScript… variants, which compare scripts of
// the same rarity on the same bytes.
func benchScriptTranscript() []byte {
	var b bytes.Buffer
	out := strings.Repeat(`line of tool output with \"quotes\", a path /usr/lib/x and\n\u001b[0m`, 40)
	for i := 0; b.Len() < 8<<20; i++ {
		text := fmt.Sprintf("please check the build number %d of this session and report", i)
		think := "The user wants the build checked; run make and read its output. "
		switch i % 4 {
		case 1:
			text = fmt.Sprintf("ビルド番号 %d を確認して報告してください", i)
			think = "ユーザーはビルドの確認を求めている。makeを実行して出力を読む。"
		case 2:
			text = fmt.Sprintf("проверьте номер сборки %d и сообщите", i)
			think = "Пользователь просит проверить сборку; запустить make и прочитать вывод. "
		}
		fmt.Fprintf(&b, `{"type":"message","id":"u%07x","timestamp":"2026-11-21T04:43:35.141Z","message":{"role":"user","content":[{"type":"text","text":"%s"}],"timestamp":1}}`+"\n", i, text)
		fmt.Fprintf(&b, `{"type":"message","id":"a%07x","timestamp":"2026-11-21T04:43:36.141Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"%s"},{"type":"text","text":"Running it."},{"type":"toolCall","id":"c%d","name":"exec","arguments":{"command":"make build"}}]}}`+"\n", i, strings.Repeat(think, 16), i)
		fmt.Fprintf(&b, `{"type":"message","id":"t%07x","timestamp":"2026-11-21T04:43:37.141Z","message":{"role":"toolResult","toolCallId":"c%d","content":[{"type":"text","text":"%s"}]}}`+"\n", i, i, out)
	}
	data := b.Bytes()
	for k, word := range []string{"zebra42", "再起動", "перегрузка", "sessão"} {
		at := (k + 1) * len(data) / 5
		at += bytes.IndexByte(data[at:], '\n') + 1
		hit := `{"type":"message","id":"needle","timestamp":"2026-11-21T05:00:00.000Z","message":{"role":"user","content":"the ` + word + ` is here"}}` + "\n"
		data = append(append(append([]byte{}, data[:at]...), hit...), data[at:]...)
	}
	return data
}

// benchScript is one operator scan of benchScriptTranscript for q.
func benchScript(b *testing.B, q Query) {
	data := benchScriptTranscript()
	m, err := Compile(q)
	if err != nil {
		b.Fatal(err)
	}
	sc := NewScanner(&Options{Matcher: m})
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		if _, err := sc.Scan(bytes.NewReader(data), func(Hit) { n++ }); err != nil {
			b.Fatal(err)
		}
		if n != 1 {
			b.Fatalf("%d hits, want 1", n)
		}
	}
}

// BenchmarkScanScript…: one hit in 8 MB of English, Japanese and Russian
// messages, for a rare word in each script (and a Latin word whose only
// ASCII run is common), side by side in one run.
func BenchmarkScanScriptLatin(b *testing.B) { benchScript(b, Query{Pattern: "zebra42"}) }
func BenchmarkScanScriptCJK(b *testing.B)   { benchScript(b, Query{Pattern: "再起動"}) }
func BenchmarkScanScriptCJKFold(b *testing.B) {
	benchScript(b, Query{Pattern: "再起動", IgnoreCase: true})
}
func BenchmarkScanScriptCyrillic(b *testing.B) {
	benchScript(b, Query{Pattern: "перегрузка"})
}
func BenchmarkScanScriptAccented(b *testing.B) { benchScript(b, Query{Pattern: "sessão"}) }

// BenchmarkScanScriptRatio scans benchScriptTranscript for each script's
// rare word in turn, each iteration all of them, and reports each one's
// time over the Latin word's (issue 36: any script within 2x of it) —
// ratios that a busy machine disturbs less than separate benchmarks.
func BenchmarkScanScriptRatio(b *testing.B) {
	data := benchScriptTranscript()
	qs := []struct {
		name string
		q    Query
	}{
		{"latin", Query{Pattern: "zebra42"}},
		{"cjk", Query{Pattern: "再起動"}},
		{"cjk-i", Query{Pattern: "再起動", IgnoreCase: true}},
		{"cyrillic", Query{Pattern: "перегрузка"}},
		{"accented", Query{Pattern: "sessão"}},
	}
	scs := make([]*Scanner, len(qs))
	for i, q := range qs {
		m, err := Compile(q.q)
		if err != nil {
			b.Fatal(err)
		}
		scs[i] = NewScanner(&Options{Matcher: m})
	}
	ts := make([]time.Duration, len(qs))
	b.SetBytes(int64(len(data)) * int64(len(qs)))
	for b.Loop() {
		for i, sc := range scs {
			start := time.Now()
			n := 0
			if _, err := sc.Scan(bytes.NewReader(data), func(Hit) { n++ }); err != nil {
				b.Fatal(err)
			}
			ts[i] += time.Since(start)
			if n != 1 {
				b.Fatalf("%s: %d hits, want 1", qs[i].name, n)
			}
		}
	}
	for i, q := range qs[1:] {
		b.ReportMetric(float64(ts[i+1])/float64(ts[0]), q.name+"/latin")
	}
	b.ReportMetric(float64(len(data))*float64(b.N)/ts[0].Seconds()/1e6, "latin-MB/s")
}

// BenchmarkScanWords: the same rare word as a literal, a words query and a
// ranked words query, side by side in one run. A words query parses every
// line (no byte search) and folds every text; ranking also counts every
// message in scope.
func BenchmarkScanWords(b *testing.B) {
	for _, c := range []struct {
		name      string
		q         Query
		relevance bool
	}{
		{"literal", Query{Pattern: "zebra42"}, false},
		{"literal-i", Query{Pattern: "zebra42", IgnoreCase: true}, false},
		{"words", Query{Pattern: "zebra42", Words: true}, false},
		{"words-relevance", Query{Pattern: "zebra42", Words: true}, true},
		{"agent-literal", Query{Pattern: "zebra42"}, false},
	} {
		b.Run(c.name, func(b *testing.B) {
			data := benchTranscript()
			m, err := Compile(c.q)
			if err != nil {
				b.Fatal(err)
			}
			o := &Options{Matcher: m, Relevance: c.relevance}
			if strings.HasPrefix(c.name, "agent") {
				o.Mask = sanitize.NewRedactor(nil, nil)
			}
			sc := NewScanner(o)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				n := 0
				if _, err := sc.Scan(bytes.NewReader(data), func(Hit) { n++ }); err != nil {
					b.Fatal(err)
				}
				if n != 1 {
					b.Fatalf("%d hits, want 1", n)
				}
			}
		})
	}
}
