package export

import (
	"bytes"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"charm.land/log/v2"
	"github.com/klauspost/compress/zstd"
	_ "modernc.org/sqlite"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	xp "github.com/openclaw/sessions/internal/export"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/openclaw/sessions/internal/testutil"
)

func factory(t *testing.T, dir string, tty bool) (*cmdutil.Factory, *bytes.Buffer, *bytes.Buffer) {
	ios, _, _, _ := iostreams.Test()
	var out, errOut bytes.Buffer
	ios.Out, ios.ErrOut = &out, &errOut
	ios.SetStdoutTTY(tty)
	ios.SetStderrTTY(tty)
	return &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(string) string { return "" }, Home: "/nonexistent-home"},
		Flags:  &cmdutil.GlobalFlags{StateDir: dir},
		Log:    log.New(io.Discard),
		Now:    time.Now,
		Getenv: func(string) string { return "" },
	}, &out, &errOut
}

// The format: --format, else what -o's name calls for, else Markdown.
func TestFormatChosen(t *testing.T) {
	for _, c := range []struct {
		args []string
		want xp.Format
	}{
		{[]string{"main"}, xp.Markdown},
		{[]string{"main", "-o", "x.html"}, xp.HTML},
		{[]string{"main", "-o", "x.jsonl"}, xp.JSONL},
		{[]string{"main", "-o", "x.json"}, xp.JSON},
		{[]string{"main", "-o", "x.txt"}, xp.Markdown},
		{[]string{"main", "-o", "x.html", "--format", "md"}, xp.Markdown},
	} {
		f, _, _ := factory(t, t.TempDir(), false)
		var got *Options
		cmd := NewCmd(f, func(o *Options) error { got = o; return nil })
		cmd.SetArgs(c.args)
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		if err := cmd.Execute(); err != nil {
			t.Fatalf("%v: %v", c.args, err)
		}
		if got.FormatChosen() != c.want {
			t.Errorf("%v: format %s, want %s", c.args, got.FormatChosen(), c.want)
		}
	}
}

// A terminal shows the progress of a long export on stderr, ended with a
// newline; a short one says nothing but what it wrote.
func TestProgress(t *testing.T) {
	var b bytes.Buffer
	p := progress(&b)
	p(1000, false)
	p(2000, false)
	p(2000, true)
	if b.String() != "\rexport: 1000 messages\rexport: 2000 messages\rexport: 2000 messages\n" {
		t.Errorf("progress %q", b.String())
	}
	b.Reset()
	progress(&b)(17, true)
	if b.Len() != 0 {
		t.Errorf("a short export's progress: %q", b.String())
	}
}

// -o on a terminal: the file written whole (mode 0600), one line on stderr;
// stdout carries nothing.
func TestWriteFileOnTTY(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), dir); err != nil {
		t.Fatal(err)
	}
	f, out, errOut := factory(t, dir, true)
	file := filepath.Join(t.TempDir(), "main.html")
	o := &Options{f: f, Ref: "main", Output: file, format: xp.HTML}
	if err := run(o); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(file)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v %v", file, fi.Mode(), err)
	}
	if out.Len() != 0 || !strings.HasPrefix(errOut.String(), "Wrote 17 messages of main to "+file+" (html)\n") {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}
	if es, _ := os.ReadDir(filepath.Dir(file)); len(es) != 1 {
		t.Errorf("left beside the file: %v", es)
	}
}

// --lineage on a 2026.9 store: the archive it keeps of a reset of the key,
// then the conversation an earlier window of the key holds, each after a
// marked boundary, then the current one; without it, only the current one.
func TestLineageOfAStoreWindow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.9.6"), dir); err != nil {
		t.Fatal(err)
	}
	const old, arcSID = "0badc0de-0000-4000-8000-000000000002", "0badc0de-0000-4000-8000-000000000003"
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		`INSERT INTO session_windows(session_id, session_key, reason, created_at, updated_at) VALUES ('` + old + `', 'agent:main:main', 'initial', 1795230000000, 1795230000000)`,
		`INSERT INTO transcript_events(session_id, seq, event_json, event_utf8_bytes, created_at) VALUES ('` + old + `', 0, '{"type":"message","id":"old1","parentId":null,"timestamp":"2026-11-21T02:00:00.000Z","message":{"role":"user","content":"EARLIER-WINDOW","timestamp":1795230000000}}', 150, 1795230000000)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// and an archive the store keeps of a reset before that
	arc := []byte(`{"type":"session","version":3,"id":"` + arcSID + `","timestamp":"2026-11-21T01:00:00.000Z","cwd":"/w"}` + "\n" +
		`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-11-21T01:00:01.000Z","message":{"role":"user","content":"ARCHIVED-RESET","timestamp":1795226401000}}` + "\n")
	sum := sha256.Sum256(arc)
	if _, err := db.Exec(`INSERT INTO session_transcript_archives(session_id, generation, session_key, reason, encoding, archive_blob, archive_sha256, archive_name, created_at)
		VALUES (?, 'g1', 'agent:main:main', 'reset', 'identity', ?, ?, ?, 1795226500000)`, arcSID, arc, hex.EncodeToString(sum[:]), arcSID+".jsonl.reset.2026-11-21T01-01-40.000Z"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, lineage := range []bool{false, true} {
		f, _, _ := factory(t, dir, false)
		file := filepath.Join(t.TempDir(), "main.md")
		if err := run(&Options{f: f, Ref: "main", Output: file, format: xp.Markdown, Lineage: lineage}); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(file)
		out := string(b)
		a, i, j := strings.Index(out, "ARCHIVED-RESET"), strings.Index(out, "EARLIER-WINDOW"), strings.Index(out, "**Current transcript 8000a7c0")
		switch {
		case !lineage && (i >= 0 || a >= 0):
			t.Error("without --lineage an earlier transcript is exported")
		case lineage && (a < 0 || i < a || j < i || !strings.Contains(out, "**Earlier transcript "+old+" (before a reset)**") ||
			!strings.Contains(out, "**Earlier transcript "+arcSID+" (archived)**")):
			t.Errorf("--lineage: archived at %d, earlier window at %d, current at %d:\n%.1500s", a, i, j, out)
		}
	}
}

