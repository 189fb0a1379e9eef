package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/lock"
)

const fixtureStore = "../../testdata/state-2026.1.30/agents/main/sessions/sessions.json"

func copyFixture(t *testing.T) (path string, orig []byte) {
	t.Helper()
	orig, err := os.ReadFile(fixtureStore)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path = filepath.Join(dir, "sessions.json")
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	return path, orig
}

// entryBytes returns the raw bytes of every top-level value, by key.
func entryBytes(t *testing.T, data []byte) (keys []string, vals map[string]string) {
	t.Helper()
	if !gjson.ValidBytes(data) {
		t.Fatalf("invalid JSON:\n%s", data)
	}
	vals = map[string]string{}
	gjson.ParseBytes(data).ForEach(func(k, v gjson.Result) bool {
		keys = append(keys, k.String())
		vals[k.String()] = v.Raw
		return true
	})
	return keys, vals
}

func setField(key, field string, v any) func(tx *Tx) error {
	return func(tx *Tx) error {
		e, ok := tx.Entry(key)
		if !ok {
			return fmt.Errorf("no entry %s", key)
		}
		if err := e.Set(field, v); err != nil {
			return err
		}
		tx.Put(key, e)
		return nil
	}
}

// TestUpdateRoundTripBytes: touching one entry leaves every other entry's
// bytes, the key order and the file framing exactly as OpenClaw wrote them.
func TestUpdateRoundTripBytes(t *testing.T) {
	path, orig := copyFixture(t)
	const key = "agent:main:telegram:group:-100123"
	res, err := Update(context.Background(), path, UpdateOptions{}, setField(key, "sendPolicy", "deny"))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Wrote || len(res.Touched) != 1 || res.Touched[0] != key {
		t.Fatalf("result %+v", res)
	}
	got, _ := os.ReadFile(path)
	okeys, ovals := entryBytes(t, orig)
	nkeys, nvals := entryBytes(t, got)
	if strings.Join(okeys, "\n") != strings.Join(nkeys, "\n") {
		t.Fatalf("key order changed:\n%v\n%v", okeys, nkeys)
	}
	for _, k := range okeys {
		if k == key {
			continue
		}
		if ovals[k] != nvals[k] {
			t.Errorf("entry %s changed", k)
		}
	}
	// The touched entry: the original object plus sendPolicy at the end,
	// every unknown field kept, 2-space indentation at depth 1.
	var want bytes.Buffer
	o := jsonx.NewObject()
	_ = o.UnmarshalJSON([]byte(ovals[key]))
	_ = o.Set("sendPolicy", "deny")
	c, _ := o.MarshalJSON()
	_ = json.Indent(&want, c, "  ", "  ")
	if nvals[key] != want.String() {
		t.Errorf("touched entry:\n%s\nwant\n%s", nvals[key], want.String())
	}
	// Framing: only the touched entry's bytes differ.
	i := bytes.Index(orig, []byte(ovals[key]))
	j := bytes.Index(got, []byte(nvals[key]))
	if i < 0 || j != i || !bytes.Equal(orig[:i], got[:j]) || !bytes.Equal(orig[i+len(ovals[key]):], got[j+len(nvals[key]):]) {
		t.Error("bytes outside the touched entry changed")
	}
	if bytes.HasSuffix(got, []byte("\n")) {
		t.Error("trailing newline")
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600", st.Mode().Perm())
	}
	if tmps := TempFiles(path); len(tmps) != 0 {
		t.Errorf("temp files left: %v", tmps)
	}
	if _, err := os.Stat(lock.StoreLockPath(path)); !os.IsNotExist(err) {
		t.Errorf("lock left: %v", err)
	}
	if res.Timings.Held <= 0 || res.Timings.Held > 5*time.Second {
		t.Errorf("held %v", res.Timings.Held)
	}
}

