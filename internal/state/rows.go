package state

import (
	"encoding/json"
	"strings"

	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/store"
)

// Row is one session as `sessions list` shows it (CONTRACT §4). Field order
// is the JSON order; every field is present only when known.
type Row struct {
	// Context is the named gateway context the row comes from, in fleet
	// mode (--context all, or several); "" otherwise.
	Context         string                 `json:"context,omitempty"`
	Key             string                 `json:"key"`
	Kind            string                 `json:"kind"`
	Channel         string                 `json:"channel"`
	AgentID         string                 `json:"agentId"`
	Label           string                 `json:"label,omitempty"`
	DisplayName     string                 `json:"displayName,omitempty"`
	UpdatedAt       *float64               `json:"updatedAt,omitempty"`
	SessionID       string                 `json:"sessionId,omitempty"`
	Model           string                 `json:"model,omitempty"`
	ContextTokens   *float64               `json:"contextTokens,omitempty"`
	TotalTokens     *float64               `json:"totalTokens,omitempty"`
	ThinkingLevel   string                 `json:"thinkingLevel,omitempty"`
	VerboseLevel    string                 `json:"verboseLevel,omitempty"`
	SystemSent      *bool                  `json:"systemSent,omitempty"`
	AbortedLastRun  *bool                  `json:"abortedLastRun,omitempty"`
	SendPolicy      string                 `json:"sendPolicy,omitempty"`
	SpawnedBy       string                 `json:"spawnedBy,omitempty"`
	LastChannel     string                 `json:"lastChannel,omitempty"`
	LastTo          string                 `json:"lastTo,omitempty"`
	DeliveryContext *store.DeliveryContext `json:"deliveryContext,omitempty"`
	TranscriptPath  string                 `json:"transcriptPath,omitempty"`
	Messages        []json.RawMessage      `json:"messages,omitempty"`

	// Not in JSON: what the command needs besides.
	StoreKey string       `json:"-"`
	Entry    *store.Entry `json:"-"`
	Store    *store.Store `json:"-"`
}

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
		Entry:          e,
		Store:          st,
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

// Transcript resolves the transcript path of an entry of agent.
func (s *State) Transcript(agent string, st *store.Store, e *store.Entry) (store.Transcript, error) {
	return s.Resolver.Transcript(st, e, s.SessionsDir(agent))
}
