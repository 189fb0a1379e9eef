//go:build !darwin && !windows

package textinput

import (
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestCtrlVPastes: ctrl+v pastes what the clipboard tool on PATH gives
// (internal/clipboard), tabs and newlines made spaces as bubbles' input
// does.
func TestCtrlVPastes(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "xclip"), []byte("#!/bin/sh\nprintf 'sk\\tone\\ntwo'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Setenv("WAYLAND_DISPLAY", "")
	m := New()
	m.Focus()
	m, cmd := m.Update(tea.KeyPressMsg{Code: 'v', Mod: tea.ModCtrl})
	if cmd == nil {
		t.Fatal("ctrl+v gave no command")
	}
	m, _ = m.Update(cmd())
	if got := m.Value(); got != "sk one two" {
		t.Errorf("after ctrl+v the value is %q, want %q", got, "sk one two")
	}
}
