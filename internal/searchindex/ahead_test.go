package searchindex

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestAheadWriter: what is written through an aheadWriter, in writes of
// any size (past writeAhead, so the writeback is started on the way), is
// the file once Close returns; a file that cannot be written makes Close
// fail, and Write after Close too.
func TestAheadWriter(t *testing.T) {
	path := filepath.Join(t.TempDir(), "seg")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	var want bytes.Buffer
	a := newAheadWriter(f)
	for want.Len() < writeAhead+5<<20 {
		b := make([]byte, []int{1, 100, 1 << 20, 3 << 20}[rng.IntN(4)])
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		want.Write(b)
		if n, err := a.Write(b); n != len(b) || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil || !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the file holds %d bytes (%v), %d written", len(got), err, want.Len())
	}
	if _, err := a.Write([]byte("x")); err == nil {
		t.Fatal("Write after Close succeeded")
	}

	ro, err := os.Open(path) // read-only: every write fails
	if err != nil {
		t.Fatal(err)
	}
	defer ro.Close()
	a = newAheadWriter(ro)
	for range 5 {
		if _, err := a.Write(make([]byte, 1<<20)); err != nil {
			t.Fatalf("Write: %v (the file's error is Close's)", err)
		}
	}
	if err := a.Close(); err == nil {
		t.Fatal("Close of writes to a read-only file: no error")
	}
}
