package search

import (
	"bufio"
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/sanitize"
	"github.com/openclaw/sessions/internal/sqlitedb"
	"github.com/openclaw/sessions/internal/transcript"
)

// fixtureLines are the transcript lines of the repository's fixtures of
// both eras: the JSONL files of the 2026.1 state and the events of the
// 2026.9 ones' SQLite stores.
func fixtureLines(t testing.TB) [][]byte {
	var lines [][]byte
	root, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(root, "state-*", "agents", "*", "sessions", "*.jsonl"))
	runs, _ := filepath.Glob(filepath.Join(root, "state-*", "cron", "runs", "*.jsonl"))
	for _, p := range append(files, runs...) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			lines = append(lines, bytes.Clone(sc.Bytes()))
		}
	}
	dbs, _ := filepath.Glob(filepath.Join(root, "state-*", "agents", "*", "agent", sqlitedb.FileName))
	for _, p := range dbs {
		db, err := sql.Open("sqlite", sqlitedb.DSN(p, sqlitedb.DSNOptions{Mode: sqlitedb.Immutable}))
		if err != nil {
			t.Fatal(err)
		}
		rows, err := db.Query(`SELECT event_json FROM transcript_events WHERE event_json IS NOT NULL`)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var ev []byte
			if err := rows.Scan(&ev); err != nil {
				t.Fatal(err)
			}
			lines = append(lines, ev)
		}
		rows.Close()
		db.Close()
	}
	if len(lines) < 100 {
		t.Fatalf("only %d fixture lines", len(lines))
	}
	return lines
}

