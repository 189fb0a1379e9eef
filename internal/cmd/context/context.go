// Package contextcmd implements `sessions context`: named OpenClaw gateways
// (like kubectl contexts or gh hosts) kept in the user config dir, for
// --context NAME (repeatable, or all) and the current context.
package contextcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/gateway"
	"github.com/openclaw/sessions/internal/output"
	"github.com/spf13/cobra"
)

// Row is one context in JSON output.
type Row struct {
	Name        string `json:"name"`
	Gateway     string `json:"gateway"`
	Auth        string `json:"auth"` // "token-file PATH" | "token-env VAR" | "environment"
	TokenFile   string `json:"tokenFile,omitempty"`
	TokenEnv    string `json:"tokenEnv,omitempty"`
	Fingerprint string `json:"fingerprint,omitempty"`
	Insecure    bool   `json:"insecure,omitempty"`
	Current     bool   `json:"current"`
}

// ListResult is the JSON document of `context list`.
type ListResult struct {
	Current  string `json:"current"`
	Count    int    `json:"count"`
	Contexts []Row  `json:"contexts"`
}

// AddResult is the JSON document of `context add`.
type AddResult struct {
	Context  Row  `json:"context"`
	Replaced bool `json:"replaced"`
}

// UseResult is the JSON document of `context use`.
type UseResult struct {
	Current string `json:"current"`
}

// RemoveResult is the JSON document of `context remove`.
type RemoveResult struct {
	Removed string `json:"removed"`
	Current string `json:"current"`
}

// Options are the parsed flags of the subcommands.
type Options struct {
	f *cmdutil.Factory
	// Path of the contexts file; "" = gateway.ContextsPath().
	Path string

	Name      string
	TokenFile string
	TokenEnv  string
	Force     bool
	Use       bool
	None      bool
}

// NewCmd builds `sessions context` and its subcommands.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "context <command>",
		Short: "Name OpenClaw gateways to work on: add, list, use, remove",
		Long: `Named OpenClaw gateways, for hosts other than this one (like kubectl contexts).

A context is a gateway URL and where its token is read from (a file, or an
environment variable, or else $OPENCLAW_GATEWAY_TOKEN / $OPENCLAW_GATEWAY_PASSWORD);
the token itself is never stored. Contexts live in
<user config dir>/sessions/contexts.json (mode 0600; on Linux
~/.config/sessions/contexts.json, or under $XDG_CONFIG_HOME).

Select them with the global --context NAME (repeatable, or --context all), or
make one current with 'sessions context use NAME'. Plain ws:// is accepted for
loopback (an SSH tunnel) only, unless --insecure-gateway; wss:// verifies the
certificate, or pins it with --gateway-fingerprint SHA256.`,
		Example: `  sessions context add home --gateway ws://127.0.0.1:18789 --token-env HOME_GW_TOKEN
  sessions context add vps --gateway wss://vps.example.com --token-file ~/.config/sessions/vps.token
  sessions context list
  sessions context use vps
  sessions context remove home`,
		Args: cmdutil.NoArgs,
	}
	cmd.AddCommand(newAdd(f), newList(f), newUse(f), newRemove(f))
	return cmd
}

func (o *Options) path() (string, error) {
	if o.Path != "" {
		return o.Path, nil
	}
	return gateway.ContextsPath()
}

func newAdd(f *cmdutil.Factory) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "add <name> --gateway <url> [--token-file <file> | --token-env <var>]",
		Short: "Add a named gateway",
		Long: `Add a named gateway: its URL (the global --gateway), and where its token is read
from when it is used: --token-file FILE (kept as an absolute path; the file
should be mode 0600) or --token-env VAR. With neither, $OPENCLAW_GATEWAY_TOKEN
or $OPENCLAW_GATEWAY_PASSWORD is used. The token is never stored.

--gateway-fingerprint SHA256 pins a wss:// certificate; --insecure-gateway
allows plain ws:// to a host that is not loopback. --force replaces an
existing context; --use makes the new one current.

JSON (--json): {"context":{name,gateway,auth,...,current},"replaced":bool}`,
		Args: cmdutil.ExactArgs(1, "context name"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return runAdd(o)
		},
	}
	cmd.Flags().StringVar(&o.TokenFile, "token-file", "", "read the token from `FILE` when the context is used")
	cmd.Flags().StringVar(&o.TokenEnv, "token-env", "", "read the token from the environment variable `VAR`")
	cmd.Flags().BoolVar(&o.Force, "force", false, "replace an existing context of that name")
	cmd.Flags().BoolVar(&o.Use, "use", false, "make it the current context")
	return cmd
}

