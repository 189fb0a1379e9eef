// Package completion implements `sessions completion SHELL [-o FILE]`.
package completion

import (
	"io"
	"os"
	"path/filepath"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/spf13/cobra"
)

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "completion {bash | zsh | fish | powershell} [-o FILE]",
		Short: "Generate the shell completion script",
		Long: `Print (or write with -o FILE, creating its directory) the completion script
for a shell. Committed copies live in completions/.

bash: the script works best with the bash-completion package loaded (most
distributions install it; macOS: brew install bash-completion@2). Without it
the script falls back to a minimal word splitter of its own: completion still
works, file-name candidates ignore extension filters.`,
		Example: `  source <(sessions completion bash)
  sessions completion bash -o ~/.local/share/bash-completion/completions/sessions
  sessions completion fish -o ~/.config/fish/completions/sessions.fish
  sessions completion zsh -o "${fpath[1]}/_sessions"`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args:      cmdutil.ExactArgs(1, "shell (bash, zsh, fish or powershell)"),
		RunE: func(cmd *cobra.Command, args []string) error {
			var w io.Writer = f.IO.Out
			if out != "" {
				if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
					return apperr.Errorf("%v", err)
				}
				fh, err := os.Create(out)
				if err != nil {
					return apperr.Errorf("%v", err)
				}
				defer fh.Close()
				w = fh
			}
			root := cmd.Root()
			switch args[0] {
			case "bash":
				if _, err := io.WriteString(w, bashFallback); err != nil {
					return err
				}
				return root.GenBashCompletionV2(w, true)
			case "zsh":
				return root.GenZshCompletion(w)
			case "fish":
				return root.GenFishCompletion(w, true)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(w)
			}
			return apperr.Usagef("unsupported shell %q (bash, zsh, fish, powershell)", args[0])
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to `FILE` instead of stdout")
	return cmd
}
