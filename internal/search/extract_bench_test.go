package search

import (
	"fmt"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/transcript"
)

// benchExtractLines are transcript lines of the kinds a state holds: a
// user message, an assistant's text, thinking and tool call, a large tool
// result, text dense with escapes, and CJK text.
func benchExtractLines() []struct{ name, line string } {
	out := strings.Repeat(`line of tool output with \"quotes\", a path /usr/lib/x and\n`, 200)
	esc := strings.Repeat(`\"k\": \"v\\n\", \u00e9t\u00e9 \ud83d\udc4d\ttab\r\n`, 40)
	cjk := strings.Repeat("サーバーを再起動して、ログを確認しました。東京タワー。", 30)
	think := strings.Repeat("Let me consider the build output carefully before answering. ", 30)
	return []struct{ name, line string }{
		{"user", `{"type":"message","id":"u0000001","parentId":"a0000000","timestamp":"2026-11-21T04:43:35.141Z","message":{"role":"user","content":[{"type":"text","text":"please check the build number 42 and report what failed"}],"timestamp":1763700215141}}`},
		{"assistant", fmt.Sprintf(`{"type":"message","id":"a0000001","parentId":"u0000001","timestamp":"2026-11-21T04:43:36.141Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"%s","thinkingSignature":"c2lnbmF0dXJl"},{"type":"text","text":"Running the build now."},{"type":"toolCall","id":"call_1","name":"exec","arguments":{"command":"make build","workdir":"/home/u/src","timeout":600}}],"api":"openai-responses","provider":"openai","model":"gpt-5","usage":{"input":1200,"output":80,"cacheRead":0,"cacheWrite":0,"totalTokens":1280,"cost":{"input":0.001,"output":0.002,"cacheRead":0,"cacheWrite":0,"total":0.003}},"stopReason":"toolUse","timestamp":1763700216141}}`, think)},
		{"toolResult", fmt.Sprintf(`{"type":"message","id":"t0000001","parentId":"a0000001","timestamp":"2026-11-21T04:43:37.141Z","message":{"role":"toolResult","toolCallId":"call_1","toolName":"exec","content":[{"type":"text","text":"%s"}],"details":{"exitCode":0,"durationMs":5120},"isError":false,"timestamp":1763700217141}}`, out)},
		{"escapes", fmt.Sprintf(`{"type":"message","id":"e0000001","timestamp":"2026-11-21T04:43:38.141Z","message":{"role":"assistant","content":[{"type":"text","text":"%s"}],"timestamp":1763700218141}}`, esc)},
		{"cjk", fmt.Sprintf(`{"type":"message","id":"j0000001","timestamp":"2026-11-21T04:43:39.141Z","message":{"role":"user","content":"%s","timestamp":1763700219141}}`, cjk)},
	}
}

// BenchmarkExtract is Extract (with tool results and calls, as the index
// builds) on each kind of line; MB/s is of the line.
func BenchmarkExtract(b *testing.B) {
	for _, c := range benchExtractLines() {
		line := []byte(c.line)
		if _, st := Extract(line, true); st != transcript.StatusMessage {
			b.Fatalf("%s: %v", c.name, st)
		}
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(line)))
			b.ReportAllocs()
			for b.Loop() {
				Extract(line, true)
			}
		})
	}
}