// TestUpdateFormatLikeOpenClaw: JSON.stringify(store, null, 2) for new and
// edited entries: no HTML escaping, raw UTF-8, JS key order for array-index
// keys, "{}" for an empty store.
func TestUpdateFormatLikeOpenClaw(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sessions.json")
	_, err := Update(context.Background(), path, UpdateOptions{Create: true}, func(tx *Tx) error {
		if !tx.Missing() {
			t.Error("not missing")
		}
		e := jsonx.NewObject()
		_ = e.Set("sessionId", "s1")
		_ = e.Set("updatedAt", 1795236253191)
		_ = e.Set("label", "<a&b> ünï")
		_ = e.Set("nested", map[string]any{"arr": []any{}, "o": map[string]any{}})
		tx.Put("b", e)
		tx.Put("10", jsonx.NewObject())
		tx.Put("2", jsonx.NewObject())
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := `{
  "2": {},
  "10": {},
  "b": {
    "sessionId": "s1",
    "updatedAt": 1795236253191,
    "label": "<a&b> ünï",
    "nested": {
      "arr": [],
      "o": {}
    }
  }
}`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	_, err = Update(context.Background(), path, UpdateOptions{}, func(tx *Tx) error {
		for _, k := range tx.Keys() {
			tx.Delete(k)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{}" {
		t.Errorf("empty store: %q", got)
	}
}

func TestUpdateNoChangeNoWrite(t *testing.T) {
	path, orig := copyFixture(t)
	before, _ := os.Stat(path)
	res, err := Update(context.Background(), path, UpdateOptions{}, func(tx *Tx) error { return nil })
	if err != nil || res.Wrote {
		t.Fatalf("res %+v err %v", res, err)
	}
	after, _ := os.Stat(path)
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, orig) || !os.SameFile(before, after) || after.Mode() != before.Mode() {
		t.Error("store rewritten although nothing changed")
	}
}

func TestUpdateRefusesCorrupt(t *testing.T) {
	for name, content := range map[string]string{
		"empty":     "",
		"blank":     "  \n",
		"truncated": "{\n  \"a\": {\n    \"sessionId\": \"x\",\n",
		"array":     `[{"sessionId":"x"}]`,
		"scalar":    "42",
		"null":      "null",
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sessions.json")
			_ = os.WriteFile(path, []byte(content), 0o644)
			called := false
			_, err := Update(context.Background(), path, UpdateOptions{Create: true}, func(tx *Tx) error { called = true; return nil })
			if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), "is corrupt") || !strings.Contains(err.Error(), path) {
				t.Fatalf("err = %v (code %d)", err, apperr.CodeOf(err))
			}
			if called {
				t.Error("fn called on a corrupt store")
			}
			got, _ := os.ReadFile(path)
			st, _ := os.Stat(path)
			if string(got) != content || st.Mode().Perm() != 0o644 {
				t.Error("corrupt store changed")
			}
			if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
				t.Errorf("files left: %v", ents)
			}
		})
	}
}

func TestUpdateRefusesSQLiteEra(t *testing.T) {
	state := t.TempDir()
	sqlite := filepath.Join(state, "agents", "main", "agent", "openclaw-agent.sqlite")
	_ = os.MkdirAll(filepath.Dir(sqlite), 0o755)
	_ = os.WriteFile(sqlite, []byte("SQLite format 3\x00"), 0o644)
	path := filepath.Join(state, "agents", "main", "sessions", "sessions.json")
	_, err := Update(context.Background(), path, UpdateOptions{Create: true, SQLitePath: sqlite}, setField("k", "x", 1))
	if apperr.CodeOf(err) != apperr.CodeState || !strings.Contains(err.Error(), sqlite) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Error("sessions dir created for a SQLite-era agent")
	}
}

func TestUpdateMissing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agents", "x", "sessions", "sessions.json")
	_, err := Update(context.Background(), path, UpdateOptions{}, setField("k", "x", 1))
	if apperr.CodeOf(err) != apperr.CodeState || !errors.Is(err, ErrStoreMissing) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Dir(path)); !os.IsNotExist(err) {
		t.Error("dir created without Create")
	}
	res, err := Update(context.Background(), path, UpdateOptions{Create: true}, func(tx *Tx) error {
		e := jsonx.NewObject()
		_ = e.Set("sessionId", "s")
		tx.Put("k", e)
		return nil
	})
	if err != nil || !res.Created {
		t.Fatalf("res %+v err %v", res, err)
	}
	if got, _ := os.ReadFile(path); string(got) != "{\n  \"k\": {\n    \"sessionId\": \"s\"\n  }\n}" {
		t.Errorf("got %q", got)
	}
}

