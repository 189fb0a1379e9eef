package storecache

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/mapfile"
	"github.com/openclaw/sessions/internal/store"
)

// testDisk is a disk tier in a temporary dir that keeps stores of any size,
// on a clock ahead of the file system's by more than RacyWindow (a store
// that has been quiet), unless now is given.
func testDisk(t testing.TB, now func() time.Time) *Disk {
	d := NewDisk(filepath.Join(t.TempDir(), "cache", "sessions", "stores"), 0)
	d.now = now
	if now == nil {
		d.now = func() time.Time { return time.Now().Add(RacyWindow + time.Second) }
	}
	return d
}

// diskLabel loads l.p through d and returns the label of agent:main:main.
func diskLabel(t *testing.T, d *Disk, l *loader) string {
	t.Helper()
	st, err := d.Load(l.p, []string{l.p}, func(string) {}, l.load)
	if err != nil {
		t.Fatal(err)
	}
	e, ok := st.Lookup("agent:main:main")
	if !ok {
		t.Fatal("no agent:main:main")
	}
	return e.Label
}

// The disk tier serves a store from its cache file while the store's file
// is unchanged — another process (a fresh Disk on the same dir) too — and
// sees every kind of change.
func TestDiskServedUntilChanged(t *testing.T) {
	dir := t.TempDir()
	l := &loader{p: filepath.Join(dir, "sessions.json")}
	writeStore(t, l.p, "one-1")
	d := testDisk(t, nil)
	for range 3 {
		if got := diskLabel(t, d, l); got != "one-1" {
			t.Fatalf("label %q", got)
		}
	}
	other := NewDisk(d.dir, 0) // another process
	other.now = d.now
	if got := diskLabel(t, other, l); got != "one-1" || l.n.Load() != 1 {
		t.Fatalf("label %q after %d loads: an unchanged store was parsed again", got, l.n.Load())
	}
	fi, _ := os.Stat(filepath.Join(d.dir))
	if fi.Mode().Perm() != 0o700 {
		t.Fatalf("cache dir mode %v", fi.Mode())
	}
	files, _ := filepath.Glob(filepath.Join(d.dir, "*"))
	if len(files) != 1 {
		t.Fatalf("cache files %v", files)
	}
	if fi, _ := os.Stat(files[0]); fi.Mode().Perm() != 0o600 {
		t.Fatalf("cache file mode %v", fi.Mode())
	}

	// same size, mtime put back: the ctime tells
	fi, _ = os.Stat(l.p)
	time.Sleep(20 * time.Millisecond)
	writeStore(t, l.p, "two-2")
	if err := os.Chtimes(l.p, fi.ModTime(), fi.ModTime()); err != nil {
		t.Fatal(err)
	}
	if got := diskLabel(t, d, l); got != "two-2" {
		t.Fatalf("a same-size rewrite with its mtime put back was not seen: %q", got)
	}
	// a replacement by rename: the inode tells
	tmp := l.p + ".tmp"
	writeStore(t, tmp, "three")
	if err := os.Rename(tmp, l.p); err != nil {
		t.Fatal(err)
	}
	if got := diskLabel(t, d, l); got != "three" {
		t.Fatalf("a replacement was not seen: %q", got)
	}
	n := l.n.Load()
	if got := diskLabel(t, d, l); got != "three" || l.n.Load() != n {
		t.Fatalf("label %q, %d loads: not served again", got, l.n.Load()-n)
	}
}

// A store read within RacyWindow of its last change is never written to
// the cache; and a store smaller than the tier's minimum is not cached.
func TestDiskRacyAndSmallNotKept(t *testing.T) {
	dir := t.TempDir()
	l := &loader{p: filepath.Join(dir, "sessions.json")}
	writeStore(t, l.p, "one-1")
	d := testDisk(t, time.Now) // the file has just been written
	for range 2 {
		diskLabel(t, d, l)
	}
	if l.n.Load() != 2 {
		t.Fatalf("%d loads: a racy read was kept", l.n.Load())
	}
	if _, err := os.Stat(d.dir); !os.IsNotExist(err) {
		t.Fatalf("cache dir written for a racy read: %v", err)
	}
	big := testDisk(t, nil)
	big.minSize = 1 << 20
	for range 2 {
		diskLabel(t, big, l)
	}
	if l.n.Load() != 4 {
		t.Fatalf("%d loads: a small store was cached", l.n.Load())
	}
}