// A long export's progress shows on a terminal's stderr when the export
// goes elsewhere (-o, or a pipe); with the conversation itself printed on
// the terminal, progress lines would land in its text, so there are none.
func TestProgressOnlyBesideTheExport(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), dir); err != nil {
		t.Fatal(err)
	}
	tr := filepath.Join(dir, "agents", "main", "sessions", "c040fd20-0a1c-4ce0-924c-6e695a32eecb.jsonl")
	b, _ := os.ReadFile(tr)
	for i := 0; i < 1200; i++ {
		b = fmt.Appendf(b, `{"type":"message","id":"p%d","parentId":"x","timestamp":"2026-11-21T06:00:00.000Z","message":{"role":"user","content":"m%d","timestamp":%d}}`+"\n", i, i, 1795240800000+i)
	}
	if err := os.WriteFile(tr, b, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name              string
		stdoutTTY, toFile bool
		progress          bool
	}{
		{"to a file", true, true, true},
		{"piped", false, false, true},
		{"on the terminal", true, false, false},
	} {
		f, _, errOut := factory(t, dir, true)
		f.IO.SetStdoutTTY(c.stdoutTTY)
		o := &Options{f: f, Ref: "main", format: xp.Markdown}
		if c.toFile {
			o.Output = filepath.Join(t.TempDir(), "main.md")
		}
		if err := run(o); err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(errOut.String(), "export: 1000 messages"); got != c.progress {
			t.Errorf("%s: progress shown %v, want %v (stderr %q)", c.name, got, c.progress, errOut.String())
		}
	}
}

// --lineage on 2026.1.30 takes the .reset/.deleted copies a session left,
// zstd-compressed or not, oldest first by the time in their names, each
// after a marked boundary: one is an earlier generation of the current
// sessionId, the other is named (as <sessionId>.jsonl, its name before the
// rename) by the current transcript's header. A copy nothing attributes
// to the session is left out. JSONL is each transcript's lines, byte for
// byte, in that order.
func TestLineageOfResetCopies(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.1.30"), dir); err != nil {
		t.Fatal(err)
	}
	sessDir := filepath.Join(dir, "agents", "main", "sessions")
	const cur, named, stray = "c040fd20-0a1c-4ce0-924c-6e695a32eecb", "0badc0de-0000-4000-8000-0000000000b2", "0badc0de-0000-4000-8000-0000000000ff"
	transcript := func(sid, at, text string) []byte {
		return []byte(`{"type":"session","version":3,"id":"` + sid + `","timestamp":"2026-11-20T` + at + `:00.000Z","cwd":"/w"}` + "\n" +
			`{"type":"message","id":"m-` + text + `","parentId":null,"timestamp":"2026-11-20T` + at + `:01.000Z","message":{"role":"user","content":[{"type":"text","text":"` + text + `"}],"timestamp":1795222801000}}` + "\n" +
			`{"type":"message","id":"r-` + text + `","parentId":"m-` + text + `","timestamp":"2026-11-20T` + at + `:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"answer to ` + text + `"}],"timestamp":1795222802000}}` + "\n")
	}
	first := transcript(cur, "01:00", "FIRST-GENERATION")
	second := transcript(named, "02:00", "SECOND-RESET")
	enc, _ := zstd.NewWriter(nil)
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(sessDir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(cur+".jsonl.reset.2026-11-20T01-30-00.000Z", first)
	write(named+".jsonl.reset.2026-11-20T02-30-00.000Z.zst", enc.EncodeAll(second, nil))
	write(stray+".jsonl.deleted.2026-11-20T00-30-00.000Z", transcript(stray, "00:00", "NOT-THIS-SESSION"))
	curPath := filepath.Join(sessDir, cur+".jsonl")
	b, _ := os.ReadFile(curPath)
	b = bytes.Replace(b, []byte(`"cwd":"/home/claw/.openclaw/workspace"}`), []byte(`"cwd":"/home/claw/.openclaw/workspace","parentSession":"`+filepath.Join(sessDir, named+".jsonl")+`"}`), 1)
	write(cur+".jsonl", b)

	export := func(format xp.Format, lineage bool) string {
		t.Helper()
		f, _, _ := factory(t, dir, false)
		file := filepath.Join(t.TempDir(), "main."+string(format))
		if err := run(&Options{f: f, Ref: "main", Output: file, format: format, Lineage: lineage}); err != nil {
			t.Fatal(err)
		}
		out, _ := os.ReadFile(file)
		return string(out)
	}
	if got, want := export(xp.JSONL, true), string(first)+string(second)+string(b); got != want {
		t.Errorf("jsonl is not the copies' and the transcript's lines in order:\n%.3000s", got)
	}
	if got := export(xp.JSONL, false); got != string(b) {
		t.Errorf("jsonl without --lineage is not the current transcript:\n%.1500s", got)
	}
	md := export(xp.Markdown, true)
	i, j, k := strings.Index(md, "FIRST-GENERATION"), strings.Index(md, "SECOND-RESET"), strings.Index(md, "**Current transcript "+cur[:8])
	if i < 0 || j < i || k < j || strings.Contains(md, "NOT-THIS-SESSION") {
		t.Errorf("markdown: first copy at %d, second at %d, current at %d:\n%.2500s", i, j, k, md)
	}
	for _, sid := range []string{cur, named} {
		if !strings.Contains(md, "**Earlier transcript "+sid+" (archived)**") {
			t.Errorf("markdown: no boundary before the copy of %s:\n%.2500s", sid, md)
		}
	}
}

