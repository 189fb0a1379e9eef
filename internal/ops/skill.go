package ops

import (
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/skillfile"
)

// SkillFile is the file an AgentSkills skill is: <skills dir>/<name>/SKILL.md.
const SkillFile = skillfile.File

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
		abs, err := skillfile.Workspace(q.Workspace)
		if err != nil {
			return nil, err
		}
		base = abs
	} else {
		env := o.cfg.Env
		if env.Getenv == nil {
			env = config.OSEnv()
		}
		sd := config.ResolveStateDir(o.cfg.StateDir, o.cfg.Profile, env)
		if err := skillfile.IsDir(sd.Path, "state dir (from "+sd.Source+")"); err != nil {
			return nil, err
		}
		base = sd.Path
	}
	var err error
	res.Path, res.Status, err = skillfile.Install(base, q.Name, q.Content, q.Force)
	if err != nil {
		return nil, err
	}
	return res, nil
}
