package search

import (
	"bytes"
	"reflect"
	"testing"
	"testing/iotest"

	"github.com/openclaw/sessions/internal/sanitize"
	"github.com/openclaw/sessions/internal/transcript"
)

// naiveScan is the oracle: every line split out of the whole input and
// parsed, no pre-filter, no buffer.
func naiveScan(data []byte, o *Options) []Hit {
	var hits []Hit
	var pos int64
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data
		last := i < 0
		if !last {
			line = data[:i]
		}
		h, ok, st := o.Line(line, pos)
		if ok && !(last && st == transcript.StatusCorrupt) {
			hits = append(hits, h)
		}
		if last {
			break
		}
		data, pos = data[i+1:], pos+int64(i+1)
	}
	return hits
}

func fastScan(t testing.TB, data []byte, o *Options, oneByte bool) []Hit {
	var hits []Hit
	var r = bytes.NewReader(data)
	var rd interface{ Read([]byte) (int, error) } = r
	if oneByte {
		rd = iotest.HalfReader(r)
	}
	if _, err := NewScanner(o).Scan(rd, func(h Hit) { hits = append(hits, h) }); err != nil {
		t.Fatal(err)
	}
	return hits
}

const fuzzSeedTranscript = `{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z"}
{"type":"message","id":"a1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"deploy the Kelvin build"}],"timestamp":1}}
{"type":"message","id":"a2","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"deploy secretly"},{"type":"text","text":"Deploying \"now\" \u0064eploy"},{"type":"toolCall","id":"c1","name":"exec","arguments":{"command":"deploy.sh"}}]}}
{"type":"message","id":"a3","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","content":[{"type":"text","text":"deploy ok"},{"type":"image","data":"ZGVwbG95"}]}}
not json deploy
{"type":"message","id":"a4","message":{"role":"user","content":"caf` + "\xff" + ` deploy"}}
{"type":"message","id":"a5","message":{"role":"user","content":"torn deploy`

// fuzzScriptTranscript: CJK, Cyrillic and accented text written raw, all
// \u-escaped (lower and upper case hex, a surrogate pair), partly escaped,
// beside an escaped backslash before a u and a control character's escape.
const fuzzScriptTranscript = `{"type":"message","id":"j1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"サーバーを再起動して"}}
{"type":"message","id":"j2","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"\u518d\u8D77\u52d5 ok \ud83d\udc4d"}]}}
{"type":"message","id":"j3","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"再\u8d77動 и Сервер sessão"}}
{"type":"message","id":"r1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"перезапустите сервер \\u0441ервер"}}
{"type":"message","id":"r2","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"assistant","content":"\u001b[0m\u0441\u0435\u0440\u0432\u0435\u0440 sess\u00e3o SESS\u00C3O"}}
{"type":"message","id":"r3","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"user","content":[{"type":"text","text":"東京"},{"type":"text","text":"タワー 👍 ΣΑΣ σας"}]}}
{"type":"message","id":"r4","message":{"role":"user","content":"torn 再起動`

func FuzzScan(f *testing.F) {
	for _, q := range []string{"再起動", "サーバー", "сервер", "СЕРВЕР", "sessão", "SESSÃO", "ã", "東京\nタワー", "👍", "σας", "ΣΑΣ", "ok 👍", "\\u0441"} {
		f.Add([]byte(fuzzScriptTranscript), q, false, false, false, 0)
		f.Add([]byte(fuzzScriptTranscript), q, false, true, false, 0)
	}
	f.Add([]byte(fuzzScriptTranscript), `再.動`, true, false, false, 0)
	f.Add([]byte(fuzzScriptTranscript), `(再起動|сервер)`, true, true, false, 0)
	f.Add([]byte(fuzzScriptTranscript), `сер(в)ер`, true, true, false, 100)
	f.Add([]byte(fuzzSeedTranscript), "deploy", false, false, false, 64)
	f.Add([]byte(fuzzSeedTranscript), "DEPLOY", false, true, true, 100)
	f.Add([]byte(fuzzSeedTranscript), `"now"`, false, false, true, 1000)
	f.Add([]byte(fuzzSeedTranscript), `dep(l|x)oy`, true, false, false, 0)
	f.Add([]byte(fuzzSeedTranscript), `kelvin`, false, true, false, 0)
	f.Add([]byte(fuzzSeedTranscript), `ing`, true, true, true, 200)
	f.Add([]byte(fuzzSeedTranscript), "exec\n{", false, false, true, 0)
	f.Add([]byte(fuzzSeedTranscript), `exec {`, false, false, true, 0)
	f.Fuzz(func(t *testing.T, data []byte, pattern string, regex, fold, tools bool, maxLine int) {
		m, err := Compile(Query{Pattern: pattern, Regex: regex, IgnoreCase: fold})
		if err != nil {
			return
		}
		if maxLine < 0 {
			maxLine = -maxLine
		}
		o := &Options{Matcher: m, IncludeTools: tools, MaxLine: maxLine % (1 << 16)}
		want := naiveScan(data, o)
		for _, oneByte := range []bool{false, true} {
			if got := fastScan(t, data, o, oneByte); !reflect.DeepEqual(got, want) {
				t.Fatalf("pattern %q regex=%v fold=%v tools=%v maxLine=%d halfReads=%v:\nfast  %+v\nnaive %+v", pattern, regex, fold, tools, o.MaxLine, oneByte, got, want)
			}
		}
	})
}

