package mapfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func writeFile(t *testing.T, data []byte) *os.File {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestMapReadsTheFile(t *testing.T) {
	f := writeFile(t, []byte("hello, mapped world"))
	b, err := Map(f, 5)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "hello" {
		t.Fatalf("Map gave %q", b)
	}
	if err := Unmap(b); err != nil {
		t.Fatal(err)
	}
	if b, err := Map(f, 0); b != nil || err != nil {
		t.Fatalf("Map(0) = %q, %v", b, err)
	}
}

// A mapped file that shrinks under its mapping faults on access; Guard
// returns that as a *Fault instead of crashing the process.
func TestGuardTurnsFaultIntoError(t *testing.T) {
	if !Mmap {
		t.Skip("no mmap here: Map reads the file, nothing can fault")
	}
	f := writeFile(t, make([]byte, 1<<20))
	m, err := Map(f, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer Unmap(m)
	if err := os.Truncate(f.Name(), 0); err != nil {
		t.Fatal(err)
	}
	var sink byte
	err = Guard(func() error { sink = m[len(m)-1]; return nil })
	var fault *Fault
	if !errors.As(err, &fault) {
		t.Fatalf("reading a truncated mapping gave %v (read %d), want a *Fault", err, sink)
	}
}

// Guard passes fn's error through and re-raises panics that are not
// memory faults.
func TestGuardPassesErrorsAndOtherPanics(t *testing.T) {
	want := errors.New("fn failed")
	if err := Guard(func() error { return want }); err != want {
		t.Fatalf("Guard returned %v, want fn's error", err)
	}
	defer func() {
		if r := recover(); r != "boom" {
			t.Fatalf("recovered %v, want the panic to go on", r)
		}
	}()
	_ = Guard(func() error { panic("boom") })
	t.Fatal("Guard swallowed a panic that is not a fault")
}
