//go:build !darwin && !windows

package clipboard

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestChoose: the paste tool is the first present in atotto/clipboard's
// order, a pair's copy and paste tools both needed.
func TestChoose(t *testing.T) {
	for _, c := range []struct {
		wayland string
		present []string
		want    []string
		trimDos bool
	}{
		{"wayland-0", []string{"wl-copy", "wl-paste", "xclip"}, []string{"wl-paste", "--no-newline"}, false},
		{"wayland-0", []string{"wl-paste", "xclip"}, []string{"xclip", "-out", "-selection", "clipboard"}, false},
		{"", []string{"wl-copy", "wl-paste", "xsel"}, []string{"xsel", "--output", "--clipboard"}, false},
		{"", []string{"xclip", "xsel"}, []string{"xclip", "-out", "-selection", "clipboard"}, false},
		{"", []string{"termux-clipboard-set", "termux-clipboard-get"}, []string{"termux-clipboard-get"}, false},
		{"", []string{"termux-clipboard-get"}, nil, false},
		{"", []string{"clip.exe", "powershell.exe"}, []string{"powershell.exe", "Get-Clipboard"}, true},
		{"", nil, nil, false},
	} {
		saved := lookPath
		lookPath = func(name string) (string, error) {
			for _, p := range c.present {
				if p == name {
					return "/bin/" + name, nil
				}
			}
			return "", errors.New("not found")
		}
		got := choose(func(k string) string {
			if k == "WAYLAND_DISPLAY" {
				return c.wayland
			}
			return ""
		})
		lookPath = saved
		switch {
		case c.want == nil && got != nil:
			t.Errorf("%q with %v: chose %v, want none", c.wayland, c.present, got.args)
		case c.want != nil && (got == nil || !reflect.DeepEqual(got.args, c.want) || got.trimDos != c.trimDos):
			t.Errorf("%q with %v: chose %+v, want %v (trimDos %v)", c.wayland, c.present, got, c.want, c.trimDos)
		}
	}
}

// TestReadAllRunsTool: ReadAll runs the tool found on PATH on its first
// call and returns its output as is.
func TestReadAllRunsTool(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\n[ \"$*\" = '-out -selection clipboard' ] || exit 3\nprintf 'pasted\\ttext'\n"
	if err := os.WriteFile(filepath.Join(dir, "xclip"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	t.Setenv("WAYLAND_DISPLAY", "")
	got, err := ReadAll()
	if err != nil || got != "pasted\ttext" {
		t.Fatalf("ReadAll() = %q, %v; want %q", got, err, "pasted\ttext")
	}
}
