package transcript

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCursorRoundTrip(t *testing.T) {
	for _, c := range []Cursor{
		{Era: EraFile, SessionID: "c040fd20-0a1c-4ce0-924c-6e695a32eecb", Pos: 1, Check: 0},
		{Era: EraFile, SessionID: "x", Pos: 1 << 40, Check: 0xffffffff},
		{Era: EraSQLite, SessionID: "8000a7c0-cc69-4a7f-82ba-219f4a789783", Pos: 13, Check: 12345},
		{Era: EraSQLite, SessionID: strings.Repeat("s", maxCursorSessionID), Pos: 1 << 62, Check: 7},
	} {
		s := c.String()
		if strings.Trim(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_") != "" {
			t.Fatalf("%+v encodes to %q: not shell-safe", c, s)
		}
		got, err := ParseCursor(s)
		if err != nil || got != c {
			t.Fatalf("ParseCursor(%q) = %+v, %v; want %+v", s, got, err, c)
		}
	}
}

func TestParseCursorRefuses(t *testing.T) {
	good := Cursor{Era: EraFile, SessionID: "c040fd20-0a1c-4ce0-924c-6e695a32eecb", Pos: 4242, Check: 99}.String()
	flip := []byte(good)
	flip[10] ^= 0x01
	raw := func(b []byte) string { return cursorEncoding.EncodeToString(b) }
	withSum := func(body []byte) string { // a valid checksum over a bad body
		return raw(binary.BigEndian.AppendUint32(append([]byte(nil), body...), crc32.ChecksumIEEE(body)))
	}
	cases := map[string]string{
		"empty":          "",
		"not base64":     "not a cursor!",
		"padded":         good + "==",
		"cut short":      good[:len(good)-2],
		"one char typo":  string(flip),
		"trailing char":  good + "A",
		"too short":      raw([]byte{1, 2, 3}),
		"other magic":    withSum([]byte{'X', 1, 'f', 1, 0, 0, 0, 0, 1, 'a'}),
		"other version":  withSum([]byte{'H', 2, 'f', 1, 0, 0, 0, 0, 1, 'a'}),
		"unknown era":    withSum([]byte{'H', 1, 'z', 1, 0, 0, 0, 0, 1, 'a'}),
		"position 0":     withSum([]byte{'H', 1, 'f', 0, 0, 0, 0, 0, 1, 'a'}),
		"no session id":  withSum([]byte{'H', 1, 'f', 1, 0, 0, 0, 0, 0}),
		"length too big": withSum([]byte{'H', 1, 'f', 1, 0, 0, 0, 0, 2, 'a'}),
		"extra bytes":    withSum([]byte{'H', 1, 'f', 1, 0, 0, 0, 0, 1, 'a', 'b'}),
		"long varint":    withSum([]byte{'H', 1, 'f', 0x81, 0x00, 0, 0, 0, 0, 1, 'a'}),
		"huge":           strings.Repeat("A", 4096),
	}
	for name, s := range cases {
		if c, err := ParseCursor(s); !errors.Is(err, ErrBadCursor) {
			t.Errorf("%s: ParseCursor(%q) = %+v, %v; want ErrBadCursor", name, s, c, err)
		}
	}
}

func TestFingerprint(t *testing.T) {
	long := bytes.Repeat([]byte("a"), 1000)
	if Fingerprint(long) != Fingerprint(long[:fingerprintBytes]) {
		t.Fatal("bytes beyond the first 256 count")
	}
	if Fingerprint([]byte("abc\ndef")) != Fingerprint([]byte("abc")) {
		t.Fatal("bytes after the line's end count")
	}
	if Fingerprint([]byte("abc")) == Fingerprint([]byte("abd")) {
		t.Fatal("a different line has the same fingerprint")
	}
}

// walk pages a transcript back from its end with Before and returns the
// union of the pages (oldest first) and the number of pages.
func walk(t testing.TB, content []byte, opts Options) ([]json.RawMessage, int) {
	t.Helper()
	ra := bytes.NewReader(content)
	size := int64(len(content))
	var all []json.RawMessage
	pages := 0
	opts.More = true
	for {
		res, err := readMessagesAt(ra, size, opts)
		if err != nil {
			t.Fatalf("page %d (before %d): %v", pages, opts.Before, err)
		}
		pages++
		if len(res.Positions) != len(res.Messages) || len(res.Checks) != len(res.Messages) {
			t.Fatalf("%d messages, %d positions, %d checks", len(res.Messages), len(res.Positions), len(res.Checks))
		}
		all = append(append([]json.RawMessage(nil), res.Messages...), all...)
		if !res.More {
			return all, pages
		}
		if len(res.Messages) == 0 {
			t.Fatal("More without a message")
		}
		if res.Positions[0] <= 0 || (opts.Before > 0 && res.Positions[0] >= opts.Before) {
			t.Fatalf("position %d does not go back (before %d)", res.Positions[0], opts.Before)
		}
		c, err := ParseCursor(Cursor{Era: EraFile, SessionID: "s", Pos: res.Positions[0], Check: res.Checks[0]}.String())
		if err != nil {
			t.Fatal(err)
		}
		opts.Before, opts.BeforeCheck = c.Pos, c.Check
	}
}