const fuzzSecretTranscript = `{"type":"message","id":"m1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"password=hunter2hunter2 and Bearer abcdefghijklmnopqrstuvwxyz0123"}}
{"type":"message","id":"m2","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"-----BEGIN RSA PRIVATE KEY-----\nMIIEabc\n-----END RSA PRIVATE KEY-----"},{"type":"toolCall","id":"c1","name":"exec","arguments":{"command":"curl https://x.io/?token=abcdefghijklmnopqrstu\u000aabc","env":{"OPENAI_API_KEY":"sk-proj-abcdefghijklmnopqrstuvwxyz012345","x":"a\/b\u0008c"}}}]}}
{"type":"message","id":"m3","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c2","name":"exec","arguments":"{\"apiKey\":\"plainvalue123\",\"note\":\"password=zzz\"}"}]}}
`

// FuzzScanMasked: for an agent (Options.Mask) the pre-filtered scan finds
// exactly what parsing and masking every line finds — the raw bytes may
// only rule out lines whose masked text cannot match.
func FuzzScanMasked(f *testing.F) {
	for _, q := range []string{"***", "…", "redacted", "hunter", "sk-pro", "u000a", "nabc", "abc", "a/b", "bc", "REDACTED", "2345", "plainvalue"} {
		f.Add([]byte(fuzzSecretTranscript), q, false, false, true, 0)
		f.Add([]byte(fuzzSecretTranscript), q, false, true, true, 0)
	}
	f.Add([]byte(fuzzSeedTranscript), "deploy", false, false, false, 64)
	f.Add([]byte(fuzzSecretTranscript), `pass[a-z]+=h`, true, false, false, 0)
	f.Add([]byte(fuzzSecretTranscript), `x\*\*\*`, true, false, true, 0)
	r := sanitize.NewRedactor(nil, nil)
	f.Fuzz(func(t *testing.T, data []byte, pattern string, regex, fold, tools bool, maxLine int) {
		m, err := Compile(Query{Pattern: pattern, Regex: regex, IgnoreCase: fold})
		if err != nil {
			return
		}
		if maxLine < 0 {
			maxLine = -maxLine
		}
		o := &Options{Matcher: m, IncludeTools: tools, MaxLine: maxLine % (1 << 16), Mask: r}
		want := naiveScan(data, o)
		for _, oneByte := range []bool{false, true} {
			if got := fastScan(t, data, o, oneByte); !reflect.DeepEqual(got, want) {
				t.Fatalf("pattern %q regex=%v fold=%v tools=%v maxLine=%d halfReads=%v:\nfast  %+v\nnaive %+v", pattern, regex, fold, tools, o.MaxLine, oneByte, got, want)
			}
		}
	})
}

// fuzzWordsTranscript: words written fullwidth, halfwidth, \u-escaped
// (fullwidth and kana too), as decomposed kana, beside plain ones.
const fuzzWordsTranscript = `{"type":"message","id":"w1","timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"ＤＥＰＬＯＹ the gateway ｹﾞｰﾄｳｪｲ"}}
{"type":"message","id":"w2","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":"\uff24eploy \u30b2\u30fc\u30c8 now"}}
{"type":"message","id":"w3","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"user","content":"カ\u3099イド and \u212aelvin ma\u017f\u017f 再起動しました"}}
{"type":"message","id":"w4","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":"restart  the\ngateway, deploy"}}
{"type":"message","id":"w6","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"ガイド raw marks"}}
{"type":"message","id":"w5","message":{"role":"user","content":"torn ＤＥＰＬＯＹ`

// FuzzScanWords: the pre-filtered scan of a words query finds exactly what
// parsing every line finds.
func FuzzScanWords(f *testing.F) {
	for _, q := range []string{"deploy", "DEPLOY gateway", "ゲート", "ガイド", "ｶﾞｲﾄﾞ", "kelvin", "mass", "再起動", `"restart the gateway"`, "now ゲート", "ガイド raw"} {
		f.Add([]byte(fuzzWordsTranscript), q, false, 0)
		f.Add([]byte(fuzzWordsTranscript), q, true, 0)
	}
	f.Add([]byte(fuzzSeedTranscript), "deploy", false, 64)
	f.Add([]byte(fuzzScriptTranscript), "сервер", false, 0)
	f.Fuzz(func(t *testing.T, data []byte, pattern string, tools bool, maxLine int) {
		m, err := Compile(Query{Pattern: pattern, Words: true})
		if err != nil {
			return
		}
		if maxLine < 0 {
			maxLine = -maxLine
		}
		o := &Options{Matcher: m, IncludeTools: tools, MaxLine: maxLine % (1 << 16)}
		want := naiveScan(data, o)
		for _, oneByte := range []bool{false, true} {
			if got := fastScan(t, data, o, oneByte); !reflect.DeepEqual(got, want) {
				t.Fatalf("words %q tools=%v maxLine=%d halfReads=%v:\nfast  %+v\nnaive %+v", pattern, tools, o.MaxLine, oneByte, got, want)
			}
		}
	})
}
