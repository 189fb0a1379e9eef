// Package skillfile writes an AgentSkills skill where OpenClaw loads
// skills from: <dir>/skills/<name>/SKILL.md, dir the state dir (the
// managed skills of every agent) or a workspace, atomically, never
// replacing a different SKILL.md unless told to.
package skillfile

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
)

// File is the file an AgentSkills skill is: <skills dir>/<name>/SKILL.md.
const File = "SKILL.md"

// What Install did.
const (
	Installed = "installed" // there was none
	Unchanged = "unchanged" // the same file was there: nothing written
	Replaced  = "replaced"  // a different one, with force
)

// Workspace is the workspace dir ws made absolute, which must be an
// existing directory (exit 2 for a path that cannot be made absolute,
// 10 for one that is not a directory).
func Workspace(ws string) (string, error) {
	abs, err := filepath.Abs(ws)
	if err != nil {
		return "", apperr.Usagef("--workspace %s: %v", ws, err)
	}
	return abs, IsDir(abs, "workspace")
}

// Install writes content as base/skills/name/SKILL.md atomically and says
// where and what it did. A different SKILL.md already there is refused
// (exit 2, saying where they first differ) unless force; the same one is
// left as it is.
func Install(base, name string, content []byte, force bool) (path, status string, err error) {
	dir := filepath.Join(base, "skills", name)
	path = filepath.Join(dir, File)
	have, err := fsutil.ReadFileRegular(path)
	switch {
	case err == nil && bytes.Equal(have, content):
		return path, Unchanged, nil
	case err == nil && !force:
		return path, "", apperr.Usagef("%s exists and differs from the skill this sessions writes (%s); --force replaces it", path, firstDifference(have, content))
	case err == nil:
		status = Replaced
	case errors.Is(err, fs.ErrNotExist):
		status = Installed
	default:
		return path, "", apperr.Statef("cannot read %s: %v", path, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return path, "", apperr.Statef("cannot create %s: %v", dir, err)
	}
	if err := fsutil.WriteFileAtomic(path, content, 0o644); err != nil {
		return path, "", apperr.Statef("cannot write %s: %v", path, err)
	}
	return path, status, nil
}

// IsDir refuses a path that is not an existing directory (exit 10); what
// names it.
func IsDir(path, what string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return apperr.Statef("%s %s does not exist", what, path)
	case err != nil:
		return apperr.Statef("cannot read %s %s: %v", what, path, err)
	case !st.IsDir():
		return apperr.Statef("%s %s is not a directory", what, path)
	}
	return nil
}

// firstDifference says where have first differs from want: the line and
// both versions of it.
func firstDifference(have, want []byte) string {
	h, w := strings.Split(string(have), "\n"), strings.Split(string(want), "\n")
	for i := 0; i < max(len(h), len(w)); i++ {
		switch {
		case i >= len(h):
			return fmt.Sprintf("it ends at line %d, where this one goes on with %q", i+1, clip(w[i]))
		case i >= len(w):
			return fmt.Sprintf("it goes on after line %d with %q", len(w), clip(h[i]))
		case h[i] != w[i]:
			return fmt.Sprintf("line %d is %q there, %q here", i+1, clip(h[i]), clip(w[i]))
		}
	}
	return "they differ"
}

func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}
