package jsonscan

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"
)

// decode builds the tree of the value at s.I through the scanner's own
// walkers (Object and Array with callbacks, Str and Text, Number, Literal),
// with encoding/json's types when it decodes into any with UseNumber.
func decode(s *Scanner) (any, bool) {
	s.SkipWS()
	if s.I >= len(s.D) {
		return nil, false
	}
	switch c := s.D[s.I]; {
	case c == '{':
		m := map[string]any{}
		ok := s.Object(func(key string, _ bool) bool {
			key = strings.Clone(key) // a view of D otherwise
			v, ok := decode(s)
			m[key] = v // the last of duplicated keys wins, as in encoding/json
			return ok
		})
		return m, ok
	case c == '[':
		a := []any{}
		ok := s.Array(func() bool {
			v, ok := decode(s)
			a = append(a, v)
			return ok
		})
		return a, ok
	case c == '"':
		start, end, esc, ok := s.Str()
		if !ok {
			return nil, false
		}
		return s.Text(start, end, esc), true
	case c == '-' || c >= '0' && c <= '9':
		start, ok := s.Number()
		return json.Number(s.D[start:s.I]), ok
	case c == 't':
		return true, s.Literal("true")
	case c == 'f':
		return false, s.Literal("false")
	case c == 'n':
		return nil, s.Literal("null")
	}
	return nil, false
}

// decodeDocument is decode over all of data, whitespace around allowed.
func decodeDocument(data []byte) (any, bool) {
	s := &Scanner{D: data}
	v, ok := decode(s)
	if !ok {
		return nil, false
	}
	s.SkipWS()
	return v, s.I == len(data)
}

// gjsonSurrogateQuirk reports whether a string in data holds a \u escape of
// a UTF-16 surrogate that does not start a valid pair, directly followed by
// another \u escape: gjson (whose unescaping Text keeps, as the store's
// slow path does) decodes the two as one pair and yields one U+FFFD, where
// encoding/json yields U+FFFD and then the second escape's character.
func gjsonSurrogateQuirk(data []byte) bool {
	hex := func(i int) (rune, bool) {
		if i+6 > len(data) || data[i] != '\\' || data[i+1] != 'u' {
			return 0, false
		}
		n, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 32)
		return rune(n), err == nil
	}
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' {
			continue
		}
		r, isU := hex(i)
		if !isU {
			i++ // an escaped character: skip it (it may be a backslash)
			continue
		}
		if utf16.IsSurrogate(r) {
			r2, next := hex(i + 6)
			if next && utf16.DecodeRune(r, r2) == utf8.RuneError {
				return true
			}
		}
		i += 5
	}
	return false
}

// corpusSeeds reads the []byte inputs of the fuzz corpora under dirs
// (files in Go's "go test fuzz v1" format).
func corpusSeeds(t testing.TB, dirs ...string) [][]byte {
	var seeds [][]byte
	for _, dir := range dirs {
		files, err := filepath.Glob(filepath.Join(dir, "*", "*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, name := range files {
			f, err := os.Open(name)
			if err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(f)
			sc.Buffer(nil, 1<<24)
			for sc.Scan() {
				line := sc.Text()
				if q, ok := strings.CutPrefix(line, "[]byte("); ok {
					s, err := strconv.Unquote(strings.TrimSuffix(q, ")"))
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					seeds = append(seeds, []byte(s))
				}
			}
			f.Close()
			if err := sc.Err(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return seeds
}

// FuzzScanner holds the scanner to encoding/json: it accepts exactly what
// json.Valid accepts, through Document (validation only) and through the
// walkers with callbacks, and the values it reads are encoding/json's
// (UseNumber) wherever both define them the same way (valid UTF-8, no
// gjson surrogate quirk: see gjsonSurrogateQuirk). Seeds: the store's and
// usage's fuzz corpora, plus the edges below.
func FuzzScanner(f *testing.F) {
	seeds := corpusSeeds(f, "../store/testdata/fuzz", "../usage/testdata/fuzz")
	if len(seeds) == 0 {
		f.Fatal("no seeds in the store's and usage's fuzz corpora")
	}
	for _, s := range seeds {
		f.Add(s)
	}
	for _, s := range []string{
		``, ` `, `{}`, `[]`, `{"a":[1,2,{"b":null}],"c":"d"}`, ` {"k":{},"k":null} `, `"\u00e9\n\"\\\/"`,
		`-0.5e+10`, `01`, `1.`, `-`, `1e`, `tru`, `nulll`, `[1,]`, `{"a":1,}`, `{"a" 1}`, `{,}`, `"\x"`,
		`"\ud83d\ude00"`, `"\ud800\u0041"`, `"\udc00"`, "\"\x1f\"", "\"\xff\"", `[[[[[[]]]]]]`, `{"\u0061":1,"a":2}`,
		"\t\r\n[ 1 , \"x\" ]\n", `1 2`, `{"a":"b"}x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want := json.Valid(data)
		if got := (&Scanner{D: data}).Document(); got != want {
			t.Fatalf("Document() = %v, json.Valid = %v: %q", got, want, data)
		}
		got, ok := decodeDocument(data)
		if ok != want {
			t.Fatalf("decode ok = %v, json.Valid = %v: %q", ok, want, data)
		}
		if !ok || !utf8.Valid(data) || gjsonSurrogateQuirk(data) {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var wantV any
		if err := dec.Decode(&wantV); err != nil {
			t.Fatalf("json.Valid but Decode: %v: %q", err, data)
		}
		if !reflect.DeepEqual(got, wantV) {
			t.Fatalf("scanner read %#v, encoding/json %#v: %q", got, wantV, data)
		}
	})
}

// Nesting: encoding/json's limit by default, MaxDepth when set; the
// scanner then rejects the document, as json.Valid does past its limit.
func TestMaxDepth(t *testing.T) {
	arrays := func(n int) []byte { return []byte(strings.Repeat("[", n) + strings.Repeat("]", n)) }
	objects := func(n int) []byte { return []byte(strings.Repeat(`{"a":`, n) + "1" + strings.Repeat("}", n)) }
	for _, tc := range []struct {
		data []byte
		max  int
		want bool
	}{
		{arrays(DefaultMaxDepth), 0, true},
		{arrays(DefaultMaxDepth + 1), 0, false},
		{objects(DefaultMaxDepth), 0, true},
		{objects(DefaultMaxDepth + 1), 0, false},
		{arrays(3), 3, true},
		{arrays(4), 3, false},
		{objects(4), 3, false},
		{[]byte(`{"a":[{"b":1}],"c":{"d":[]}}`), 3, true},
		{[]byte(`{"a":[{"b":[1]}]}`), 3, false},
	} {
		if got := (&Scanner{D: tc.data, MaxDepth: tc.max}).Document(); got != tc.want {
			t.Errorf("%.40q (MaxDepth %d): Document() = %v, want %v", tc.data, tc.max, got, tc.want)
		}
		if tc.max == 0 && json.Valid(tc.data) != tc.want {
			t.Errorf("json.Valid(%.40q) = %v: the limit is not encoding/json's", tc.data, !tc.want)
		}
	}
}

// Depth is released on the way out of an object or array: siblings do not
// add up.
func TestDepthReleasedBetweenSiblings(t *testing.T) {
	data := []byte("[" + strings.Repeat("[[]],", 100) + "[[]]]")
	if !(&Scanner{D: data, MaxDepth: 3}).Document() {
		t.Fatal("siblings of depth 3 rejected under MaxDepth 3")
	}
}
