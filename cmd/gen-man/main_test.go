package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openclaw/sessions/internal/cli"
)

// `make man` is reproducible byte for byte, gives every command a page, and
// puts the help topics into sessions(1).
func TestGenManReproducible(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	if err := GenMan(a); err != nil {
		t.Fatal(err)
	}
	if err := GenMan(b); err != nil {
		t.Fatal(err)
	}
	pages, err := filepath.Glob(filepath.Join(a, "*.1"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pages {
		x, _ := os.ReadFile(p)
		y, err := os.ReadFile(filepath.Join(b, filepath.Base(p)))
		if err != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two runs (%v)", filepath.Base(p), err)
		}
	}
	root := cli.ManRoot()
	want := []string{"sessions.1"}
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && c.Name() != "help" {
			want = append(want, "sessions-"+c.Name()+".1")
		}
	}
	for _, w := range want {
		if _, err := os.Stat(filepath.Join(a, w)); err != nil {
			t.Errorf("no man page %s", w)
		}
	}
	main, _ := os.ReadFile(filepath.Join(a, "sessions.1"))
	for _, s := range []string{`.SH EXIT STATUS`, `.SH ENVIRONMENT`, "OPENCLAW_STATE_DIR", "11  lock", `"Jan 2026"`} {
		if !strings.Contains(string(main), s) {
			t.Errorf("sessions.1 lacks %q", s)
		}
	}
	hist, _ := os.ReadFile(filepath.Join(a, "sessions-history.1"))
	for _, s := range []string{"<details>", "<state>/openclaw.json", "--follow", "--format"} {
		if !strings.Contains(string(hist), s) {
			t.Errorf("sessions-history.1 lacks %q", s)
		}
	}
}
