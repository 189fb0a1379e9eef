package state

import (
	"cmp"
	"slices"
	"strings"

	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/sessionrow"
	"github.com/openclaw/sessions/internal/store"
)

// Row is one session as `sessions list` shows it: the document of
// internal/sessionrow, which the operations layer hands out.
type Row = sessionrow.Row

// Listable reports whether a key is ever listed: `global` only as the main
// session under scope "global", `unknown` never (CONTRACT §3).
func (s *State) Listable(key string) bool {
	switch key {
	case keys.Unknown:
		return false
	case keys.Global:
		return s.GlobalScope()
	}
	return true
}

// Row builds the row of an entry (without transcriptPath and messages).
func (s *State) Row(agent string, st *store.Store, e *store.Entry) Row {
	m := &e.Meta
	kind := keys.Kind(e.Key, m.ChatType)
	if e.Key == keys.Global && s.GlobalScope() {
		kind = "main"
	}
	r := Row{
		Key:            s.DisplayKey(e.Key),
		Kind:           kind,
		AgentID:        agent,
		Label:          m.Label,
		DisplayName:    m.DisplayName,
		UpdatedAt:      m.UpdatedAt,
		SessionID:      m.SessionID,
		Model:          m.Model,
		ContextTokens:  m.ContextTokens,
		TotalTokens:    m.TotalTokens,
		ThinkingLevel:  m.ThinkingLevel,
		VerboseLevel:   m.VerboseLevel,
		SystemSent:     m.SystemSent,
		AbortedLastRun: m.AbortedLastRun,
		SendPolicy:     m.SendPolicy,
		SpawnedBy:      m.SpawnedBy,
		StoreKey:       e.Key,
	}
	dcChannel := ""
	var dc store.DeliveryContext
	if m.DC != nil {
		dc = *m.DC
		dcChannel = strings.TrimSpace(dc.Channel)
	}
	// sessions_list: lastChannel = deliveryContext.channel ?? lastChannel, same for to.
	r.LastChannel = firstNonEmpty(dc.Channel, m.LastChannel)
	r.LastTo = firstNonEmpty(dc.To, m.LastTo)
	if dc.Channel != "" || dc.To != "" || dc.AccountID != "" {
		d := dc
		r.DeliveryContext = &d
	}
	r.Channel = keys.Channel(kind, e.Key, m.Channel, m.LastChannel, dcChannel)
	return r
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// Transcript resolves the transcript path of an entry of agent. Like the
// Resolver it uses, it is not for concurrent use.
func (s *State) Transcript(agent string, st *store.Store, e *store.Entry) (store.Transcript, error) {
	// the agent's sessions dir, joined once per agent rather than per row
	// (a tenth of resolving a 10,000-row list)
	if s.transcriptDir.agent != agent || s.transcriptDir.dir == "" {
		s.transcriptDir.agent, s.transcriptDir.dir = agent, s.SessionsDir(agent)
	}
	return s.Resolver.Transcript(st, e, s.transcriptDir.dir)
}

// SortNewestFirst orders entries newest first (by updatedAt; ties keep
// their order).
func SortNewestFirst(entries []*store.Entry) {
	slices.SortStableFunc(entries, func(x, y *store.Entry) int { return cmp.Compare(y.Updated(), x.Updated()) })
}
