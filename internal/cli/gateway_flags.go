package cli

import (
	contextcmd "github.com/openclaw/sessions/internal/cmd/context"
	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/spf13/cobra"
)

// addGatewayFlags adds the global flags that say which OpenClaw gateway(s)
// to work through, their completion, and `sessions context`.
// Secrets never go on the command line: tokens come from a file or the
// environment.
func addGatewayFlags(root *cobra.Command, f *cmdutil.Factory) {
	pf := root.PersistentFlags()
	pf.StringVar(&f.Flags.Gateway.URL, "gateway", "", "work through the OpenClaw gateway at `URL` (ws:// or wss://; also $OPENCLAW_GATEWAY_URL)")
	pf.StringVar(&f.Flags.Gateway.TokenFile, "gateway-token-file", "", "read the gateway token from `FILE` (default $OPENCLAW_GATEWAY_TOKEN, $OPENCLAW_GATEWAY_PASSWORD)")
	pf.BoolVar(&f.Flags.Gateway.Insecure, "insecure-gateway", false, "allow plain ws:// to a gateway that is not on loopback")
	pf.StringVar(&f.Flags.Gateway.Fingerprint, "gateway-fingerprint", "", "pin the wss:// gateway's certificate by its `SHA256` fingerprint")
	pf.StringArrayVar(&f.Flags.Gateway.Contexts, "context", nil, "work through the named gateway `NAME` (repeatable, or all; see 'sessions context')")
	_ = root.RegisterFlagCompletionFunc("context", func(_ *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		return contextcmd.CompleteNames(toComplete)
	})
	_ = root.RegisterFlagCompletionFunc("gateway", cobra.NoFileCompletions)
	_ = root.RegisterFlagCompletionFunc("gateway-fingerprint", cobra.NoFileCompletions)
	root.AddCommand(contextcmd.NewCmd(f))
}