// A cache file that is not exactly what this tier wrote for this store at
// this version is ignored, and the store parsed: corrupt, truncated,
// foreign, another store's, another build's, readable by others, not a
// regular file. An unusable cache dir changes nothing but the cost.
func TestDiskBadCacheIgnored(t *testing.T) {
	dir := t.TempDir()
	l := &loader{p: filepath.Join(dir, "sessions.json")}
	writeStore(t, l.p, "one-1")
	l2 := &loader{p: filepath.Join(dir, "other.json")}
	writeStore(t, l2.p, "two-2")
	d := testDisk(t, nil)
	diskLabel(t, d, l)
	diskLabel(t, d, l2)
	cf, other := d.file(l.p), d.file(l2.p)
	good, err := os.ReadFile(cf)
	if err != nil {
		t.Fatal(err)
	}
	otherData, _ := os.ReadFile(other)
	flip := func(i int) []byte { b := []byte(string(good)); b[i] ^= 0x20; return b }
	exe := d.exe
	exe.size++
	otherBuild := encode(exe, l.p, []string{l.p}, mustVersions(t, l.p), nil, mustLoad(t, l.p))
	for _, c := range []struct {
		name  string
		setup func()
	}{
		{"corrupt payload", func() { os.WriteFile(cf, flip(len(good)-3), 0o600) }},
		{"corrupt checksum", func() { os.WriteFile(cf, flip(len(diskMagic)+1), 0o600) }},
		{"truncated", func() { os.WriteFile(cf, good[:len(good)/2], 0o600) }},
		{"empty", func() { os.WriteFile(cf, nil, 0o600) }},
		{"foreign", func() { os.WriteFile(cf, []byte(strings.Repeat("not a cache\n", 20)), 0o600) }},
		{"another store's", func() { os.WriteFile(cf, otherData, 0o600) }},
		{"another build's", func() { os.WriteFile(cf, otherBuild, 0o600) }},
		{"readable by others", func() { os.WriteFile(cf, good, 0o600); os.Chmod(cf, 0o644) }},
		{"a directory", func() { os.Remove(cf); os.Mkdir(cf, 0o700) }},
		{"cache dir open to others", func() { os.RemoveAll(cf); os.WriteFile(cf, good, 0o600); os.Chmod(d.dir, 0o755) }},
	} {
		c.setup()
		n := l.n.Load()
		if got := diskLabel(t, d, l); got != "one-1" || l.n.Load() != n+1 {
			t.Errorf("%s: label %q, %d loads (want the store parsed)", c.name, got, l.n.Load()-n)
		}
		os.Chmod(d.dir, 0o700)
		os.RemoveAll(cf)
		os.WriteFile(cf, good, 0o600)
		n = l.n.Load()
		if got := diskLabel(t, d, l); got != "one-1" || l.n.Load() != n {
			t.Fatalf("%s: the good file was not served again (%q, %d loads)", c.name, got, l.n.Load()-n)
		}
	}

	// a cache dir that cannot be created (a file in its place), or is not
	// writable: every call parses, none fails
	blocked := NewDisk(filepath.Join(t.TempDir(), "file"), 0)
	blocked.now = d.now
	os.WriteFile(blocked.dir, nil, 0o600)
	ro := NewDisk(filepath.Join(t.TempDir(), "ro"), 0)
	ro.now = d.now
	os.Mkdir(ro.dir, 0o500)
	for _, bd := range []*Disk{blocked, ro} {
		n := l.n.Load()
		for range 2 {
			if got := diskLabel(t, bd, l); got != "one-1" {
				t.Fatalf("label %q", got)
			}
		}
		if l.n.Load() != n+2 && os.Geteuid() != 0 {
			t.Fatalf("%s: %d loads", bd.dir, l.n.Load()-n)
		}
	}
}

func mustVersions(t *testing.T, p string) []Version {
	vs, err := versionsOf([]string{p})
	if err != nil {
		t.Fatal(err)
	}
	return vs
}

