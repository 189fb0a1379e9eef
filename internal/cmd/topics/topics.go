// Package topics holds the help topics (`sessions help exit-codes`,
// `sessions help environment`): commands that only carry text, listed
// under "Additional help topics" in the root help, as gh does.
package topics

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// ExitCodes is the text of `sessions help exit-codes`.
const ExitCodes = `sessions exits with one of these codes. Treat any other code as a failure.

  0   ok
  1   error: anything not listed below (an engine or runner failure, an
      ambiguous sessionId, sessionId prefix or label — the candidates are
      named —, a transcript outside the state dir, a --jq expression that
      fails on the data, a lifecycle refusal such as "Cannot delete the main
      session (<key>).", doctor findings left); over a fleet (--context all),
      one host or more failed: the others' rows are printed, the failures
      are in "errors"
  2   usage: an unknown command or flag, a bad argument or --jq expression, a
      number out of its range (e.g. --limit 5000), a value that is not one of
      an enum flag's choices (e.g. runs --status bogus; the choices are named),
      a history --before cursor that is malformed or made for another
      transcript; history over a fleet, a write over several
      gateways; search, usage, locks or doctor with --gateway/--context;
      an --engine other than gateway (or auto) for a send whose sessions
      are written through a gateway
  3   forbidden by policy: the send policy denies it, the agent-to-agent
      policy or the sandbox visibility does not allow it, a spawn rule refuses
      it (OpenClaw's own messages); or a gateway refused the credentials,
      lacks a scope for the call (e.g. operator.admin; --as over a gateway
      needs config.get's: operator.admin on 2026.1.30, operator.read on
      2026.9.x), or wants this device paired first (the message names the
      'openclaw devices approve' command to run on the gateway host)
  4   not found: no such session, label, run or agent (an unknown --agent,
      for every command, names the known agents), or an --as key that names
      no session (an agent's main session, agent:<id>:main or main, is
      accepted before it exists)
  5   timed out waiting: send --timeout or wait --timeout expired (the run
      goes on; follow it with 'sessions wait RUN_ID'); patch --wait-idle
      found OpenClaw still running a turn on the session (nothing written);
      a live run on a session did not end within delete/reset --force's 15 s;
      or a gateway call did not answer in time
  10  state: the state dir or a file in it is missing, unreadable, corrupt or
      unsupported (e.g. an OpenClaw 2026.8+ SQLite store of another schema
      than 2026.9.6's, one an OpenClaw gateway or doctor holds, or the
      session a running 'openclaw agent --local' turn uses); a directory with
      neither an agents/ directory nor a config file is not a state dir; or a
      gateway is unreachable, its handshake failed, it speaks an unsupported
      protocol version, or the connection was lost mid-call
  11  lock: an OpenClaw lock was not acquired within --lock-timeout (default
      10s); the message names the holder's pid ('sessions locks' lists them)

With --json (or --jq) anywhere on the command line a failure is still exactly
one JSON document on stdout — also when flag parsing or the command name
failed before reaching it — never filtered by --jq:

  {"status": "error" | "forbidden" | "timeout", "error": "message", ...}

with "sessionKey" or "runId" when they are known. One exception: doctor's
report is its document also on exit 1 and 10 (status "error", --jq applies). The message is also printed
on stderr, prefixed with the command ('sessions history: ...'); without --json
a usage error adds "Run 'sessions history --help' for usage.". 'history --follow' ends with 0 on Ctrl-C, SIGTERM or
--idle-timeout.`

// EnvVar is one environment variable the tool reads or sets.
type EnvVar struct {
	Name, Help string
}

