package sqlitestore

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/testutil"
	"github.com/openclaw/sessions/internal/testutil/schema24"
)

// fixture98 is fixture migrated to OpenClaw 2026.9.8's agent schema 24.
const fixture98 = "../../testdata/state-2026.9.8"

func copyFixture98(t testing.TB) string {
	t.Helper()
	dst := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(fixture98, dst); err != nil {
		t.Fatal(err)
	}
	return dst
}

func decode(t *testing.T, raw []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("%v: %.200s", err, raw)
	}
	return m
}

// Store and EntryRaw give every entry of a schema-24 store with its
// session_entry_snapshots put back: the same JSON as the schema-23 store
// the 24 one was migrated from; the moved members come last (their place
// is not stored), the others keep their bytes and order. No warning: 24 is
// known. The files are not touched.
func TestSchema24ReadsAsSchema23(t *testing.T) {
	for _, agent := range []string{"main", "ops"} {
		dir := copyFixture98(t)
		before := snapshot(t, dir)
		var warns []string
		db24, err := Open(Path(dir, agent), Options{Warn: func(m string) { warns = append(warns, m) }})
		if err != nil {
			t.Fatal(err)
		}
		db23, err := Open(Path(fixture, agent), Options{})
		if err != nil {
			t.Fatal(err)
		}
		st24, err := db24.Store()
		if err != nil {
			t.Fatal(err)
		}
		st23, err := db23.Store()
		if err != nil {
			t.Fatal(err)
		}
		if len(st24.Entries) == 0 || len(st24.Entries) != len(st23.Entries) {
			t.Fatalf("%s: %d entries, want %d", agent, len(st24.Entries), len(st23.Entries))
		}
		for i, e := range st24.Entries {
			o := st23.Entries[i]
			if e.Key != o.Key || !reflect.DeepEqual(e.Meta, o.Meta) {
				t.Errorf("%s: entry %d: %s/%s or Meta differs", agent, i, e.Key, o.Key)
			}
			if !reflect.DeepEqual(decode(t, e.Raw), decode(t, o.Raw)) {
				t.Errorf("%s: Raw of %s differs from schema 23's", agent, e.Key)
			}
			hot, snaps, err := schema24.Split(o.Raw)
			if err != nil || len(snaps) != 2 {
				t.Fatalf("%s: the 9.6 entry has %d snapshot fields (%v)", agent, len(snaps), err)
			}
			want := string(hot[:len(hot)-1]) + `,"skillsSnapshot":` + string(snaps["skillsSnapshot"]) + `,"systemPromptReport":` + string(snaps["systemPromptReport"]) + "}"
			if string(e.Raw) != want {
				t.Errorf("%s: Raw of %s is not the hot entry with the snapshots appended", agent, e.Key)
			}
			raw, ok, err := db24.EntryRaw(e.Key)
			if err != nil || !ok || string(raw) != want {
				t.Errorf("%s: EntryRaw(%s) = %v %v, differs from Store's", agent, e.Key, ok, err)
			}
		}
		// The direct read of session_nodes takes the 24 table (one more
		// column) and gives what SQLite gives.
		if db24.direct == nil || db24.directReads == 0 {
			t.Errorf("%s: the direct read did not read the schema-24 table", agent)
		}
		directRead = false
		viaSQL, err := db24.Store()
		directRead = true
		if err != nil || !reflect.DeepEqual(viaSQL.Entries, st24.Entries) {
			t.Errorf("%s: Store through SQLite differs from the direct read (%v)", agent, err)
		}
		meta, err := db24.StoreMeta()
		if err != nil || len(meta.Entries) != len(st24.Entries) {
			t.Fatalf("StoreMeta: %v", err)
		}
		for i, e := range meta.Entries {
			if !reflect.DeepEqual(e.Meta, st24.Entries[i].Meta) {
				t.Errorf("%s: StoreMeta's %s differs from Store's", agent, e.Key)
			}
		}
		db24.Close()
		db23.Close()
		if len(warns) != 0 {
			t.Errorf("warnings on a schema-24 store: %q", warns)
		}
		assertUnchanged(t, dir, before)
	}
}

