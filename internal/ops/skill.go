package ops

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/fsutil"
)

// SkillFile is the file an AgentSkills skill is: <skills dir>/<name>/SKILL.md.
const SkillFile = "SKILL.md"

// SkillInstall is a skill to install where OpenClaw loads skills from:
// the managed skills of this host (<state dir>/skills, every agent's) or
// a workspace's (DIR/skills).
type SkillInstall struct {
	Name    string // the skill's directory name (its frontmatter name)
	Content []byte // its SKILL.md
	// Workspace is the workspace dir whose skills/ it goes to; "" for the
	// state dir's skills/ (--global).
	Workspace string
	// Force replaces a SKILL.md that differs.
	Force bool
}

// SkillInstallResult is the document of `sessions skill install --json`.
type SkillInstallResult struct {
	Skill string `json:"skill"`
	// Scope: "global" (the state dir's skills) or "workspace".
	Scope string `json:"scope"`
	Path  string `json:"path"`
	// Status: "installed" (there was none), "unchanged" (the same file was
	// there: nothing written) or "replaced" (a different one, with Force).
	Status string `json:"status"`
}

// InstallSkill writes q's SKILL.md atomically into <dir>/skills/<name>/,
// dir the state dir or the workspace, which must exist. A different
// SKILL.md already there is refused (exit 2, saying where they first
// differ) unless q.Force; the same one is left as it is.
func (o *Ops) InstallSkill(q SkillInstall) (*SkillInstallResult, error) {
	res := &SkillInstallResult{Skill: q.Name, Scope: "global"}
	var base string
	if q.Workspace != "" {
		res.Scope = "workspace"
		abs, err := filepath.Abs(q.Workspace)
		if err != nil {
			return nil, apperr.Usagef("--workspace %s: %v", q.Workspace, err)
		}
		if err := isDir(abs, "workspace"); err != nil {
			return nil, err
		}
		base = abs
	} else {
		env := o.cfg.Env
		if env.Getenv == nil {
			env = config.OSEnv()
		}
		sd := config.ResolveStateDir(o.cfg.StateDir, o.cfg.Profile, env)
		if err := isDir(sd.Path, "state dir (from "+sd.Source+")"); err != nil {
			return nil, err
		}
		base = sd.Path
	}
	dir := filepath.Join(base, "skills", q.Name)
	res.Path = filepath.Join(dir, SkillFile)
	have, err := fsutil.ReadFileRegular(res.Path)
	switch {
	case err == nil && bytes.Equal(have, q.Content):
		res.Status = "unchanged"
		return res, nil
	case err == nil && !q.Force:
		return nil, apperr.Usagef("%s exists and differs from the skill this sessions writes (%s); --force replaces it", res.Path, firstDifference(have, q.Content))
	case err == nil:
		res.Status = "replaced"
	case errors.Is(err, fs.ErrNotExist):
		res.Status = "installed"
	default:
		return nil, apperr.Statef("cannot read %s: %v", res.Path, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, apperr.Statef("cannot create %s: %v", dir, err)
	}
	if err := fsutil.WriteFileAtomic(res.Path, q.Content, 0o644); err != nil {
		return nil, apperr.Statef("cannot write %s: %v", res.Path, err)
	}
	return res, nil
}

// isDir refuses a path that is not an existing directory (exit 10).
func isDir(path, what string) error {
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