// TestUpdateJSON5: a JSON5 store (comments, trailing commas) is rewritten
// as strict JSON; legacy fields of touched entries migrated.
func TestUpdateJSON5(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sessions.json")
	_ = os.WriteFile(path, []byte("// hand edited\n{\n  a: {sessionId: 's1', updatedAt: 1,},\n  'b': {sessionId: 's2', provider: 'signal', room: '#r'},\n}\n"), 0o600)
	res, err := Update(context.Background(), path, UpdateOptions{}, setField("b", "label", "L"))
	if err != nil || !res.JSON5 {
		t.Fatalf("res %+v err %v", res, err)
	}
	got, _ := os.ReadFile(path)
	want := "{\n  \"a\": {\n    \"sessionId\": \"s1\",\n    \"updatedAt\": 1\n  },\n  \"b\": {\n    \"sessionId\": \"s2\",\n    \"label\": \"L\",\n    \"channel\": \"signal\",\n    \"groupChannel\": \"#r\",\n    \"deliveryContext\": {\n      \"channel\": \"signal\"\n    },\n    \"lastChannel\": \"signal\"\n  }\n}"
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

func TestUpdateModeNeverWidened(t *testing.T) {
	path, _ := copyFixture(t)
	_ = os.Chmod(path, 0o400)
	if _, err := Update(context.Background(), path, UpdateOptions{}, setField("agent:main:main", "x", 1)); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Mode().Perm() != 0o400 {
		t.Errorf("mode %v, want 0400", st.Mode().Perm())
	}
}

func TestUpdateFnErrorAndPanicLeaveNothing(t *testing.T) {
	path, orig := copyFixture(t)
	boom := errors.New("boom")
	_, err := Update(context.Background(), path, UpdateOptions{}, func(tx *Tx) error {
		tx.Delete("agent:main:main")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v", err)
	}
	func() {
		defer func() {
			if recover() == nil {
				t.Error("no panic")
			}
		}()
		_, _ = Update(context.Background(), path, UpdateOptions{}, func(tx *Tx) error { panic("fn panics") })
	}()
	got, _ := os.ReadFile(path)
	if !bytes.Equal(got, orig) {
		t.Error("store changed")
	}
	if ents, _ := os.ReadDir(filepath.Dir(path)); len(ents) != 1 {
		t.Errorf("files left: %v", ents)
	}
}

func TestUpdateLockHeldTimesOut(t *testing.T) {
	path, orig := copyFixture(t)
	h, err := lock.AcquireStore(context.Background(), path, lock.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Release()
	start := time.Now()
	_, err = Update(context.Background(), path, UpdateOptions{LockTimeout: 200 * time.Millisecond}, setField("agent:main:main", "x", 1))
	if apperr.CodeOf(err) != apperr.CodeLock || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("err = %v", err)
	}
	if d := time.Since(start); d < 200*time.Millisecond || d > 2*time.Second {
		t.Errorf("waited %v", d)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, orig) {
		t.Error("store changed")
	}
}

// TestUpdateSweepsDeadTemps: temp files of dead writers are removed; live
// ones (another live pid) are left alone.
func TestUpdateSweepsDeadTemps(t *testing.T) {
	path, _ := copyFixture(t)
	dead := path + ".4194303.0b5e3f3a-7a0e-4a53-9a7f-1d1c8c1a2b3c.tmp"
	live := path + ".1.0b5e3f3a-7a0e-4a53-9a7f-1d1c8c1a2b3d.tmp" // pid 1 exists
	other := path + ".bak"
	for _, p := range []string{dead, live, other} {
		_ = os.WriteFile(p, []byte("x"), 0o600)
	}
	if _, err := Update(context.Background(), path, UpdateOptions{}, setField("agent:main:main", "x", 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dead); !os.IsNotExist(err) {
		t.Error("dead writer's temp file kept")
	}
	for _, p := range []string{live, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed", p)
		}
	}
}

// TestUpdateConcurrentNoLostUpdates: goroutines incrementing one counter
// each under Update: no update lost, the store always valid.
func TestUpdateConcurrentNoLostUpdates(t *testing.T) {
	path, _ := copyFixture(t)
	const workers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				_, err := Update(context.Background(), path, UpdateOptions{LockTimeout: 30 * time.Second}, incr("agent:main:main", "goCounter"))
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if n := gjson.GetBytes(data, gjson.Escape("agent:main:main")+".goCounter").Int(); n != workers*each {
		t.Errorf("counter %d, want %d", n, workers*each)
	}
}

func incr(key, field string) func(tx *Tx) error {
	return func(tx *Tx) error {
		e, ok := tx.Entry(key)
		if !ok {
			return fmt.Errorf("no entry %s", key)
		}
		n, _ := e.Number(field)
		_ = e.Set(field, int64(n)+1)
		if u, ok := e.Number("updatedAt"); !ok || u < float64(tx.Now().UnixMilli()) {
			_ = e.Set("updatedAt", tx.Now().UnixMilli())
		}
		tx.Put(key, e)
		return nil
	}
}

func TestJSKeyOrder(t *testing.T) {
	got := jsKeyOrder([]string{"b", "10", "a", "2", "01", "4294967295", "0", "-1"})
	want := "0 2 10 b a 01 4294967295 -1"
	if strings.Join(got, " ") != want {
		t.Errorf("got %v want %s", got, want)
	}
}