func runAdd(o *Options) error {
	f := o.f
	fl := f.Flags
	if fl.Gateway.URL == "" {
		return apperr.Usagef("context add: --gateway URL is required")
	}
	if fl.Gateway.TokenFile != "" {
		return apperr.Usagef("context add: use --token-file (--gateway-token-file is for one invocation)")
	}
	if len(fl.Gateway.Contexts) > 0 {
		return apperr.Usagef("context add: --context does not apply")
	}
	x := gateway.Context{Name: o.Name, Gateway: fl.Gateway.URL, TokenEnv: o.TokenEnv, Fingerprint: fl.Gateway.Fingerprint, Insecure: fl.Gateway.Insecure}
	if o.TokenFile != "" {
		abs, err := filepath.Abs(o.TokenFile)
		if err != nil {
			return apperr.Usagef("--token-file: %v", err)
		}
		st, err := os.Stat(abs)
		if err != nil {
			return apperr.Usagef("--token-file %s: %v", abs, unwrap(err))
		}
		if !st.Mode().IsRegular() {
			return apperr.Usagef("--token-file %s: not a regular file", abs)
		}
		if st.Mode().Perm()&0o077 != 0 {
			f.Warn(fmt.Sprintf("token file %s is readable by others (mode %04o): chmod 600 it", abs, st.Mode().Perm()))
		}
		x.TokenFile = abs
	}
	path, err := o.path()
	if err != nil {
		return err
	}
	replaced := false
	c, err := gateway.UpdateContexts(path, func(c *gateway.Contexts) error {
		_, replaced = c.Get(x.Name)
		if err := c.Add(x, o.Force); err != nil {
			return err
		}
		if o.Use {
			return c.Use(x.Name)
		}
		return nil
	})
	if err != nil {
		return err
	}
	stored, _ := c.Get(x.Name)
	row := toRow(stored, c.Current)
	if f.JSONMode() {
		return f.PrintJSON(AddResult{Context: row, Replaced: replaced})
	}
	verb := "added"
	if replaced {
		verb = "replaced"
	}
	fmt.Fprintf(f.IO.Out, "%s context %s: %s (%s)%s\n", verb, row.Name, row.Gateway, row.Auth, map[bool]string{true: ", current", false: ""}[row.Current])
	return nil
}

func newList(f *cmdutil.Factory) *cobra.Command {
	o := &Options{f: f}
	return &cobra.Command{
		Use:     "list",
		Aliases: []string{"ls"},
		Short:   "List the named gateways",
		Long: `List the named gateways, by name, the current one marked.

JSON (--json): {"current":NAME|"","count":N,"contexts":[{"name","gateway","auth",
"tokenFile","tokenEnv","fingerprint","insecure","current"}...]}
Piped: name, current (true/false), gateway, auth — tab-separated.`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runList(o) },
	}
}

func runList(o *Options) error {
	f := o.f
	path, err := o.path()
	if err != nil {
		return err
	}
	c, err := gateway.LoadContexts(path)
	if err != nil {
		return err
	}
	res := ListResult{Current: c.Current, Contexts: []Row{}}
	for _, x := range c.Contexts {
		res.Contexts = append(res.Contexts, toRow(x, c.Current))
	}
	res.Count = len(res.Contexts)
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	io := f.IO
	tty := io.IsStdoutTTY()
	if res.Count == 0 {
		if tty {
			fmt.Fprintln(io.ErrOut, "No contexts. Add one: sessions context add NAME --gateway URL --token-file FILE")
		}
		return nil
	}
	if !tty {
		t := output.NewTable()
		for _, r := range res.Contexts {
			t.Row(r.Name, strconv.FormatBool(r.Current), r.Gateway, r.Auth)
		}
		return t.Render(io.Out, false, 0)
	}
	t := output.NewTable("", "Name", "Gateway", "Auth").Flexible(2, 3)
	for _, r := range res.Contexts {
		mark := ""
		if r.Current {
			mark = "*"
		}
		t.Row(mark, r.Name, r.Gateway, r.Auth)
	}
	return t.Render(io.Out, true, io.TerminalWidth())
}