// Read are the environment variables sessions reads.
var Read = []EnvVar{
	{"OPENCLAW_STATE_DIR", "the OpenClaw state dir (after --state-dir; default ~/.openclaw)"},
	{"CLAWDBOT_STATE_DIR", "legacy name of OPENCLAW_STATE_DIR, used when that is unset"},
	{"OPENCLAW_CONFIG_PATH", "the openclaw.json to read (after --config; default: the state dir's, then the legacy candidates)"},
	{"CLAWDBOT_CONFIG_PATH", "legacy name of OPENCLAW_CONFIG_PATH"},
	{"OPENCLAW_SESSION_KEY", "act as this session (like --as): an agent that shells out passes its own key, and transcript text is masked (see --redact); unset = the host operator"},
	{"OPENCLAW_SANDBOXED", "1 or true: the requester is sandboxed (like --sandboxed)"},
	{"SESSIONS_ENGINE", "what produces agent turns for send and spawn (like --engine): auto (default), provider, openclaw, gateway or exec:COMMAND"},
	{"SESSIONS_OPENCLAW", "the openclaw executable of --engine openclaw and auto (like --openclaw; default: openclaw on $PATH)"},
	{"PATH", "where auto and --engine openclaw look for the openclaw executable"},
	{"OPENCLAW_PROFILE", "the provider engine's default workspace is ~/.openclaw/workspace-$OPENCLAW_PROFILE (as OpenClaw)"},
	{"TZ", "the time zone of the provider engine's system prompt when agents.defaults.userTimezone is unset"},
	{"SESSIONS_DELIVER", "how announces are delivered (like --deliver): exec:COMMAND"},
	{"SESSIONS_LOG_LEVEL", "stderr log level: debug, info, warn (default) or error; --log-level wins"},
	{"SESSIONS_RUNNER_EXE", "the executable started as the detached runner (default: this executable)"},
	{"SESSIONS_DELIVER_TIMEOUT", "how long a --deliver hook may run, as a Go duration (default 30s); meant for tests"},
	{"SESSIONS_SQLITE_DIRECT", "0 or false: read the sessions and transcript events of a SQLite store (2026.8+) only through SQLite, never straight from the database file (default: the direct read, used only where its answer is SQLite's)"},
	{"OPENAI_API_KEY", "API key of the built-in openai provider when openclaw.json gives none"},
	{"ANTHROPIC_API_KEY", "API key of the built-in anthropic provider when openclaw.json gives none"},
	{"OPENCLAW_GATEWAY_URL", "work through the OpenClaw gateway at this ws:// or wss:// URL (like --gateway)"},
	{"OPENCLAW_GATEWAY_TOKEN", "the gateway's token (after --gateway-token-file; never give a token on the command line)"},
	{"OPENCLAW_GATEWAY_PASSWORD", "the gateway's password, when there is no token"},
	{"OPENCLAW_GATEWAY_PORT", "the port of this host's own gateway (after it: gateway.port in openclaw.json, then 18789)"},
	{"XDG_CONFIG_HOME", "where our own files live: $XDG_CONFIG_HOME/sessions (default ~/.config/sessions): contexts.json, the device key"},
	{"XDG_STATE_HOME", "the run records of sends through a named gateway: $XDG_STATE_HOME/sessions/gateways/<host>-<port>-<hash>/ (default ~/.local/state/sessions/gateways/)"},
	{"XDG_CACHE_HOME", "our caches live in $XDG_CACHE_HOME/sessions (default ~/.cache/sessions): usage's per-file cache (usage/), big parsed stores (stores/), the search index (index/)"},
	{"SESSIONS_NO_INDEX", "1 or true: search scans every transcript instead of answering from the search index (like --no-index)"},
	{"SESSIONS_INDEX_BACKGROUND", "0 or false: a search that finds the search index far behind never starts `sessions index --update` in the background; it updates the index itself for up to 2 s, then scans"},
	{"GOMEMLIMIT", "the Go heap limit; when unset, usage sets a soft 40 MiB one (it bounds its memory on big transcripts)"},
	{"GODEBUG", "Go's runtime settings; with disablethp=1 a list of a whole big store takes no transparent huge pages for its heap (on Linux it does by default, where the kernel gives them on advice)"},
	{"TZ", "the time zone of usage's days, weeks and months (default: the system's)"},
	{"HOME", "where ~/.openclaw (and the legacy ~/.clawdbot, ~/.moltbot, ~/.moldbot) are looked for"},
	{"NO_COLOR", "set to anything: never colour the output"},
	{"CLICOLOR_FORCE", "set to anything but 0: colour even when stdout is not a terminal"},
	{"TERM", "dumb: no colour"},
	{"COLUMNS", "the table width when the terminal's cannot be read"},
	{"WAYLAND_DISPLAY", "set: the terminal UI pastes (ctrl+v) with wl-paste when wl-copy and wl-paste are on PATH; otherwise xclip, xsel or termux-clipboard-get, looked up on the first paste"},
	{"RUNEWIDTH_EASTASIAN", "1 or 0: a table counts East Asian ambiguous-width characters two columns wide or one; unset: one on a terminal that draws them narrow (told by TERM_PROGRAM, TERM_PROGRAM_WSL, TERM, VTE_VERSION, ALACRITTY_LOG, on Windows WT_PROFILE_ID, ConEmuANSI), else two in a Chinese, Japanese or Korean locale (LC_ALL, else LC_CTYPE, else LANG)"},
}

