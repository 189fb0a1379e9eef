package store

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/storegen"
)

// checkFastPath requires parseFast to agree with parseSlow (the reference)
// on data: whatever the fast path accepts must be valid JSON for gjson and
// give the same entries, raw bytes, Meta and skip count. It reports whether
// the fast path took the input.
func checkFastPath(t *testing.T, data []byte) bool {
	t.Helper()
	fast := &Store{Path: "f/sessions.json", Dir: "f", index: map[string]int{}}
	took := fast.parseFast(data)
	if !took {
		return false
	}
	if !gjson.ValidBytes(data) {
		t.Fatalf("fast path accepted what gjson rejects: %q", data)
	}
	slow := &Store{Path: "f/sessions.json", Dir: "f", index: map[string]int{}}
	if err := slow.parseSlow(data); err != nil {
		t.Fatalf("fast path accepted what the reference rejects (%v): %q", err, data)
	}
	if slow.JSON5 {
		t.Fatalf("fast path accepted JSON5: %q", data)
	}
	if fast.Skipped != slow.Skipped || len(fast.Entries) != len(slow.Entries) {
		t.Fatalf("fast: %d entries, %d skipped; reference: %d, %d (%q)",
			len(fast.Entries), fast.Skipped, len(slow.Entries), slow.Skipped, data)
	}
	for i := range slow.Entries {
		f, s := fast.Entries[i], slow.Entries[i]
		if f.Key != s.Key || !bytes.Equal(f.Raw, s.Raw) || !reflect.DeepEqual(f.Meta, s.Meta) {
			t.Fatalf("entry %d differs:\nfast %q %s %+v\nref  %q %s %+v", i, f.Key, f.Raw, f.Meta, s.Key, s.Raw, s.Meta)
		}
	}
	if !reflect.DeepEqual(fast.index, slow.index) {
		t.Fatalf("index differs: %v vs %v", fast.index, slow.index)
	}
	return true
}