func newUse(f *cmdutil.Factory) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "use {<name> | --none}",
		Short: "Make a named gateway the current one (--none: back to the local state)",
		Long: `Make a named gateway the current one: commands then work through it unless
--gateway, --context or $OPENCLAW_GATEWAY_URL say otherwise. --none unsets it,
so that commands work on the local state dir again.

JSON (--json): {"current":NAME|""}`,
		RunE: func(cmd *cobra.Command, args []string) error {
			switch {
			case o.None && len(args) > 0:
				return apperr.Usagef("context use: give a name or --none, not both")
			case o.None:
			case len(args) != 1:
				return cmdutil.ExactArgs(1, "context name")(cmd, args)
			default:
				o.Name = args[0]
			}
			return runUse(o)
		},
	}
	cmd.ValidArgsFunction = completeOneName
	cmd.Flags().BoolVar(&o.None, "none", false, "unset the current context")
	return cmd
}

func runUse(o *Options) error {
	path, err := o.path()
	if err != nil {
		return err
	}
	if _, err := gateway.UpdateContexts(path, func(c *gateway.Contexts) error { return c.Use(o.Name) }); err != nil {
		return err
	}
	if o.f.JSONMode() {
		return o.f.PrintJSON(UseResult{Current: o.Name})
	}
	if o.Name == "" {
		fmt.Fprintln(o.f.IO.Out, "no current context: commands work on the local state dir")
	} else {
		fmt.Fprintf(o.f.IO.Out, "current context: %s\n", o.Name)
	}
	return nil
}

func newRemove(f *cmdutil.Factory) *cobra.Command {
	o := &Options{f: f}
	return &cobra.Command{
		Use:     "remove <name>",
		Aliases: []string{"rm"},
		Short:   "Remove a named gateway",
		Long: `Remove a named gateway (its token file, if any, is left alone). Removing the
current context unsets it.

JSON (--json): {"removed":NAME,"current":NAME|""}`,
		Args:              cmdutil.ExactArgs(1, "context name"),
		ValidArgsFunction: completeOneName,
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			return runRemove(o)
		},
	}
}

func runRemove(o *Options) error {
	path, err := o.path()
	if err != nil {
		return err
	}
	c, err := gateway.UpdateContexts(path, func(c *gateway.Contexts) error { return c.Remove(o.Name) })
	if err != nil {
		return err
	}
	if o.f.JSONMode() {
		return o.f.PrintJSON(RemoveResult{Removed: o.Name, Current: c.Current})
	}
	fmt.Fprintf(o.f.IO.Out, "removed context %s\n", o.Name)
	return nil
}

func toRow(x gateway.Context, current string) Row {
	r := Row{Name: x.Name, Gateway: x.Gateway, TokenFile: x.TokenFile, TokenEnv: x.TokenEnv,
		Fingerprint: x.Fingerprint, Insecure: x.Insecure, Current: x.Name == current}
	switch {
	case x.TokenFile != "":
		r.Auth = "token-file " + x.TokenFile
	case x.TokenEnv != "":
		r.Auth = "token-env " + x.TokenEnv
	default:
		r.Auth = "environment"
	}
	return r
}

func completeOneName(_ *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	names, d := CompleteNames(toComplete)
	if len(names) > 0 {
		names = names[1:] // not "all"
	}
	return names, d
}

// CompleteNames completes context names (for --context and the subcommands).
func CompleteNames(toComplete string) ([]string, cobra.ShellCompDirective) {
	path, err := gateway.ContextsPath()
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	c, err := gateway.LoadContexts(path)
	if err != nil {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	out := []string{gateway.AllContexts + "\tevery context"}
	for _, x := range c.Contexts {
		out = append(out, x.Name+"\t"+x.Gateway)
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

func unwrap(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
