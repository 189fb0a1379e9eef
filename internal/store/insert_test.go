package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/lock"
)

func newEntry(t *testing.T) *jsonx.Object {
	t.Helper()
	e := jsonx.NewObject()
	_ = e.Set("sessionId", "0b6a2c1e-8a55-4a3e-9f53-5d5b6e0f9c11")
	_ = e.Set("updatedAt", 1795236250000)
	_ = e.Set("spawnedBy", "agent:main:main")
	_ = e.Set("channel", "Signal") // normalised like every written entry
	return e
}

// TestInsertSameBytesAsUpdate: on a store OpenClaw wrote, Insert produces
// byte for byte the file an Update putting the same new key would, and
// gives build the store as read inside the lock.
func TestInsertSameBytesAsUpdate(t *testing.T) {
	p1, orig := copyFixture(t)
	p2, _ := copyFixture(t)
	const key = "agent:main:subagent:1e4c1d7e-93f5-4f0e-bd3c-2f8d0e7f5d10"
	var sawMain bool
	res, err := Insert(context.Background(), p1, UpdateOptions{}, key, func(st *Store) (*jsonx.Object, error) {
		e, ok := st.Lookup("agent:main:main")
		sawMain = ok && e.SessionID == "c040fd20-0a1c-4ce0-924c-6e695a32eecb"
		return newEntry(t), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !sawMain {
		t.Error("build did not see the requester entry")
	}
	if _, err := Update(context.Background(), p2, UpdateOptions{}, func(tx *Tx) error { tx.Put(key, newEntry(t)); return nil }); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(p1)
	b, _ := os.ReadFile(p2)
	if !bytes.Equal(a, b) {
		t.Fatalf("Insert and Update differ:\n%s\n----\n%s", a[len(a)-600:], b[len(b)-600:])
	}
	if !bytes.HasPrefix(a, orig[:len(orig)-2]) {
		t.Error("the old bytes were not kept verbatim")
	}
	if !res.Wrote || res.Bytes != len(a) || len(res.Touched) != 1 || !strings.Contains(string(res.Entries[key]), `"deliveryContext":{"channel":"signal"}`) {
		t.Errorf("result %+v", res)
	}
	if st, _ := os.Stat(p1); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", st.Mode())
	}
	if tmp := TempFiles(p1); len(tmp) != 0 {
		t.Errorf("temp files left: %v", tmp)
	}
}

func TestInsertEmptyAndMissingAndJSON5(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "a", "sessions.json")
	_ = os.MkdirAll(filepath.Dir(empty), 0o700)
	_ = os.WriteFile(empty, []byte("{}"), 0o600)
	build := func(*Store) (*jsonx.Object, error) { return newEntry(t), nil }
	if _, err := Insert(context.Background(), empty, UpdateOptions{}, "k", build); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(empty)
	if want := "{\n  \"k\": {\n    \"sessionId\": \"0b6a2c1e-8a55-4a3e-9f53-5d5b6e0f9c11\",\n    \"updatedAt\": 1795236250000,\n    \"spawnedBy\": \"agent:main:main\",\n    \"channel\": \"Signal\",\n    \"deliveryContext\": {\n      \"channel\": \"signal\"\n    },\n    \"lastChannel\": \"signal\"\n  }\n}"; string(got) != want {
		t.Errorf("empty store:\n%s", got)
	}
	missing := filepath.Join(dir, "b", "sessions.json")
	if _, err := Insert(context.Background(), missing, UpdateOptions{}, "k", build); !errors.Is(err, ErrStoreMissing) {
		t.Errorf("missing without Create: %v", err)
	}
	if res, err := Insert(context.Background(), missing, UpdateOptions{Create: true}, "k", build); err != nil || !res.Created {
		t.Errorf("missing with Create: %+v %v", res, err)
	}
	j5 := filepath.Join(dir, "c", "sessions.json")
	_ = os.MkdirAll(filepath.Dir(j5), 0o700)
	_ = os.WriteFile(j5, []byte("{\n  // a comment\n  a: {sessionId: 'x', updatedAt: 1,},\n}"), 0o600)
	res, err := Insert(context.Background(), j5, UpdateOptions{}, "k", func(st *Store) (*jsonx.Object, error) {
		if _, ok := st.Lookup("a"); !ok {
			t.Error("fallback store view lacks a")
		}
		return newEntry(t), nil
	})
	if err != nil || !res.JSON5 {
		t.Fatalf("json5: %+v %v", res, err)
	}
	if got, _ := os.ReadFile(j5); !strings.HasPrefix(string(got), "{\n  \"a\": {\n    \"sessionId\": \"x\"") {
		t.Errorf("json5 not rewritten strict:\n%s", got)
	}
}