// The union of the pages is the whole transcript, for every page size, on
// the real transcripts and on one with corrupt lines, CRLF and a torn end.
func TestPagesCoverTranscript(t *testing.T) {
	files, _ := filepath.Glob(fixtureGlob)
	var contents [][]byte
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		contents = append(contents, b)
	}
	contents = append(contents, []byte(testHeader+"\r\n"+testMsgLine("a", "user", "x")+"\r\n{\"bro\n\n"+
		testMsgLine("b", "toolResult", "y")+"\n"+testMsgLine("c", "assistant", "z")+"\n{\"message\":{\"ro"))
	for i, content := range contents {
		for _, tools := range []bool{false, true} {
			want, _, _ := reference(content, Options{IncludeTools: tools})
			for limit := 1; limit <= 7; limit++ {
				got, pages := walk(t, content, Options{Limit: limit, IncludeTools: tools})
				if !sameMessages(got, want) {
					t.Fatalf("file %d, limit %d, tools %v: pages give\n%s\nwant\n%s", i, limit, tools, describe(got), describe(want))
				}
				if wantPages := max(1, (len(want)+limit-1)/limit); pages != wantPages {
					t.Fatalf("file %d, limit %d: %d pages, want %d", i, limit, pages, wantPages)
				}
			}
		}
	}
}

// A cursor whose line is no longer where it was is refused.
func TestCursorMismatch(t *testing.T) {
	content := []byte(testHeader + "\n" + testMsgLine("a", "user", "one") + "\n" + testMsgLine("b", "assistant", "two") + "\n")
	res, err := readMessagesAt(bytes.NewReader(content), int64(len(content)), Options{Limit: 1, More: true})
	if err != nil || !res.More {
		t.Fatal(res, err)
	}
	pos, check := res.Positions[0], res.Checks[0]
	read := func(c []byte, pos int64, check uint32) error {
		_, err := readMessagesAt(bytes.NewReader(c), int64(len(c)), Options{Limit: 1, Before: pos, BeforeCheck: check})
		return err
	}
	if err := read(content, pos, check); err != nil {
		t.Fatalf("the cursor's own transcript: %v", err)
	}
	grown := append(append([]byte(nil), content...), testMsgLine("c", "user", "three")+"\n"...)
	if err := read(grown, pos, check); err != nil {
		t.Fatalf("after an append: %v", err)
	}
	for name, c := range map[string][]byte{
		"shifted":   append([]byte("\n"), content...),
		"rewritten": bytes.Replace(content, []byte(`"two"`), []byte(`"2wo"`), 1),
		"shrunk":    content[:pos],
		"mid-line":  content,
	} {
		p := pos
		if name == "mid-line" {
			p = pos + 3
		}
		if err := read(c, p, check); !errors.Is(err, ErrCursorMismatch) {
			t.Errorf("%s: %v, want ErrCursorMismatch", name, err)
		}
	}
}

// FuzzCursor: any token either is refused, or decodes to a cursor that
// encodes back to the very same token; any cursor survives a round trip.
func FuzzCursor(f *testing.F) {
	f.Add(Cursor{Era: EraFile, SessionID: "c040fd20-0a1c-4ce0-924c-6e695a32eecb", Pos: 4242, Check: 99}.String(), "sid", int64(7), uint32(1), true)
	f.Add("", "", int64(0), uint32(0), false)
	f.Add("SAFmyaBtHSucqiRjMDQwZmQyMC0wYTFjLTRjZTAtOTI0Yy02ZTY5NWEzMmVlY2J6hwxE", "x", int64(1)<<62, uint32(0xffffffff), false)
	f.Fuzz(func(t *testing.T, token, sid string, pos int64, check uint32, sqlite bool) {
		if c, err := ParseCursor(token); err == nil {
			if c.String() != token || c.Pos <= 0 || c.SessionID == "" || (c.Era != EraFile && c.Era != EraSQLite) {
				t.Fatalf("ParseCursor(%q) = %+v, which encodes to %q", token, c, c.String())
			}
		} else if !errors.Is(err, ErrBadCursor) {
			t.Fatalf("ParseCursor(%q): %v does not wrap ErrBadCursor", token, err)
		}
		era := EraFile
		if sqlite {
			era = EraSQLite
		}
		c := Cursor{Era: era, SessionID: sid, Pos: pos, Check: check}
		got, err := ParseCursor(c.String())
		valid := pos > 0 && pos <= 1<<62 && sid != "" && len(sid) <= maxCursorSessionID
		if valid && (err != nil || got != c) {
			t.Fatalf("round trip of %+v: %+v, %v", c, got, err)
		}
		if !valid && err == nil {
			t.Fatalf("%+v is accepted", c)
		}
	})
}