// trickyLines are the corners of the reference's reading.
var trickyLines = []string{
	``, `   `, "\xc2\xa0", "\ufeff{}", `[]`, `"x"`, `1`, `null`, `{}`, `{"message":null}`,
	`{"message":"x"}`, `{"message":[{"role":"user"}]}`, `{"message":{}}`,
	`{"message":{"role":"user"}}`,
	`{"message":{"role":"user","content":"a"},"message":{"role":"assistant","content":"b"}}`,
	`{"message":{"role":"user","content":"a"},"message":null}`,
	`{"message":{"role":"toolResult","content":"r"},"message":{"role":"assistant","content":"b"}}`,
	`{"message":{"role":"t\u006folResult"},"message":{"role":"user","content":"u"}}`,
	`{"message":{"role":"toolResult","content":[{"type":"text","text":"r"}]},"message":{"role":"toolResult","content":"s"}}`,
	`{"message":{"role":"assistant","content":[{"type":"text","text":"a "},{"type":"t\u006folCall","name":"n","arguments":{"x":1}},{"type":"text","text":"b"}]}}`,
	`{"message":{"role":"assistant","content":[{"type":"toolCall","name":"n","arguments":null}]}}`,
	`{"message":{"role":"assistant","text":"t","content":[{"type":"toolCall","name":7,"arguments":"x"}]}}`,
	`{"id":"x","id":7,"timestamp":"2026-01-01T00:00:00Z","timestamp":"bad","message":{"role":"user","role":"assistant","content":"a","content":"b","timestamp":5,"timestamp":6}}`,
	`{"id":"x","id":"y","message":{"role":"user","content":[{"type":"text","type":"image","text":"a","text":"b"}]}}`,
	`{"m\u0065ssage":{"r\u006fle":"\u0075ser","c\u006fntent":[{"typ\u0065":"t\u0065xt","t\u0065xt":"\u0041"}]},"\u0069d":"\u0031"}`,
	`{"message":{"role":"user","content":"\ud83d\udc4d \ud83d \udc4d \ud83d\u0041 \udc4d\ud83d \ud83dx \u00e9\u4e16 \"\\\/\b\f\n\r\t"}}`,
	`{"message":{"role":"user","content":"\ud83d\u`,
	`{"message":{"role":"user","content":"caf` + "\xff" + `"}}`,
	`{"message":{"role":"user","content":"a"}`,
	`{"message":{"role":"user","content":"a"}} x`,
	`{"message":{"role":"user","content":"a"}},`,
	`{"message":{"role":"user","content":"[[{\"x\":]}"},"x":[[[{"a":"]]"}]]]}`,
	`{"message":{"role":"user","content":"a","x":[1,2}}`,
	`{"message":{"role":"user","content":"a","x":{"y":[1,{"z":tru}]}}}`,
	`{"message":{"role":"user","content":"a","x":01}}`,
	`{"message":{"role":"user","content":"a","x":"` + "\t" + `"}}`,
	`{"timestamp":1e400,"message":{"role":"user","content":"a"}}`,
	`{"timestamp":-1e400,"message":{"role":"user","content":"a"}}`,
	`{"timestamp":0,"message":{"role":"user","content":"a","timestamp":12.7}}`,
	`{"timestamp":-0.0,"message":{"role":"user","content":"a","timestamp":"2026-01-01T00:00:00.123+02:00"}}`,
	`{"timestamp":9223372036854775808,"message":{"role":"user","content":"a"}}`,
	`{"timestamp":123456789012345678901234567890,"message":{"role":"user","content":"a"}}`,
	`{"timestamp":1E+3,"message":{"role":"user","content":"a"}}`,
	` 	{ "message" : { "role" : "user" , "content" : [ { "type" : "text" , "text" : " a " } , "x" , 1 , [ ] , null , { } ] } } 	`,
	`{"message":{"role":"user","content":"` + "\u00a0\u2028 a \u0085\ufeff\u3000" + `"}}`,
	`{"message":{"role":"user","content":"\u00a0\u2028 a \u0085\ufeff\u3000"}}`,
	`{"message":{"role":"user","content":[{"type":"text","text":" a"},{"type":"input_text","text":"b "},{"type":"output_text","text":""},{"type":"thinking","thinking":"c"},{"type":"text","text":7}]}}`,
	`{"message":{"role":"user","text":"t","content":[{"type":"text","text":"a"}]}}`,
	`{"message":{"role":"user","text":5,"content":[{"type":"text","text":"a"}]}}`,
	`{"message":{"role":"user","content":5,"text":"t"}}`,
	`{"message":{"role":"user","content":{"type":"text","text":"a"}}}`,
	`{"message":{"role":"user","content":"a","content":[{"type":"text","text":"b"}]}}`,
	`{"message":{"role":"user","content":[{"type":"text","text":"b"}],"content":"a"}}`,
	`{"message":{"role":"assistant","content":[{"type":"text","text":"a"},{"type":"toolCall","name":"exec","arguments":{"command":"ls -l"}},{"type":"toolCall","name":" ","arguments":" "},{"type":"toolCall"},{"type":"toolCall","name":12,"arguments":1.50},{"type":"toolCall","name":1.5e2,"arguments":[1, 2 ]},{"type":"toolCall","name":null,"arguments":null},{"type":"toolCall","name":true,"arguments":false},{"type":"toolCall","name":{"a":1},"arguments":"x\u0041"},{"type":"toolCall","name":"n\u00e9","arguments":{"a":"\u0041"},"name":"second"},{"type":"toolCall","name":-7,"arguments":{}},{"type":"toolCall","name":1e400}]}}`,
	`{"message":{"role":"user","content":[` + strings.Repeat(`{"type":"text","text":"b"},`, 300) + `{"type":"text","text":"end"}]}}`,
	`{"message":{"role":"assistant","text":"t","content":[{"type":"toolCall","name":"exec","arguments":{}}]}}`,
	`{"message":{"role":"toolResult","content":[{"type":"text","text":"out"}]}}`,
	`{"message":{"role":"tool\u0052esult","content":[{"type":"text","text":"out"}]}}`,
	`{"message":{"role":"toolResult","content":[{"type":"text","text":"out"` + "\xff" + `]]]`,
	`{"message":{"role":"toolResult"},"message":{"role":"user","content":"a"}}`,
	`{"message":{"role":"user","content":"a"},"message":{"role":"toolResult","content":"b"}}`,
	`{"message":{"role":"user","role":"toolResult","content":"a"}}`,
	`{"message":{"role":"system","content":"a"}}`,
	`{"message":{"role":5,"content":"a"}}`,
	`{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z"}`,
	`{"message":{"role":"user","content":"secret sk-proj-abcdefghijklmnopqrstuvwx1234 token=hunter2hunter2"}}`,
	`{"message":{"role":"assistant","content":[{"type":"text","text":"password=hunter"},{"type":"text","text":"2hunter2"},{"type":"toolCall","name":"exec","arguments":{"password":"hunter2","apiKey":"sk-proj-abcdefghijklmnopqrstuvwx1234"}}]}}`,
	`{"message":{"role":"user","content":"a","x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}`,
	`{"message":{"role":"user","content":"a","x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10000) + `}}`,
	`{"message":{"role":"user","content":"a","x":` + strings.Repeat(`{"a":`, 9990) + `1` + strings.Repeat("}", 9990) + `}}`,
}

// checkExtract holds extract — the fast reader, and the reference where it
// hands over — equal to the reference on one line, for both includeTools
// values, without and with a mask.
func checkExtract(t *testing.T, line []byte, mask Masker) {
	t.Helper()
	for _, tools := range []bool{false, true} {
		want, wst := extractReference(line, tools, nil)
		if got, st := extract(line, tools, nil); st != wst || !reflect.DeepEqual(got, want) {
			t.Fatalf("tools=%v:\nfast      %v %#v\nreference %v %#v\nline %.300q", tools, st, got, wst, want, line)
		}
		want, wst = extractReference(line, tools, mask)
		if got, st := extract(line, tools, mask); st != wst || !reflect.DeepEqual(got, want) {
			t.Fatalf("masked tools=%v:\nfast      %v %#v\nreference %v %#v\nline %.300q", tools, st, got, wst, want, line)
		}
	}
	// ExtractBoth is the two Extracts of one line, with tools and without.
	for _, mk := range []Masker{nil, mask} {
		m, noTools, st := ExtractBoth(line, mk)
		want, wst := extractReference(line, true, mk)
		if st != wst || !reflect.DeepEqual(m, want) {
			t.Fatalf("both, mask %v:\n%v %#v\nwant %v %#v\nline %.300q", mk != nil, st, m, wst, want, line)
		}
		if st != transcript.StatusMessage {
			continue
		}
		if m0, _ := extractReference(line, false, mk); noTools != m0.Text {
			t.Fatalf("both, mask %v: without tools %q, want %q\nline %.300q", mk != nil, noTools, m0.Text, line)
		}
	}
}

func TestExtractIsItsReference(t *testing.T) {
	mask := sanitize.NewRedactor(nil, nil)
	for _, l := range trickyLines {
		checkExtract(t, []byte(l), mask)
	}
	for _, l := range fixtureLines(t) {
		checkExtract(t, l, mask)
	}
}

// TestExtractFastReadsFixtures: the fast reader answers itself for every
// line of the fixtures that is a JSON object (handing nothing real to the
// reference), and for the tricky lines that are.
func TestExtractFastReadsFixtures(t *testing.T) {
	lines := fixtureLines(t)
	for _, l := range trickyLines {
		if !strings.Contains(l, "[[[[[[") {
			lines = append(lines, []byte(l))
		}
	}
	for _, line := range lines {
		if !utf8.Valid(line) || !gjson.ValidBytes(line) || !gjson.ParseBytes(line).IsObject() || bytes.HasPrefix(line, []byte("\ufeff")) {
			continue
		}
		for _, tools := range []bool{false, true} {
			if _, _, ok := extractFast(line, tools, nil); !ok {
				t.Errorf("tools=%v: handed to the reference: %.200s", tools, line)
			}
		}
	}
}

// FuzzExtractIsItsReference: on any bytes, extract gives what the gjson
// reference gives — without a mask and with a real one, tools or not.
func FuzzExtractIsItsReference(f *testing.F) {
	for _, l := range trickyLines {
		if len(l) < 1000 {
			f.Add([]byte(l))
		}
	}
	for _, l := range fixtureLines(f) {
		f.Add(l)
	}
	for _, c := range benchExtractLines() {
		f.Add([]byte(c.line))
	}
	mask := sanitize.NewRedactor(nil, nil)
	f.Fuzz(func(t *testing.T, line []byte) {
		checkExtract(t, line, mask)
		// The bytes as a string's contents (escapes, surrogates) and as
		// any value in the places the reader looks: lines valid far more
		// often than a mutated line is.
		for _, wrap := range [][2]string{
			{`{"id":"i","message":{"role":"assistant","content":[{"type":"text","text":"`, `"},{"type":"toolCall","name":"n","arguments":{}}]}}`},
			{`{"message":{"role":"user","content":`, `}}`},
			{`{"message":{"role":"assistant","content":[{"type":"toolCall","name":`, `,"arguments":1}]},"timestamp":"x"}`},
			{`{"message":{"role":"assistant","content":[`, `]}}`},
			{`{"message":{"role":"user","text":"t"},"timestamp":`, `}`},
			{`{"message":{"role":"toolResult"},"message":{"role":"assistant","content":[{"type":"text","text":"a"},`, `]}}`},
			{`{"message":`, `}`},
		} {
			checkExtract(t, []byte(wrap[0]+string(line)+wrap[1]), mask)
		}
		if _, st := extract(line, true, nil); st == transcript.StatusMessage && !utf8.Valid(line) {
			t.Fatalf("a message from invalid UTF-8: %q", line)
		}
	})
}

// FuzzUTCMillis: the fast read of OpenClaw's timestamps is time.Parse's,
// for any string of their shape, valid or not.
func FuzzUTCMillis(f *testing.F) {
	for _, s := range []string{"2026-09-23T17:05:00.000Z", "2024-02-29T23:59:59.999Z", "2023-02-29T00:00:00.000Z",
		"0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "2026-13-01T00:00:00.000Z", "2026-04-31T00:00:00.000Z",
		"2026-01-01T24:00:00.000Z", "2026-01-01T00:60:00.000Z", "2026-01-01T00:00:60.000Z", "2026-00-10T00:00:00.000Z",
		"1900-02-29T00:00:00.000Z", "2000-02-29T00:00:00.000Z", "2026-01-01T00:00:00.00-Z", "+026-01-01T00:00:00.000Z"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := utcMillis(s)
		tm, err := time.Parse(time.RFC3339Nano, s)
		switch {
		case ok && err != nil:
			t.Fatalf("utcMillis(%q) = %d, but time.Parse: %v", s, got, err)
		case ok && got != tm.UnixMilli():
			t.Fatalf("utcMillis(%q) = %d, want %d", s, got, tm.UnixMilli())
		case !ok && err == nil && len(s) == 24 && s[23] == 'Z' && s[19] == '.' && s[10] == 'T' && tm.Year() >= 1:
			t.Fatalf("utcMillis(%q) passed over a time.Parse reads: %v", s, tm)
		}
	})
}