func TestInsertRefusals(t *testing.T) {
	path, orig := copyFixture(t)
	unchanged := func(what string) {
		t.Helper()
		if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
			t.Errorf("%s: store changed", what)
		}
	}
	build := func(*Store) (*jsonx.Object, error) { return newEntry(t), nil }
	if _, err := Insert(context.Background(), path, UpdateOptions{}, "agent:main:main", build); !errors.Is(err, ErrEntryExists) {
		t.Errorf("existing key: %v", err)
	}
	unchanged("existing key")
	boom := errors.New("boom")
	if _, err := Insert(context.Background(), path, UpdateOptions{}, "new", func(*Store) (*jsonx.Object, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Errorf("build error: %v", err)
	}
	unchanged("build error")
	sq := filepath.Join(t.TempDir(), "openclaw-agent.sqlite")
	_ = os.WriteFile(sq, []byte("SQLite format 3\x00"), 0o600)
	if _, err := Insert(context.Background(), path, UpdateOptions{SQLitePath: sq}, "new", build); apperr.CodeOf(err) != apperr.CodeState {
		t.Errorf("sqlite era: %v", err)
	}
	unchanged("sqlite era")
	h, err := lock.AcquireStore(context.Background(), path, lock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Insert(context.Background(), path, UpdateOptions{LockTimeout: 150 * time.Millisecond}, "new", build); apperr.CodeOf(err) != apperr.CodeLock {
		t.Errorf("lock held: %v", err)
	}
	_ = h.Release()
	unchanged("lock held")
	for name, data := range map[string]string{"truncated": string(orig[:len(orig)/2]), "not an object": "[1,2]", "empty": "", "trailing garbage": string(orig) + "x"} {
		_ = os.WriteFile(path, []byte(data), 0o600)
		if _, err := Insert(context.Background(), path, UpdateOptions{}, "new", build); apperr.CodeOf(err) != apperr.CodeState {
			t.Errorf("%s: %v", name, err)
		}
		if got, _ := os.ReadFile(path); string(got) != data {
			t.Errorf("%s: store changed", name)
		}
	}
}

// insertBigStore writes a store of about 10 MB (the fixture's entries cloned
// under new keys, as OpenClaw formats it), big enough for the parallel scan.
func insertBigStore(t *testing.T) string {
	t.Helper()
	orig, err := os.ReadFile(fixtureStore)
	if err != nil {
		t.Fatal(err)
	}
	st, err := Parse(fixtureStore, orig)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	b.WriteString("{")
	n := 0
	for b.Len() < 10<<20 {
		for _, e := range st.Entries {
			var ind bytes.Buffer
			_ = jsonIndent(&ind, e.Raw)
			if n > 0 {
				b.WriteString(",")
			}
			b.WriteString("\n  \"agent:main:synthetic:" + strconv.Itoa(n) + "\": ")
			b.Write(ind.Bytes())
			n++
		}
	}
	b.WriteString("\n}")
	p := filepath.Join(t.TempDir(), "sessions.json")
	if err := os.WriteFile(p, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestInsertBigStoreParallel(t *testing.T) {
	if runtime.GOMAXPROCS(0) < 2 {
		t.Skip("one CPU: no parallel scan")
	}
	p1 := insertBigStore(t)
	data, _ := os.ReadFile(p1)
	p2 := filepath.Join(filepath.Dir(p1), "copy.json")
	_ = os.WriteFile(p2, data, 0o600)
	st := &Store{index: map[string]int{}}
	if !st.parseBytes(data) {
		t.Fatal("parallel scan refused a valid store")
	}
	ref, _ := Parse(p1, data)
	if len(st.Entries) != len(ref.Entries) || st.Entries[len(st.Entries)-1].Key != ref.Entries[len(ref.Entries)-1].Key {
		t.Fatalf("parallel scan: %d entries, sequential %d", len(st.Entries), len(ref.Entries))
	}
	const key = "agent:main:subagent:6f1f4c5e-1b7d-4d6b-9a1e-0f0c2e1b9d77"
	if _, err := Insert(context.Background(), p1, UpdateOptions{}, key, func(s *Store) (*jsonx.Object, error) {
		if _, ok := s.Lookup("agent:main:synthetic:7"); !ok {
			t.Error("lookup in the parallel view failed")
		}
		return newEntry(t), nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := Update(context.Background(), p2, UpdateOptions{}, func(tx *Tx) error { tx.Put(key, newEntry(t)); return nil }); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(p1)
	b, _ := os.ReadFile(p2)
	if !bytes.Equal(a, b) {
		t.Fatal("Insert and Update differ on the big store")
	}
	// a broken byte late in the file: refused (exit 10), nothing written
	bad := append([]byte(nil), data...)
	i := bytes.LastIndex(bad, []byte(`"sessionId"`))
	bad[i+3] = '\n' // a raw newline inside a string
	_ = os.WriteFile(p1, bad, 0o600)
	if _, err := Insert(context.Background(), p1, UpdateOptions{}, key, func(*Store) (*jsonx.Object, error) { return newEntry(t), nil }); apperr.CodeOf(err) != apperr.CodeState {
		t.Errorf("corrupt big store: %v", err)
	}
	if got, _ := os.ReadFile(p1); !bytes.Equal(got, bad) {
		t.Error("corrupt store changed")
	}
}

func jsonIndent(dst *bytes.Buffer, raw []byte) error { return json.Indent(dst, raw, "  ", "  ") }