var fastPathSeeds = []string{
	`{}`, ` {} `, "\t{\r\n}\n", `{"a":{}}`, `{"a":1}`, `{"a":[]}`, `{"a":null,"b":{"x":1}}`,
	`{"a":{"sessionId":"1","updatedAt":5},"b":7,"a":{"sessionId":"2","provider":"Discord","lastProvider":"x","room":"#r"},"c":{"channel":"keep","provider":"no"}}`,
	`{"a":{"sessionId":"1"},"a":7}`,
	`{"k\u00e9y\n":{"session\u0049d":"x\"y\\z\/\b\f\n\r\t\u2028\ud83d\ude00","updatedAt":-1.5e+3}}`,
	`{"a":{"updatedAt":"5","totalTokens":1e400,"contextTokens":-0,"inputTokens":0.25,"outputTokens":12E-2}}`,
	`{"a":{"systemSent":true,"abortedLastRun":false,"sendPolicy":null,"label":5,"model":{"x":1},"chatType":[1,"2",{"3":[]}]}}`,
	`{"a":{"deliveryContext":{"channel":"signal","to":"+1","accountId":"default","x":[1]},"lastTo":"y"}}`,
	`{"a":{"deliveryContext":{"channel":"signal"},"deliveryContext":"gone"}}`,
	`{"a":{"deliveryContext":{"channel":1,"to":null}}}`,
	`{"a":{"sessionId":"1","sessionId":2}}`,
	`{"a":{"channel":"","provider":"p","lastChannel":"l","lastProvider":"q"}}`,
	// rejected: left to the reference
	`{"a":1,}`, `{"a":{"b":1,}}`, `{"a" 1}`, `{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":tru}`,
	`{"a":"x`, "{\"a\":\"\x01\"}", `{"a":"\x"}`, `{"a":"\u12G4"}`, `{"a":1}x`, `{"a":1}}`, `[1]`, `"x"`, `1`,
	`{a:1}`, `// c` + "\n{}", `{"a":[1,]}`, `{"a":[,1]}`, `{"a":{"b":"` + "\t" + `"}}`, "\ufeff{}",
	`{"a":{"b":[1 2]}}`, `{"a":nul}`, `{"a":"12345678\"12345678\\"}`, `{"a":"1234567\`,
}

func TestParseFastMatchesReference(t *testing.T) {
	for _, in := range fastPathSeeds {
		checkFastPath(t, []byte(in))
	}
	for _, p := range []string{
		"../../testdata/state-2026.1.30/agents/main/sessions/sessions.json",
		"../../testdata/state-2026.1.30/agents/ops/sessions/sessions.json",
	} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !checkFastPath(t, data) {
			t.Errorf("%s: the fast path did not take a real OpenClaw store", p)
		}
	}
	// Every valid object document of the seeds is taken by the fast path.
	for _, in := range fastPathSeeds {
		if gjson.Valid(in) && gjson.Parse(in).IsObject() && !checkFastPath(t, []byte(in)) {
			t.Errorf("valid store not taken by the fast path: %q", in)
		}
	}
}

func FuzzParseFast(f *testing.F) {
	for _, in := range fastPathSeeds {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		took := checkFastPath(t, data)
		if !took && gjson.ValidBytes(data) && gjson.ParseBytes(data).IsObject() {
			t.Fatalf("valid store not taken by the fast path: %q", data)
		}
	})
}

// bigStore builds an OpenClaw-formatted store of about size bytes: one
// clone of a fixture entry (storegen.Members) per 5,000 bytes, with extra
// members spliced in at the given fractions of the entry count.
func bigStore(t *testing.T, size int, extra map[float64]string) []byte {
	t.Helper()
	members := storegen.Members(t, (size+4999)/5000, t.TempDir(), false)
	count := len(members)
	for at, m := range extra {
		i := int(at * float64(count))
		members = append(members[:i], append([]string{m}, members[i:]...)...)
	}
	return storegen.Marshal(members)
}

func TestLoadParallelMatchesReference(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	dir := t.TempDir()
	dup := `"dup": {"sessionId": "first", "updatedAt": 1}`
	for _, tc := range []struct {
		name     string
		extra    map[float64]string
		parallel bool // the parallel path must take it
		flat     bool // every line indented by two spaces
	}{
		{"plain", nil, true, false},
		{"duplicates and non-objects across parts", map[float64]string{
			0.01: dup, 0.3: `"x": 7`, 0.6: `"dup": {"sessionId": "second", "updatedAt": 2}`,
			0.9: `"x": {"sessionId": "x"}`, 0.95: `"dup": null`,
		}, true, false},
		// Nested keys indented like top-level ones: the cuts cannot land,
		// so the store is read sequentially, with the same result.
		{"flat indentation", map[float64]string{0.5: `"dup": {"sessionId": "x"}`, 0.7: `"dup": {"sessionId": "y"}`}, false, true},
		{"invalid near the end", map[float64]string{0.97: `"bad": {"a": 01}`}, false, false},
		{"JSON5 near the end", map[float64]string{0.97: `"j5": {a: 1,}`}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := bigStore(t, 24<<20, tc.extra)
			if tc.flat {
				data = regexp.MustCompile(`\n +`).ReplaceAll(data, []byte("\n  "))
			}
			p := filepath.Join(dir, strings.ReplaceAll(tc.name, " ", "_")+".json")
			if err := os.WriteFile(p, data, 0o600); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			par := &Store{Path: p, Dir: dir, index: map[string]int{}}
			took := par.loadParallel(f, len(data))
			if took != tc.parallel {
				t.Errorf("parallel path taken = %v, want %v", took, tc.parallel)
			}
			got, gotErr := Load(p)
			ref := &Store{Path: p, Dir: dir, index: map[string]int{}}
			refErr := ref.parseSlow(data)
			if (gotErr == nil) != (refErr == nil) || (gotErr != nil && gotErr.Error() != refErr.Error()) {
				t.Fatalf("Load error %v, reference %v", gotErr, refErr)
			}
			if refErr != nil {
				return
			}
			for _, s := range []*Store{got, par} {
				if s == par && !took {
					continue
				}
				if s.Skipped != ref.Skipped || len(s.Entries) != len(ref.Entries) || s.JSON5 != ref.JSON5 {
					t.Fatalf("%d entries, %d skipped, json5 %v; reference %d, %d, %v",
						len(s.Entries), s.Skipped, s.JSON5, len(ref.Entries), ref.Skipped, ref.JSON5)
				}
				for i := range ref.Entries {
					a, b := s.Entries[i], ref.Entries[i]
					if a.Key != b.Key || !bytes.Equal(a.Raw, b.Raw) || !reflect.DeepEqual(a.Meta, b.Meta) {
						t.Fatalf("entry %d: %q %+v, reference %q %+v", i, a.Key, a.Meta, b.Key, b.Meta)
					}
				}
				if !reflect.DeepEqual(s.index, ref.index) {
					t.Fatal("index differs")
				}
			}
		})
	}
}

// TestTranscriptResolutionListed runs the resolution cases again with the
// resolver answering from directory listings from the first lookup on (by
// default it lstats the first listLookups paths of a directory).
func TestTranscriptResolutionListed(t *testing.T) {
}

// TestTranscriptResolutionListedSame resolves every kind of name a
// sessions dir may hold — a transcript, a directory named like one, links
// to a file inside and outside, to a directory and to nothing, a FIFO, a
// name that does not exist — in the store dir given as it is and through
// a link to it, with sessionFiles naming them, once by lstats and once
// from listings (dirstat.ListTypes): the answers are the same, error for
// error.
func TestTranscriptResolutionListedSame(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks and FIFOs")
	}
	root := t.TempDir()
	state := filepath.Join(root, "state")
	sess := filepath.Join(state, "agents", "main", "sessions")
	other := filepath.Join(state, "agents", "other", "sessions")
	out := filepath.Join(root, "outside")
	for _, d := range []string{sess, other, out, filepath.Join(sess, "dir.jsonl"), filepath.Join(sess, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{filepath.Join(sess, "id1.jsonl"), filepath.Join(out, "out.jsonl"), filepath.Join(other, "id5.jsonl"), filepath.Join(sess, "sub", "in.jsonl")} {
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, target := range map[string]string{"lin.jsonl": "id1.jsonl", "lout.jsonl": filepath.Join(out, "out.jsonl"),
		"ldir.jsonl": "dir.jsonl", "dangling.jsonl": "none.jsonl", "lsub.jsonl": "sub/in.jsonl"} {
		if err := os.Symlink(target, filepath.Join(sess, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := testutil.Mkfifo(filepath.Join(sess, "fifo.jsonl")); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(state, "agents", "main", "linked")
	if err := os.Symlink("sessions", linked); err != nil {
		t.Fatal(err)
	}
	ids := []string{"id1", "dir", "lin", "lout", "ldir", "dangling", "lsub", "fifo", "none", "id5"}
	var files []string
	for _, id := range ids {
		files = append(files, "", filepath.Join(sess, id+".jsonl"), filepath.Join(linked, id+".jsonl"), "/home/claw/.openclaw/agents/main/sessions/"+id+".jsonl")
	}
	files = append(files, filepath.Join(out, "out.jsonl"), "sub/in.jsonl", filepath.Join(sess, "sub"))
	resolveAll := func() []string {
		r := NewResolver(state)
		var got []string
		for _, dir := range []string{sess, linked} {
			st := &Store{Path: filepath.Join(dir, FileName), Dir: dir}
			for _, id := range ids {
				for _, sf := range files {
					e := &Entry{Key: "agent:main:" + id, Meta: Meta{SessionID: id, SessionFile: sf}}
					tp, err := r.Transcript(st, e, other)
					got = append(got, fmt.Sprintf("%s %s %q: %+v %v", dir, id, sf, tp, err))
				}
			}
		}
		return got
	}
	byLstat := resolveAll()
	defer func(n int) { listLookups = n }(listLookups)
	listLookups = 0
	listed := resolveAll()
	if len(listed) != len(byLstat) {
		t.Fatalf("%d answers, %d by lstat", len(listed), len(byLstat))
	}
	exists := 0
	for i := range listed {
		if listed[i] != byLstat[i] {
			t.Errorf("listed:   %s\nby lstat: %s", listed[i], byLstat[i])
		}
		if strings.Contains(listed[i], "Exists:true") {
			exists++
		}
	}
	if exists == 0 || exists == len(listed) {
		t.Errorf("%d of %d answers exist: the world is not what the test means", exists, len(listed))
	}
}

// ExpectIn lists a directory at its first lookup when the caller will look
// up enough of its names that one listing costs less than their lstats
// (a search of an agent's 200 sessions), and leaves a directory of many
// names with few to look up to lstats (a search of one session among
// thousands). The answers are the same either way
// (TestTranscriptResolutionListedSame).
func TestResolverExpectIn(t *testing.T) {
	dir := t.TempDir()
	for i := range 40 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("id%d.jsonl", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	st := &Store{Path: filepath.Join(dir, FileName), Dir: dir}
	for _, tc := range []struct {
		n, names int
		listed   bool
	}{{40, 40, true}, {20, 40, true}, {1, 40, false}, {2, 4000, false}, {0, 0, false}} {
		r := NewResolver(dir)
		r.ExpectIn(dir, tc.n, tc.names)
		e := &Entry{Key: "agent:main:x", Meta: Meta{SessionID: "id7"}}
		if tp, err := r.Transcript(st, e, dir); err != nil || !tp.Exists {
			t.Fatalf("%+v: %+v %v", tc, tp, err)
		}
		if got := r.dir(dir).names != nil; got != tc.listed {
			t.Errorf("ExpectIn(%d of %d names): listed %v, want %v", tc.n, tc.names, got, tc.listed)
		}
	}
}

// FuzzSplitPath holds splitPath to filepath.Dir and filepath.Base: the
// same base, and a dir that cleans to Dir's.
func FuzzSplitPath(f *testing.F) {
	for _, p := range []string{"/a/b/c.jsonl", "/a/b//c.jsonl", "/a/./b/c.jsonl", "/a/b/", "/c.jsonl", "c.jsonl", "", "/", "/a/..", "a/b/../c", "//x", "/a/b/."} {
		f.Add(p)
	}
	f.Fuzz(func(t *testing.T, p string) {
		dir, base := splitPath(p)
		if base != filepath.Base(p) || filepath.Clean(dir) != filepath.Dir(p) {
			t.Errorf("splitPath(%q) = %q, %q; filepath: %q, %q", p, dir, base, filepath.Dir(p), filepath.Base(p))
		}
	})
}