// On a 2026.9 store, the file OpenClaw publishes of an archive it keeps
// (named as the archive's archive_name) is that archive, read once from
// the store: not a second earlier transcript. Another copy of the key's
// sessionId (2026.9's reset keeps it) is one, zstd or not, in the order of
// the times in their names (the file copy is the older).
func TestLineageSkipsPublishedStoreArchive(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	if err := testutil.CopyTree(filepath.Join(testutil.Root(t), "testdata", "state-2026.9.6"), dir); err != nil {
		t.Fatal(err)
	}
	const cur = "8000a7c0-cc69-4a7f-82ba-219f4a789783"
	body := func(text string) []byte {
		return []byte(`{"type":"session","version":3,"id":"` + cur + `","timestamp":"2026-11-21T01:00:00.000Z","cwd":"/w"}` + "\n" +
			`{"type":"message","id":"a1","parentId":null,"timestamp":"2026-11-21T01:00:01.000Z","message":{"role":"user","content":"` + text + `","timestamp":1795226401000}}` + "\n")
	}
	arc := body("KEPT-IN-STORE")
	name := cur + ".jsonl.reset.2026-11-21T01-01-40.000Z.0123456789abcdef0123456789abcdef"
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, "agents", "main", "agent", "openclaw-agent.sqlite"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(arc)
	if _, err := db.Exec(`INSERT INTO session_transcript_archives(session_id, generation, session_key, reason, encoding, archive_blob, archive_sha256, archive_name, created_at)
		VALUES (?, '0123456789abcdef0123456789abcdef', 'agent:main:main', 'reset', 'identity', ?, ?, ?, 1795226500000)`, cur, arc, hex.EncodeToString(sum[:]), name); err != nil {
		t.Fatal(err)
	}
	db.Close()
	sessDir := filepath.Join(dir, "agents", "main", "sessions")
	if err := os.MkdirAll(sessDir, 0o700); err != nil {
		t.Fatal(err)
	}
	enc, _ := zstd.NewWriter(nil)
	for n, b := range map[string][]byte{
		name: arc, // published
		cur + ".jsonl.reset.2026-11-20T09-00-00.000Z.zst": enc.EncodeAll(body("OLDER-FILE-COPY"), nil),
	} {
		if err := os.WriteFile(filepath.Join(sessDir, n), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	f, _, _ := factory(t, dir, false)
	file := filepath.Join(t.TempDir(), "main.md")
	if err := run(&Options{f: f, Ref: "main", Output: file, format: xp.Markdown, Lineage: true}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	out := string(b)
	if n := strings.Count(out, "KEPT-IN-STORE"); n != 1 || !strings.Contains(out, "OLDER-FILE-COPY") || strings.Index(out, "OLDER-FILE-COPY") > strings.Index(out, "KEPT-IN-STORE") || strings.Count(out, "**Earlier transcript "+cur+" (archived)**") != 2 {
		t.Errorf("the store's archive %d times, the file copy %v:\n%.2500s", n, strings.Contains(out, "OLDER-FILE-COPY"), out)
	}
}