// Set are the variables sessions sets for the commands it runs.
var Set = []struct {
	For  string
	Vars []EnvVar
}{
	{"exec:COMMAND engines (send --engine; the request is also on stdin as JSON)", []EnvVar{
		{"SESSIONS_AGENT_ID", "the target agent"},
		{"SESSIONS_SESSION_KEY", "the target session key"},
		{"SESSIONS_SESSION_ID", "its sessionId"},
		{"SESSIONS_TRANSCRIPT", "its transcript file"},
		{"SESSIONS_MESSAGE", "the message of this turn"},
		{"SESSIONS_EXTRA_SYSTEM_PROMPT", "the extra system prompt (agent-to-agent context, announce step)"},
		{"SESSIONS_PROVIDER", "the configured provider"},
		{"SESSIONS_MODEL", "the configured model"},
		{"SESSIONS_THINKING", "the thinking level"},
		{"SESSIONS_TIMEOUT_SECONDS", "the turn's time limit"},
		{"OPENCLAW_SESSION_KEY", "spawn runs only: the child's session key, so that a sessions call made by the engine acts as the child"},
		{"SESSIONS_OMITTED", "comma-separated names of the variables above left out because their value was over 64 KiB (read stdin instead)"},
	}},
	{"exec:COMMAND delivery hooks (--deliver)", []EnvVar{
		{"SESSIONS_DELIVERY_CHANNEL", "the channel to deliver to"},
		{"SESSIONS_DELIVERY_TO", "the recipient"},
		{"SESSIONS_DELIVERY_ACCOUNT_ID", "the channel account"},
		{"SESSIONS_DELIVERY_THREAD_ID", "the thread, when there is one"},
		{"SESSIONS_DELIVERY_SESSION_KEY", "the session the announce comes from"},
		{"SESSIONS_DELIVERY_MESSAGE", "the text to deliver"},
	}},
}

// Environment is the text of `sessions help environment`.
func Environment() string {
	var b strings.Builder
	b.WriteString("sessions reads these environment variables (flags win over them):\n\n")
	writeVars(&b, Read)
	b.WriteString(`
The config file's ${VAR} references are substituted from the environment (and
its own env section), as OpenClaw does. Runners started by send and spawn drop
OPENCLAW_SESSION_KEY and OPENCLAW_SANDBOXED: they act for the run record, not
for whoever started them.
`)
	for _, s := range Set {
		fmt.Fprintf(&b, "\nsessions sets these for %s:\n\n", s.For)
		writeVars(&b, s.Vars)
	}
	return strings.TrimRight(b.String(), "\n")
}

func writeVars(b *strings.Builder, vars []EnvVar) {
	w := 0
	for _, v := range vars {
		w = max(w, len(v.Name))
	}
	for _, v := range vars {
		fmt.Fprintf(b, "  %-*s  %s\n", w, v.Name, v.Help)
	}
}

// NewCmds builds the help topic commands.
func NewCmds() []*cobra.Command {
	return []*cobra.Command{
		topic("exit-codes", "Exit codes and the JSON error document"),
		topic("environment", "Environment variables sessions reads and sets"),
	}
}

// Long is the text of the help topic name ("" for none). The topics'
// commands are built with no Long: their text is formatted when help
// prints it, not by every process that builds the command tree; the man
// pages set it (cli.ManRoot).
func Long(name string) string {
	switch name {
	case "exit-codes":
		return ExitCodes
	case "environment":
		return Environment()
	}
	return ""
}

// topic is a command that only has help: `sessions help NAME` (or
// `sessions NAME`) prints its text. Not runnable, so cobra lists it under
// "Additional help topics" and man pages give it a page of its own.
func topic(name, short string) *cobra.Command {
	cmd := &cobra.Command{
		Use:   name,
		Short: short,
		Annotations: map[string]string{
			"helpTopic": "true",
		},
	}
	cmd.SetHelpFunc(func(c *cobra.Command, _ []string) {
		long := c.Long
		if long == "" {
			long = Long(c.Name())
		}
		fmt.Fprintln(c.OutOrStdout(), long)
	})
	cmd.SetUsageFunc(func(c *cobra.Command) error {
		fmt.Fprintf(c.OutOrStderr(), "Usage: %s help %s\n", c.Root().Name(), c.Name())
		return nil
	})
	return cmd
}