func mustLoad(t *testing.T, p string) *store.Store {
	st, err := store.LoadMeta(p)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// The codec stores every field of store.Meta: a field added there fails
// here until encode and decode carry it.
func TestDiskCodecCoversMeta(t *testing.T) {
	typ := reflect.TypeFor[store.Meta]()
	var names []string
	for i := range typ.NumField() {
		names = append(names, typ.Field(i).Name+":"+typ.Field(i).Type.String())
	}
	want := "SessionID:string UpdatedAt:*float64 SessionFile:string SpawnedBy:string Label:string DisplayName:string " +
		"Channel:string ChatType:string LastChannel:string LastTo:string LastAccountID:string DC:*sessionrow.DeliveryContext " +
		"Model:string ModelProvider:string ModelOverride:string ProviderOverride:string ContextTokens:*float64 " +
		"TotalTokens:*float64 InputTokens:*float64 OutputTokens:*float64 ThinkingLevel:string VerboseLevel:string " +
		"SendPolicy:string SystemSent:*bool AbortedLastRun:*bool"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("store.Meta is now\n%s\nthe disk codec knows\n%s", got, want)
	}
	// every field set, each to a value of its own
	r := rand.New(rand.NewPCG(1, 2))
	var entries []store.Entry
	for i := range 50 {
		var m store.Meta
		v := reflect.ValueOf(&m).Elem()
		for j := range v.NumField() {
			f := v.Field(j)
			if r.IntN(3) == 0 {
				continue // absent
			}
			switch f.Kind() {
			case reflect.String:
				f.SetString(randText(r))
			case reflect.Pointer:
				switch f.Type().Elem().Kind() {
				case reflect.Float64:
					x := r.NormFloat64() * 1e12
					f.Set(reflect.ValueOf(&x))
				case reflect.Bool:
					b := r.IntN(2) == 0
					f.Set(reflect.ValueOf(&b))
				default:
					f.Set(reflect.ValueOf(&store.DeliveryContext{Channel: randText(r), To: randText(r), AccountID: randText(r)}))
				}
			}
		}
		entries = append(entries, store.Entry{Key: fmt.Sprintf("agent:main:%d:%s", i, randText(r)), Meta: m})
	}
	st := store.Restore("/x/sessions.json", entries, 3, false, true)
	vers := []Version{{exists: true, dev: 1, ino: 2, size: 3, mtime: -4, ctime: 5}}
	data := encode(Version{exists: true, size: 9}, "/x/sessions.json", []string{"/x/sessions.json"}, vers, []string{"w1", "ü"}, st)
	got, warns, ok := decode(data, Version{exists: true, size: 9}, "/x/sessions.json", []string{"/x/sessions.json"}, vers)
	if !ok || !reflect.DeepEqual(warns, []string{"w1", "ü"}) || got.Skipped != 3 || !got.JSON5 || got.Missing {
		t.Fatalf("decode: ok %v, warns %q, %+v", ok, warns, got)
	}
	if !reflect.DeepEqual(got.Entries, entries) {
		t.Fatal("entries differ after a round trip")
	}
	// every prefix of the file, and every byte changed, is refused
	for i := 0; i < len(data); i += 7 {
		if _, _, ok := decode(data[:i], Version{exists: true, size: 9}, "/x/sessions.json", []string{"/x/sessions.json"}, vers); ok {
			t.Fatalf("a file cut at %d of %d was decoded", i, len(data))
		}
		b := []byte(string(data))
		b[i] ^= 1
		if _, _, ok := decode(b, Version{exists: true, size: 9}, "/x/sessions.json", []string{"/x/sessions.json"}, vers); ok {
			t.Fatalf("a file with byte %d changed was decoded", i)
		}
	}
}

