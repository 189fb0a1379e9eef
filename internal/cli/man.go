package cli

import (
	"io"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/cmd/topics"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/iostreams"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// ManRoot is the command tree as the man pages document it (cmd/gen-man,
// `make man`, renders it with cobra/doc): help texts escaped for the
// Markdown renderer, no auto-generated tag, and sessions(1) carrying the
// help topics as its EXIT STATUS and ENVIRONMENT sections. The renderer is
// not linked here, so that sessions itself does not pay for its
// initialisers at every start (docs/PERFORMANCE.md, "Start-up").
func ManRoot() *cobra.Command {
	ios, _, _, _ := iostreams.Test()
	ios.Out, ios.ErrOut = io.Discard, io.Discard
	f := &cmdutil.Factory{
		IO:     ios,
		Env:    config.Env{Getenv: func(string) string { return "" }},
		Flags:  &cmdutil.GlobalFlags{},
		Now:    time.Now,
		Getenv: func(string) string { return "" },
	}
	f.Log = newLogger(f)
	root := NewRoot(f)
	root.DisableAutoGenTag = true
	for _, c := range root.Commands() {
		if c.Annotations["helpTopic"] == "true" {
			c.Long = topics.Long(c.Name())
		}
	}
	escapeMarkdown(root)
	root.Long += "\n\n# EXIT STATUS\n\n" + preformatted(topics.ExitCodes) +
		"\n\n# ENVIRONMENT\n\n" + preformatted(topics.Environment())
	return root
}

// escapeMarkdown protects "<word>" placeholders in help texts and flag
// usages from being taken for HTML tags by the Markdown renderer (which
// would drop them); code blocks (indented 4+ spaces) are left alone.
func escapeMarkdown(cmd *cobra.Command) {
	esc := strings.NewReplacer("<", `\<`, ">", `\>`)
	lines := strings.Split(cmd.Long, "\n")
	for i, l := range lines {
		if !strings.HasPrefix(l, "    ") && !strings.HasPrefix(l, "\t") {
			lines[i] = esc.Replace(l)
		}
	}
	cmd.Long = strings.Join(lines, "\n")
	cmd.Short = esc.Replace(cmd.Short)
	cmd.LocalFlags().VisitAll(func(fl *pflag.Flag) { fl.Usage = esc.Replace(fl.Usage) })
	for _, c := range cmd.Commands() {
		escapeMarkdown(c)
	}
}

// preformatted makes text a Markdown code block (kept as is in roff).
func preformatted(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = "    " + l
		}
	}
	return strings.Join(lines, "\n")
}
