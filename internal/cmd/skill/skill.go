// Package skill implements `sessions skill` and `sessions skill install`:
// the AgentSkills skill (SKILL.md) that teaches an OpenClaw agent to use
// this CLI.
package skill

import (
	_ "embed"
	"fmt"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/ops"
	"github.com/spf13/cobra"
)

// Name is the skill's name: its frontmatter name and its directory.
const Name = "sessions"

// Content is the skill's SKILL.md, as printed and installed.
//
//go:embed SKILL.md
var Content []byte

// Document is the JSON document of `sessions skill --json`.
type Document struct {
	Name    string `json:"name"`
	File    string `json:"file"`
	Content string `json:"content"`
}

// Options are the parsed flags of `sessions skill install`.
type Options struct {
	f         *cmdutil.Factory
	Global    bool
	Workspace string
	Force     bool
}

// NewCmd builds `sessions skill` with its install subcommand; runF
// replaces the install's behaviour in flag tests.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "skill",
		Short: "Print the sessions skill (SKILL.md) for OpenClaw agents",
		Long: `Print the AgentSkills skill that teaches an OpenClaw agent to use sessions: a
SKILL.md whose frontmatter OpenClaw reads (name "sessions", a description,
metadata.openclaw with requires.bins ["sessions"] and a go install spec) and
whose body gives task recipes: find a session, read it page by page, send and
wait, spawn and follow, search.

'sessions skill install' writes it where OpenClaw loads skills from.

JSON (--json): {"name","file":"SKILL.md","content"}.`,
		Example: `  sessions skill
  sessions skill install
  sessions skill --jq .content`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.JSONMode() {
				return f.PrintJSON(Document{Name: Name, File: ops.SkillFile, Content: string(Content)})
			}
			_, err := f.IO.Out.Write(Content)
			return err
		},
	}
	cmd.AddCommand(newInstallCmd(f, runF))
	return cmd
}

func newInstallCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "install [--global | --workspace DIR] [--force]",
		Short: "Install the sessions skill where OpenClaw loads skills from",
		Long: `Write the sessions skill to skills/sessions/SKILL.md, atomically:

  --global           under the state dir (--state-dir, $OPENCLAW_STATE_DIR, else
                     ~/.openclaw): OpenClaw's managed skills, every agent's;
                     the default when neither flag is given
  --workspace DIR    under the workspace DIR: that agent's workspace skills
                     (OpenClaw's default workspace is <state dir>/workspace,
                     e.g. --workspace ~/.openclaw/workspace)

The directory (state dir or workspace) must exist (exit 10 otherwise). The
same SKILL.md already there is left as it is ("unchanged"); a different one
is refused with exit 2, saying where they first differ, unless --force
replaces it. OpenClaw lists the skill as eligible once the sessions binary is
on its PATH ('openclaw skills list').

JSON (--json): {"skill","scope":"global"|"workspace","path",
"status":"installed"|"unchanged"|"replaced"}.`,
		Example: `  sessions skill install
  sessions skill install --global --force --json`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if o.Global && cmd.Flags().Changed("workspace") {
				return apperr.Usagef("--global and --workspace cannot be used together")
			}
			if cmd.Flags().Changed("workspace") && o.Workspace == "" {
				return apperr.Usagef("--workspace needs a directory")
			}
			if runF != nil {
				return runF(o)
			}
			return runInstall(o)
		},
	}
	fl := cmd.Flags()
	fl.BoolVar(&o.Global, "global", false, "install under the state dir's skills/ (the default)")
	fl.StringVar(&o.Workspace, "workspace", "", "install under `DIR`/skills/ (a workspace)")
	fl.BoolVar(&o.Force, "force", false, "replace a different SKILL.md")
	_ = cmd.MarkFlagDirname("workspace")
	return cmd
}

func runInstall(o *Options) error {
	res, err := o.f.Ops().InstallSkill(ops.SkillInstall{Name: Name, Content: Content, Workspace: o.Workspace, Force: o.Force})
	if err != nil {
		return err
	}
	if o.f.JSONMode() {
		return o.f.PrintJSON(res)
	}
	switch res.Status {
	case "unchanged":
		fmt.Fprintf(o.f.IO.Out, "The sessions skill is installed already: %s\n", res.Path)
	case "replaced":
		fmt.Fprintf(o.f.IO.Out, "Replaced the sessions skill: %s\n", res.Path)
	default:
		fmt.Fprintf(o.f.IO.Out, "Installed the sessions skill: %s\n", res.Path)
	}
	return nil
}
