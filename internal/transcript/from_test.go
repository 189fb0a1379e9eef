package transcript

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A follower that reads a growing file from the last Result.Size, however
// the writes are cut (mid-line, mid-UTF-8 sequence, line by line), sees
// every message exactly once and in order: the same list as one read of
// the finished file.
func TestReadMessagesFromGrowingFile(t *testing.T) {
	files, err := filepath.Glob(fixtureGlob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures: %v", err)
	}
	for _, src := range files {
		content, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		for _, tools := range []bool{false, true} {
			want, err := ReadMessages(src, Options{IncludeTools: tools})
			if err != nil {
				t.Fatal(err)
			}
			for _, chunk := range []int{1, 7, 64, 1000, len(content)} {
				p := filepath.Join(t.TempDir(), "grow.jsonl")
				f, err := os.Create(p)
				if err != nil {
					t.Fatal(err)
				}
				var got [][]byte
				var off int64
				for i := 0; i < len(content); i += chunk {
					if _, err := f.Write(content[i:min(i+chunk, len(content))]); err != nil {
						t.Fatal(err)
					}
					res, err := ReadMessagesFrom(p, off, Options{IncludeTools: tools})
					if err != nil {
						t.Fatalf("%s chunk %d at %d: %v", src, chunk, i, err)
					}
					if res.Size < off || res.Size > int64(i+chunk) {
						t.Fatalf("%s: Size %d outside [%d,%d]", src, res.Size, off, i+chunk)
					}
					for _, m := range res.Messages {
						got = append(got, m)
					}
					off = res.Size
				}
				f.Close()
				if off != int64(len(content)) {
					t.Errorf("%s chunk %d: ended at offset %d, want %d", filepath.Base(src), chunk, off, len(content))
				}
				if len(got) != len(want.Messages) {
					t.Fatalf("%s chunk %d tools %v: %d messages, want %d", filepath.Base(src), chunk, tools, len(got), len(want.Messages))
				}
				for i := range got {
					if !bytes.Equal(got[i], want.Messages[i]) {
						t.Fatalf("%s chunk %d: message %d differs:\n%s\n%s", filepath.Base(src), chunk, i, got[i], want.Messages[i])
					}
				}
			}
		}
	}
}

// The Size of a tail read (ReadMessages with a Limit) is a valid resume
// offset: the first messages read from it are exactly the appended ones.
func TestReadMessagesFromResumesTailRead(t *testing.T) {
	p := writeTranscript(t, []byte(`{"type":"session","version":3,"id":"s1"}
{"type":"message","id":"a","message":{"role":"user","content":"one"}}
{"type":"message","id":"b","message":{"role":"assistant","content":"two"}}
{"type":"message","id":"c","message":{"role":"user","con`))
	r, err := ReadMessages(p, Options{Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Messages) != 1 || !bytes.Contains(r.Messages[0], []byte(`"two"`)) {
		t.Fatalf("tail = %s", r.Messages)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`tent":"three"}}` + "\n")
	f.Close()
	next, err := ReadMessagesFrom(p, r.Size, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(next.Messages) != 1 || string(next.Messages[0]) != `{"role":"user","content":"three"}` {
		t.Fatalf("resumed = %s", next.Messages)
	}
	st, _ := os.Stat(p)
	if next.Size != st.Size() {
		t.Errorf("Size = %d, want %d", next.Size, st.Size())
	}
}

func TestReadMessagesFromShrunk(t *testing.T) {
	p := writeTranscript(t, []byte(`{"type":"session","version":3,"id":"s1"}`+"\n"))
	_, err := ReadMessagesFrom(p, 1<<20, Options{})
	if !errors.Is(err, ErrShrunk) {
		t.Fatalf("err = %v, want ErrShrunk", err)
	}
}

// Warnings about corrupt lines name the file, not a section of it.
func TestReadMessagesFromWarnNamesFile(t *testing.T) {
	p := writeTranscript(t, []byte("{\"type\":\"session\",\"id\":\"s\"}\nnot json\n"))
	var warned string
	if _, err := ReadMessagesFrom(p, 0, Options{Warn: func(s string) { warned = s }}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains([]byte(warned), []byte(p)) {
		t.Errorf("warning %q does not name %s", warned, p)
	}
}
