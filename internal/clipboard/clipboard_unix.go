//go:build !darwin && !windows

package clipboard

import (
	"errors"
	"os"
	"os/exec"
	"sync"
)

var errMissing = errors.New("No clipboard utilities available. Please install xsel, xclip, wl-clipboard or Termux:API add-on for termux-clipboard-get/set.")

// tool is how to paste: the command and its arguments, and whether its
// output ends in a DOS line end to trim (powershell.exe). Nil: none found.
type tool struct {
	args    []string
	trimDos bool
}

// lookPath is exec.LookPath (tests find tools in their own PATH).
var lookPath = exec.LookPath

func found(names ...string) bool {
	for _, n := range names {
		if _, err := lookPath(n); err != nil {
			return false
		}
	}
	return true
}

// choose picks the first tool present, in atotto/clipboard's order: the
// copy and paste tools of a pair must both be there.
func choose(getenv func(string) string) *tool {
	if getenv("WAYLAND_DISPLAY") != "" && found("wl-copy", "wl-paste") {
		return &tool{args: []string{"wl-paste", "--no-newline"}}
	}
	switch {
	case found("xclip"):
		return &tool{args: []string{"xclip", "-out", "-selection", "clipboard"}}
	case found("xsel"):
		return &tool{args: []string{"xsel", "--output", "--clipboard"}}
	case found("termux-clipboard-set", "termux-clipboard-get"):
		return &tool{args: []string{"termux-clipboard-get"}}
	case found("clip.exe", "powershell.exe"):
		return &tool{args: []string{"powershell.exe", "Get-Clipboard"}, trimDos: true}
	}
	return nil
}

var pasteTool = sync.OnceValue(func() *tool { return choose(os.Getenv) })

func readAll() (string, error) {
	t := pasteTool()
	if t == nil {
		return "", errMissing
	}
	out, err := exec.Command(t.args[0], t.args[1:]...).Output()
	if err != nil {
		return "", err
	}
	s := string(out)
	if t.trimDos && len(s) > 1 {
		s = s[:len(s)-2]
	}
	return s, nil
}