// A store newer than 24 is read for what this version knows, with one
// warning however often it is opened in the process (a command opens a
// store from several places), naming what helps and never
// openclaw doctor --fix.
func TestNewerSchemaWarnsOncePerStore(t *testing.T) {
	dir := copyFixture98(t)
	p := Path(dir, "main")
	if err := schema24.SetUserVersion(p, 25); err != nil {
		t.Fatal(err)
	}
	other := Path(dir, "ops")
	if err := schema24.SetUserVersion(other, 26); err != nil {
		t.Fatal(err)
	}
	var warns []string
	warn := func(m string) { warns = append(warns, m) }
	for range 3 {
		for _, path := range []string{p, other} {
			db, err := Open(path, Options{Warn: warn})
			if err != nil {
				t.Fatal(err)
			}
			st, err := db.Store()
			if err != nil || len(st.Entries) == 0 {
				t.Fatalf("Store: %v", err)
			}
			db.Close()
		}
	}
	if len(warns) != 2 {
		t.Fatalf("warns = %q, want one per store", warns)
	}
	for i, v := range []string{"25", "26"} {
		w := warns[i]
		if !strings.Contains(w, "schema version "+v+", newer than 24") || !strings.Contains(w, "gateway") ||
			!strings.Contains(w, "newer sessions") || strings.Contains(w, "doctor") {
			t.Errorf("warning %q", w)
		}
	}
	// The entries still carry their snapshots.
	db, err := Open(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	raw, ok, err := db.EntryRaw("agent:main:main")
	if err != nil || !ok || !strings.Contains(string(raw), `"skillsSnapshot":{`) {
		t.Errorf("EntryRaw on schema 25: %v %v", ok, err)
	}
}

func TestAttachSnapshots(t *testing.T) {
	v := map[string][]byte{"skillsSnapshot": []byte(`{"s":1}`), "systemPromptReport": []byte(`[2]`)}
	for _, c := range []struct{ in, want string }{
		// appended after the other members, in OpenClaw's field order
		{`{"sessionId":"a","updatedAt":1}`, `{"sessionId":"a","updatedAt":1,"skillsSnapshot":{"s":1},"systemPromptReport":[2]}`},
		// a row still pending its split: the snapshot wins, in place
		{`{"systemPromptReport":"old","sessionId":"a", "skillsSnapshot" : {"x":[1,2]},"updatedAt":1}`, `{"systemPromptReport":[2],"sessionId":"a", "skillsSnapshot" : {"s":1},"updatedAt":1}`},
		{`{}`, `{"skillsSnapshot":{"s":1},"systemPromptReport":[2]}`},
		{` { "a" : 1 } `, ` { "a" : 1 ,"skillsSnapshot":{"s":1},"systemPromptReport":[2]} `},
		// not one object: as it is
		{`[1]`, `[1]`},
		{`{"a":1}{}`, `{"a":1}{}`},
		{`{"a":`, `{"a":`},
	} {
		if got := string(attachSnapshots([]byte(c.in), v)); got != c.want {
			t.Errorf("attachSnapshots(%s) = %s, want %s", c.in, got, c.want)
		}
		if strings.HasPrefix(c.want, "{") || strings.HasPrefix(c.want, " {") {
			var m map[string]any
			if err := json.Unmarshal([]byte(c.want), &m); err != nil && c.in != `{"a":1}{}` && c.in != `{"a":` {
				t.Errorf("%s: not JSON: %v", c.want, err)
			}
		}
	}
	if got := string(attachSnapshots([]byte(`{"a":1}`), map[string][]byte{"other": []byte(`1`)})); got != `{"a":1}` {
		t.Errorf("a field that is not a snapshot field was attached: %s", got)
	}
}
