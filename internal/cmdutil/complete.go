package cmdutil

import (
	"cmp"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/openclaw/sessions/internal/cells"
)

// Dynamic shell completion (`sessions __complete …`). Every candidate
// function here reads the state without taking any lock, prints nothing
// (cli.Run silences the logger for completion requests; failures go to
// cobra.CompDebugln only), filters by the word being completed before it
// caps the list at MaxCompletions, and returns the newest first.

// MaxCompletions caps the number of candidates of one completion.
const MaxCompletions = 200

const noFiles = cobra.ShellCompDirectiveNoFileComp

// IsCompletionRequest reports whether args are a shell's completion request
// (cobra's hidden __complete / __completeNoDesc commands).
func IsCompletionRequest(args []string) bool {
	return len(args) > 0 && (args[0] == cobra.ShellCompRequestCmd || args[0] == cobra.ShellCompNoDescRequestCmd)
}

// IsCompletionCommand reports whether cmd is cobra's completion request
// command: pre-run work (sweeps, locks, writes) must be skipped for it.
func IsCompletionCommand(cmd *cobra.Command) bool {
	return cmd != nil && (cmd.Name() == cobra.ShellCompRequestCmd || cmd.Name() == cobra.ShellCompNoDescRequestCmd)
}

// candidate is one completion with its sort time.
type candidate struct {
	value, desc string
	at          int64 // ms; newest first
}

func finish(cands []candidate, toComplete string) []string {
	slices.SortStableFunc(cands, func(a, b candidate) int { return cmp.Compare(b.at, a.at) })
	seen := map[string]bool{}
	out := make([]string, 0, min(len(cands), MaxCompletions))
	for _, c := range cands {
		if !strings.HasPrefix(c.value, toComplete) || seen[c.value] {
			continue
		}
		seen[c.value] = true
		if c.desc != "" {
			out = append(out, c.value+"\t"+c.desc)
		} else {
			out = append(out, c.value)
		}
		if len(out) == MaxCompletions {
			break
		}
	}
	return out
}

// completionErr logs why a completion has nothing to offer (cobra's
// completion debug log only).
func completionErr(err error) {
	cobra.CompDebugln("sessions: "+err.Error(), false)
}

// age is a short relative age for descriptions ("" for no time).
func age(ms int64, now time.Time) string {
	if ms <= 0 {
		return ""
	}
	return cells.Ago(now.Sub(time.UnixMilli(ms)))
}

func joinDesc(parts ...string) string {
	var keep []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			keep = append(keep, strings.ReplaceAll(p, "\t", " "))
		}
	}
	return strings.Join(keep, " · ")
}

// SessionKeys completes session keys (as the requester is shown them) of
// every session it may read, newest first, described by kind, channel,
// label and age. A word that matches no key but the start of a sessionId
// completes sessionIds instead.
func (f *Factory) SessionKeys(toComplete string) ([]string, cobra.ShellCompDirective) {
	hints, err := f.Ops().SessionHints(false, func(m string) { completionErr(errors.New(m)) })
	if err != nil {
		completionErr(err)
		return nil, noFiles
	}
	now := f.Now()
	var keys, ids []candidate
	for _, h := range hints {
		keys = append(keys, candidate{value: h.Key, at: h.UpdatedAt, desc: joinDesc(h.Kind, h.Channel, h.Label, age(h.UpdatedAt, now))})
		if h.SessionID != "" {
			ids = append(ids, candidate{value: h.SessionID, at: h.UpdatedAt, desc: joinDesc("session of "+h.Key, age(h.UpdatedAt, now))})
		}
	}
	out := finish(keys, toComplete)
	if len(out) == 0 && toComplete != "" {
		out = finish(ids, toComplete)
	}
	return out, noFiles | cobra.ShellCompDirectiveKeepOrder
}

// Labels completes session labels (of --agent's store when given, else of
// every visible agent), newest first, described by key and age.
func (f *Factory) Labels(toComplete string) ([]string, cobra.ShellCompDirective) {
	hints, err := f.Ops().SessionHints(true, func(string) {})
	if err != nil {
		completionErr(err)
		return nil, noFiles
	}
	now := f.Now()
	var cands []candidate
	for _, h := range hints {
		cands = append(cands, candidate{value: h.Label, at: h.UpdatedAt, desc: joinDesc(h.Key, age(h.UpdatedAt, now))})
	}
	return finish(cands, toComplete), noFiles | cobra.ShellCompDirectiveKeepOrder
}

// AgentIDs completes agent ids (configured ones first, then the
// directories under <state>/agents), described by name and "default".
func (f *Factory) AgentIDs(toComplete string) ([]string, cobra.ShellCompDirective) {
	hints, err := f.Ops().AgentHints()
	if err != nil {
		completionErr(err)
		return nil, noFiles
	}
	var out []string
	for _, h := range hints {
		id := h.ID
		if !strings.HasPrefix(id, toComplete) {
			continue
		}
		var desc []string
		if h.Name != "" {
			desc = append(desc, h.Name)
		}
		if h.Default {
			desc = append(desc, "default")
		}
		if d := joinDesc(desc...); d != "" {
			out = append(out, id+"\t"+d)
		} else {
			out = append(out, id)
		}
		if len(out) == MaxCompletions {
			break
		}
	}
	return out, noFiles | cobra.ShellCompDirectiveKeepOrder
}

// RunIDs completes run ids, newest first, described by kind, status,
// target and age. Records are only read: no run is reaped (that writes).
func (f *Factory) RunIDs(toComplete string) ([]string, cobra.ShellCompDirective) {
	recs, err := f.Ops().RunHints()
	if err != nil {
		completionErr(err)
		return nil, noFiles
	}
	now := f.Now()
	cands := make([]candidate, 0, len(recs))
	for _, r := range recs {
		cands = append(cands, candidate{value: r.RunID, at: r.CreatedAt, desc: joinDesc(r.Kind, r.Status, r.Target, age(r.CreatedAt, now))})
	}
	return finish(cands, toComplete), noFiles | cobra.ShellCompDirectiveKeepOrder
}

// CompleteSessionArg is a ValidArgsFunction completing a session key as the
// first positional argument, and nothing after it.
func CompleteSessionArg(f *Factory) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 {
			return nil, noFiles
		}
		return f.SessionKeys(toComplete)
	}
}

// FixedCompletions completes one of fixed values with descriptions
// ("value\tdescription").
func FixedCompletions(values ...string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		var out []string
		for _, v := range values {
			if strings.HasPrefix(v, toComplete) {
				out = append(out, v)
			}
		}
		return out, noFiles | cobra.ShellCompDirectiveKeepOrder
	}
}