func randText(r *rand.Rand) string {
	parts := []string{"", "a", "main", "é", "日本", "\x00", "\"", "\\", "\n", "🙂", "agent:main:", "  ", "\u2028"}
	var b strings.Builder
	for range r.IntN(4) {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return b.String()
}

// vfs is a file system with coarse timestamps for the fuzz below: every
// write of the store gets the virtual clock's time, cut to a whole second,
// as its mtime and ctime (the coarsest a real file system gives), and the
// disk tier sees those (with the real device, inode and size).
type vfs struct {
	now   time.Time // the virtual clock
	times map[string]int64
}

func (v *vfs) stat(p string) (Version, error) {
	ver, err := versionOf(p)
	if err != nil || !ver.exists {
		return ver, err
	}
	ver.mtime, ver.ctime = v.times[p], v.times[p]
	return ver, nil
}

func (v *vfs) write(t testing.TB, p string, data []byte, rename bool) {
	if rename {
		tmp := p + ".tmp"
		if err := os.WriteFile(tmp, data, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(tmp, p); err != nil {
			t.Fatal(err)
		}
	} else if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	v.times[p] = v.now.Truncate(time.Second).UnixNano()
}

// genEntry is one member of a generated store.
type genEntry struct {
	key, val string
}

// genKey is a member name as it stands in the file (quoted, escapes kept):
// a few, so that keys repeat.
func genKey(r *rand.Rand) string {
	keys := []string{`"agent:main:main`, `"agent:main:cron:x`, `"agent:main:telegram:group:1`, `"agent:ops:main`,
		`"agent:main:subagent:é`, `"agent:main:discord:channel:\u00e9`, `"agent:main:x\"y`, `"agent:main:日本`, `"k`}
	return keys[r.IntN(len(keys))] + strings.Repeat("1", r.IntN(3)) + `"`
}

// jq is s as a JSON string.
func jq(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func genValue(r *rand.Rand, ws string) string {
	if r.IntN(12) == 0 {
		return []string{"null", "1", `"x"`, "[]"}[r.IntN(4)] // not a session
	}
	var fields []string
	add := func(k, v string) { fields = append(fields, jq(k)+":"+ws+v) }
	add("sessionId", jq(fmt.Sprintf("%08x-0000-4000-8000-%012x", r.Uint32(), r.IntN(1e6))))
	if r.IntN(8) != 0 {
		add("updatedAt", []string{"1795236254224", "1795236254224.5", "1e12", "0", "-1", strconv.Itoa(1795236254000 + r.IntN(3))}[r.IntN(6)])
	}
	for _, k := range []string{"label", "displayName", "channel", "provider", "chatType", "lastChannel", "lastTo",
		"model", "sendPolicy", "spawnedBy", "sessionFile", "thinkingLevel", "modelProvider"} {
		if r.IntN(3) == 0 {
			add(k, jq(randText(r)))
		}
	}
	if r.IntN(4) == 0 {
		add("label", `"\u00e9\ud83d\ude42\n"`)
	}
	for _, k := range []string{"totalTokens", "inputTokens", "contextTokens"} {
		if r.IntN(3) == 0 {
			add(k, strconv.Itoa(r.IntN(1e6)))
		}
	}
	if r.IntN(3) == 0 {
		add("systemSent", []string{"true", "false", "null"}[r.IntN(3)])
	}
	if r.IntN(3) == 0 {
		add("deliveryContext", `{"channel":"telegram","to":`+jq(randText(r))+`,"x":[1,{"y":2}]}`)
	}
	if r.IntN(3) == 0 {
		add("skillsSnapshot", `{"prompt":"`+strings.Repeat("x", r.IntN(200))+`","skills":[{"name":"a"}]}`)
	}
	r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
	return "{" + ws + strings.Join(fields, ","+ws) + ws + "}"
}

func genStore(r *rand.Rand, entries []genEntry) []byte {
	pretty := r.IntN(3) != 0
	var b strings.Builder
	b.WriteString("{")
	for i, e := range entries {
		if i > 0 {
			b.WriteString(",")
		}
		if pretty {
			b.WriteString("\n  ")
		} else if r.IntN(4) == 0 {
			b.WriteString(" \t\r\n")
		}
		b.WriteString(e.key)
		b.WriteString(": ")
		b.WriteString(e.val)
	}
	if pretty && len(entries) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}")
	return []byte(b.String())
}

// sameStore compares what a listing reads of two stores: keys and Meta in
// order, and the flags.
func sameStore(a, b *store.Store) string {
	if a.Missing != b.Missing || a.JSON5 != b.JSON5 || a.Skipped != b.Skipped || a.Path != b.Path || a.Dir != b.Dir {
		return fmt.Sprintf("flags: %v %v %d %q / %v %v %d %q", a.Missing, a.JSON5, a.Skipped, a.Path, b.Missing, b.JSON5, b.Skipped, b.Path)
	}
	if len(a.Entries) != len(b.Entries) {
		return fmt.Sprintf("%d entries, want %d", len(a.Entries), len(b.Entries))
	}
	for i := range a.Entries {
		if a.Entries[i].Key != b.Entries[i].Key || !reflect.DeepEqual(a.Entries[i].Meta, b.Entries[i].Meta) {
			return fmt.Sprintf("entry %d: %q %+v, want %q %+v", i, a.Entries[i].Key, a.Entries[i].Meta, b.Entries[i].Key, b.Entries[i].Meta)
		}
		if e, ok := a.Lookup(b.Entries[i].Key); !ok || e.Key != b.Entries[i].Key {
			return fmt.Sprintf("lookup %q", b.Entries[i].Key)
		}
	}
	return ""
}

// sameListing compares a listing with the full parse b: the header, and
// for every entry its key, updatedAt and spawnedBy, and (for the indexes
// r picks, in r's order, some twice) the whole entry, now and then with
// the rest decoded at once (Prefetch) part of the way.
func sameListing(l *store.Listing, b *store.Store, r *rand.Rand) string {
	a := l.St
	if a.Missing != b.Missing || a.JSON5 != b.JSON5 || a.Skipped != b.Skipped || a.Path != b.Path || a.Dir != b.Dir {
		return fmt.Sprintf("flags: %v %v %d %q / %v %v %d %q", a.Missing, a.JSON5, a.Skipped, a.Path, b.Missing, b.JSON5, b.Skipped, b.Path)
	}
	if l.Len() != len(b.Entries) {
		return fmt.Sprintf("%d entries, want %d", l.Len(), len(b.Entries))
	}
	for i := range b.Entries {
		e := &b.Entries[i]
		u, has := l.UpdatedAt(i)
		if l.Key(i) != e.Key || l.SpawnedBy(i) != e.SpawnedBy || has != (e.UpdatedAt != nil) || has && u != *e.UpdatedAt || l.Updated(i) != e.Updated() {
			return fmt.Sprintf("entry %d: %q %q %v %v, want %q %q %v", i, l.Key(i), l.SpawnedBy(i), u, has, e.Key, e.SpawnedBy, e.UpdatedAt)
		}
	}
	perm := r.Perm(len(b.Entries) + len(b.Entries)/2)
	pre := r.IntN(2 * (len(perm) + 1)) // now and then all at once (Prefetch), after some were asked for
	for k, i := range perm {
		if k == pre {
			l.Prefetch()
		}
		if i >= len(b.Entries) {
			i -= len(b.Entries) // asked for again
		}
		if r.IntN(3) == 0 {
			continue // never asked for (this time)
		}
		got, want := l.Entry(i), &b.Entries[i]
		if got.Key != want.Key || !reflect.DeepEqual(got.Meta, want.Meta) {
			return fmt.Sprintf("entry %d whole: %q %+v, want %q %+v", i, got.Key, got.Meta, want.Key, want.Meta)
		}
	}
	return ""
}

// FuzzDiskTier: a store is written again and again — an entry appended,
// one rewritten (often to the same size), one deleted, the file replaced
// by rename or rewritten in place, within the same second or later, now
// and then corrupt — and after each write the disk tier's answer is
// compared with the full parse of the file as it is. The timestamps are a
// second coarse (vfs), so a rewrite within the same second keeps every
// part of the version but the size (or not even that): only the rule for
// recent writes keeps the tier exact. Now and then the cache file itself
// is damaged. After each write, once the store has been quiet, the cache
// must serve it (the test is not vacuous). Every answer is asked for twice:
// as a store (Load) and as a listing (LoadListing: each entry decoded only
// when asked for, in a random order), both compared with the full parse.
func FuzzDiskTier(f *testing.F) {
	for _, s := range []uint64{1, 2, 3, 42, 1795236254} {
		f.Add(s, uint8(12))
	}
	f.Fuzz(func(t *testing.T, seed uint64, steps uint8) {
		r := rand.New(rand.NewPCG(seed, seed>>7))
		dir := t.TempDir()
		p := filepath.Join(dir, "sessions.json")
		v := &vfs{now: time.Unix(1795236254, 0), times: map[string]int64{}}
		old := statVersion
		statVersion = v.stat
		defer func() { statVersion = old }()
		d := testDisk(t, func() time.Time { return v.now })
		var loads atomic.Int64
		load := func(func(string)) (*store.Store, error) { loads.Add(1); return store.LoadMeta(p) }
		var entries []genEntry
		for range 1 + r.IntN(8) {
			entries = append(entries, genEntry{genKey(r), genValue(r, "")})
		}
		v.write(t, p, genStore(r, entries), false)
		check := func(step int, what string, wantHit bool) {
			t.Helper()
			n := loads.Load()
			got, gerr := d.Load(p, []string{p}, func(string) {}, load)
			want, werr := store.LoadMeta(p)
			if (gerr != nil) != (werr != nil) {
				t.Fatalf("step %d (%s): error %v, the full parse's %v", step, what, gerr, werr)
			}
			if werr == nil {
				if diff := sameStore(got, want); diff != "" {
					t.Fatalf("step %d (%s): %s", step, what, diff)
				}
			}
			if wantHit && werr == nil && loads.Load() != n {
				t.Fatalf("step %d (%s): a quiet, cached store was parsed again", step, what)
			}
			// the same as a listing (LoadListing: decoded lazily from the
			// cache file), its entries asked for in a random order, some
			// never
			n = loads.Load()
			gotL, lerr := d.LoadListing(p, []string{p}, func(string) {}, load)
			if (lerr != nil) != (werr != nil) {
				t.Fatalf("step %d (%s): listing: error %v, the full parse's %v", step, what, lerr, werr)
			}
			if werr == nil {
				if diff := sameListing(gotL, want, r); diff != "" {
					t.Fatalf("step %d (%s): listing: %s", step, what, diff)
				}
			}
			if wantHit && werr == nil && loads.Load() != n {
				t.Fatalf("step %d (%s): listing: a quiet, cached store was parsed again", step, what)
			}
		}
		for step := range int(steps%24) + 1 {
			ws := []string{"", " ", "\n    ", "\t"}[r.IntN(4)]
			what := ""
			switch op := r.IntN(6); {
			case op == 0 || len(entries) == 0:
				what = "append"
				entries = append(entries, genEntry{genKey(r), genValue(r, ws)})
			case op == 1:
				what = "delete"
				i := r.IntN(len(entries))
				entries = append(entries[:i], entries[i+1:]...)
			case op == 2:
				what = "same-size rewrite"
				i := r.IntN(len(entries))
				val := []byte(entries[i].val)
				for j := range val { // one digit or letter changed in place
					if c := val[j]; c >= '0' && c <= '8' || c >= 'a' && c <= 'e' {
						val[j]++
						break
					}
				}
				entries[i].val = string(val)
			default:
				what = "rewrite"
				entries[r.IntN(len(entries))].val = genValue(r, ws)
			}
			lay := r.Uint64() // the layout (whitespace) of this step's writes
			data := genStore(rand.New(rand.NewPCG(lay, 1)), entries)
			if r.IntN(10) == 0 {
				what += ", corrupt"
				data = data[:r.IntN(len(data)+1)]
			}
			// the next second, or within this one (the tick the last read
			// may have seen)
			if r.IntN(2) == 0 {
				v.now = v.now.Add(time.Duration(r.IntN(1500)) * time.Millisecond)
			}
			v.write(t, p, data, r.IntN(2) == 0)
			check(step, what, false)
			if r.IntN(2) == 0 && len(entries) > 0 {
				// written again in the same tick, in place, the same size:
				// the version the read above saw is unchanged
				i := r.IntN(len(entries))
				val := []byte(entries[i].val)
				for j := range val {
					if c := val[j]; c >= '0' && c <= '8' {
						val[j]++
						break
					}
				}
				entries[i].val = string(val)
				v.write(t, p, genStore(rand.New(rand.NewPCG(lay, 1)), entries), false)
				check(step, what+", again in the same tick", false)
			}
			v.now = v.now.Add(time.Duration(r.IntN(2500)) * time.Millisecond)
			check(step, what+", later", false)
			if r.IntN(8) == 0 {
				what += ", cache damaged"
				if b, err := os.ReadFile(d.file(p)); err == nil && len(b) > 0 {
					b[r.IntN(len(b))] ^= byte(1 + r.IntN(255))
					os.WriteFile(d.file(p), b[:r.IntN(len(b)+1)], 0o600)
				}
			}
			// quiet for longer than RacyWindow: read and kept, then served
			v.now = v.now.Add(RacyWindow + time.Second)
			check(step, what+", quiet", false)
			check(step, what+", quiet again", true)
		}
	})
}

// holdGC leaves GOGC as it found it once collections have run, however
// decodes interleave with each other and with another setting of GOGC.
func TestHoldGCRestores(t *testing.T) {
	orig := debug.SetGCPercent(100)
	defer debug.SetGCPercent(orig)
	keep := make([][]byte, 0, 64)
	grow := func() { // a heap that has grown during a decode
		for range 16 {
			keep = append(keep, make([]byte, 1<<20))
		}
	}
	settle := func(want int) {
		t.Helper()
		for range 50 {
			runtime.GC()
			time.Sleep(10 * time.Millisecond) // the finalizer goroutine
			gcHold.Lock()
			cur := debug.SetGCPercent(want)
			debug.SetGCPercent(cur)
			gcHold.Unlock()
			if cur == want {
				return
			}
		}
		t.Fatalf("GOGC did not come back to %d", want)
	}
	// one decode, then two in turn before any collection
	done := holdGC()
	grow()
	done()
	settle(100)
	done = holdGC()
	grow()
	done()
	done = holdGC()
	grow()
	done()
	settle(100)
	// someone sets GOGC while a raise is in force: theirs is left
	done = holdGC()
	grow()
	done()
	debug.SetGCPercent(250)
	settle(250)
	// GOGC=off stays off
	debug.SetGCPercent(-1)
	done = holdGC()
	grow()
	done()
	if cur := debug.SetGCPercent(-1); cur != -1 {
		t.Fatalf("GOGC=off became %d", cur)
	}
	debug.SetGCPercent(100)
	keep = keep[:0]
	_ = keep
}

// A listing read from its cache file maps it; nothing it hands out points
// into the mapping: once the listing is unreachable the mapping goes, and
// the keys, the header and the entries taken from it (one by one, or all
// at once by Prefetch) read as before.
func TestListingOutlivesItsMapping(t *testing.T) {
	if !mapfile.Mmap {
		t.Skip("files are read, not mapped, here")
	}
	l := &loader{p: filepath.Join(t.TempDir(), "sessions.json")}
	writeStore(t, l.p, "kept-label")
	d := testDisk(t, nil)
	listing := func() *store.Listing {
		ls, err := d.LoadListing(l.p, []string{l.p}, func(string) {}, l.load)
		if err != nil {
			t.Fatal(err)
		}
		return ls
	}
	listing() // parsed; the cache file written
	files, _ := filepath.Glob(filepath.Join(d.dir, "*.store"))
	if len(files) != 1 {
		t.Fatalf("cache files %v", files)
	}
	for _, prefetch := range []bool{false, true} {
		ls := listing()
		if l.n.Load() != 1 {
			t.Fatal("the store was parsed again")
		}
		if !mappedNow(t, files[0]) {
			t.Fatal("the cache file is not mapped")
		}
		if prefetch {
			ls.Prefetch()
		}
		keys, spawnedBy, e, path := []string{ls.Key(0)}, []string{ls.SpawnedBy(0)}, ls.Entry(0), ls.St.Path
		ls = nil
		for start := time.Now(); mappedNow(t, files[0]); time.Sleep(5 * time.Millisecond) {
			if time.Since(start) > 10*time.Second {
				t.Fatal("the cache file is still mapped after its listing went")
			}
			runtime.GC()
		}
		if len(keys) != 1 || keys[0] != "agent:main:main" || spawnedBy[0] != "" || e.Key != keys[0] ||
			e.Label != "kept-label" || e.SessionID != "0c59edd8-9b7b-4d26-9fb1-8b3778f90a3d" || path != l.p {
			t.Fatalf("after the mapping went: keys %q, entry %q %q %q, path %q", keys, e.Key, e.Label, e.SessionID, path)
		}
	}
}

// mappedNow reports whether the process maps path (Linux's
// /proc/self/maps; the test is skipped without it).
func mappedNow(t *testing.T, path string) bool {
	b, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		t.Skip("no /proc/self/maps:", err)
	}
	return strings.Contains(string(b), path)
}

// A cache file whose checksum is good but whose records do not fit its
// entries (an entry's place or length, a key or spawnedBy beyond its
// entry, a count beyond the file) is not ours: the store is parsed, for a
// load and for a listing alike. And one whose record names another key
// than its entry's is refused by a load, which decodes every entry.
func TestDiskRecordsChecked(t *testing.T) {
	dir := t.TempDir()
	l := &loader{p: filepath.Join(dir, "sessions.json")}
	data := `{
  "agent:main:main": {"sessionId": "0c59edd8-9b7b-4d26-9fb1-8b3778f90a3d", "updatedAt": 1795236254224, "label": "one-1"},
  "agent:main:sub": {"sessionId": "1c59edd8-9b7b-4d26-9fb1-8b3778f90a3d", "updatedAt": 1795236254225, "spawnedBy": "agent:main:main"}
}`
	if err := os.WriteFile(l.p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	d := testDisk(t, nil)
	diskLabel(t, d, l) // parsed; the cache file written
	cf := d.file(l.p)
	good, err := os.ReadFile(cf)
	if err != nil {
		t.Fatal(err)
	}
	hd, h, ok := decodeHeader(good, d.exe, l.p, []string{l.p}, mustVersions(t, l.p))
	if !ok || h.n != 2 {
		t.Fatalf("the cache file's header: %v, %d entries", ok, h.n)
	}
	recs := len(good) - len(hd.b) // where the records begin
	nAt := recs - 1               // the count, one byte
	sealed := func(edit func(b []byte)) []byte {
		b := bytes.Clone(good)
		edit(b)
		binary.LittleEndian.PutUint32(b[len(diskMagic):], crc32.Checksum(b[len(diskMagic)+4:], castagnoli()))
		return b
	}
	add := func(at int, delta int32) func(b []byte) {
		return func(b []byte) {
			binary.LittleEndian.PutUint32(b[at:], uint32(int32(binary.LittleEndian.Uint32(b[at:]))+delta))
		}
	}
	second := recs + recSize
	for _, c := range []struct {
		name   string
		data   []byte
		listed bool // a listing still serves it (the entries are not decoded)
	}{
		{"an entry's place", sealed(add(second+8, 1)), false},
		{"an entry's length", sealed(add(recs+12, 1)), false},
		{"the last entry's length", sealed(add(second+12, -1)), false},
		{"a key beyond its entry", sealed(add(recs+20, 1000)), false},
		{"a key's place beyond its entry", sealed(add(recs+16, 1000)), false},
		{"a spawnedBy beyond its entry", sealed(add(second+28, 1000)), false},
		{"a spawnedBy's place beyond its entry", sealed(add(second+24, 1000)), false},
		{"a count beyond the file", sealed(func(b []byte) { b[nAt] = 0x7f }), false},
		{"a count short of the entries", sealed(func(b []byte) { b[nAt] = 1 }), false},
		{"a key's place within its entry, elsewhere", sealed(add(second+16, 1)), true},
	} {
		if err := os.WriteFile(cf, c.data, 0o600); err != nil {
			t.Fatal(err)
		}
		n := l.n.Load()
		if got := diskLabel(t, d, l); got != "one-1" || l.n.Load() != n+1 {
			t.Errorf("%s: load: label %q, %d parses (want the store parsed)", c.name, got, l.n.Load()-n)
		}
		if err := os.WriteFile(cf, c.data, 0o600); err != nil {
			t.Fatal(err)
		}
		n = l.n.Load()
		ls, err := d.LoadListing(l.p, []string{l.p}, func(string) {}, l.load)
		if err != nil {
			t.Fatal(err)
		}
		if parsed := l.n.Load() != n; parsed == c.listed {
			t.Errorf("%s: listing: parsed %v, want %v", c.name, parsed, !c.listed)
		}
		if !c.listed && (ls.Len() != 2 || ls.Key(1) != "agent:main:sub" || ls.SpawnedBy(1) != "agent:main:main") {
			t.Errorf("%s: listing %d entries, %q %q", c.name, ls.Len(), ls.Key(1), ls.SpawnedBy(1))
		}
	}
}

// A cache file cut short under a listing's mapping (never by this tool,
// which replaces its files by rename) makes the listing's next read of it
// — a Scan, a key, an updatedAt, an entry — panic with a message that says so,
// not fault the process.
func TestListingCutShortPanics(t *testing.T) {
	if !mapfile.Mmap {
		t.Skip("files are read, not mapped, here")
	}
	l := &loader{p: filepath.Join(t.TempDir(), "sessions.json")}
	writeStore(t, l.p, "kept-label")
	d := testDisk(t, nil)
	listing := func() *store.Listing {
		ls, err := d.LoadListing(l.p, []string{l.p}, func(string) {}, l.load)
		if err != nil {
			t.Fatal(err)
		}
		return ls
	}
	listing() // parsed; the cache file written
	for name, read := range map[string]func(ls *store.Listing){
		"scan":      func(ls *store.Listing) { ls.Scan(func(int, string, string) {}) },
		"key":       func(ls *store.Listing) { ls.Key(0) },
		"entry":     func(ls *store.Listing) { ls.Entry(0) },
		"updatedAt": func(ls *store.Listing) { ls.UpdatedAt(0) },
	} {
		ls := listing()
		if l.n.Load() != 1 {
			t.Fatal("the store was parsed again")
		}
		if err := os.Truncate(d.file(l.p), 0); err != nil {
			t.Fatal(err)
		}
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "cache file was cut short") {
					t.Errorf("%s of a file cut short: recovered %v", name, r)
				}
			}()
			read(ls)
		}()
		os.Remove(d.file(l.p))
		listing() // parsed again; written again
		l.n.Store(1)
	}
}
