package state

import (
	"sort"
	"strings"

	"github.com/openclaw/sessions/internal/era"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/store"
)

// Target is a resolved session.
type Target struct {
	Agent      string
	Store      *store.Store
	Entry      *store.Entry
	Key        string // as stored
	DisplayKey string
	ViaID      bool // resolved from a sessionId (or a unique prefix of one)
}

// Ref is how a command names its session: a positional reference (a key, a
// sessionId or a unique sessionId prefix) or a label, with --agent to pick
// the agent whose store the label is looked up in.
type Ref struct {
	Arg   string // KEY | SESSION_ID | PREFIX ("" when Label is given)
	Label string // --label (or patch's --target-label)
	Agent string // --agent, for a label ("" = every agent)
}

// MinIDPrefix is the fewest hex digits a sessionId prefix must have.
const MinIDPrefix = 8

// ResolveRef is the one way history, show, send and patch find their
// session: by label (ResolveLabel) when r.Label is set, else by reference
// (Resolve). Both or neither is a usage error.
func (s *State) ResolveRef(r Ref, op policy.Op) (*Target, error) {
	arg, label := strings.TrimSpace(r.Arg), r.Label
	switch {
	case label != "" && arg != "":
		return nil, apperr.Usagef("Provide either sessionKey or label (not both).")
	case label != "":
		return s.ResolveLabel(label, r.Agent, op)
	}
	return s.Resolve(arg, op)
}

// Resolve finds the session a reference names — a key (`main`, `agent:…`,
// `hook:…`), a sessionId, or the start of one (MinIDPrefix or more hex
// digits, matching exactly one session) — and checks that the requester
// may reach it: sandbox visibility first, then the agent-to-agent policy
// (format §6.2). A key wins over a sessionId, a whole sessionId over a
// prefix. Unknown → exit 4; an ambiguous sessionId or prefix → exit 1
// listing the candidates. A session the requester may not see is unknown
// to it: answered as a reference that names nothing, after the same reads
// (a store of an agent it may not see is never opened for it).
func (s *State) Resolve(ref string, op policy.Op) (*Target, error) {
	raw := strings.TrimSpace(ref)
	if raw == "" {
		return nil, apperr.Usagef("a session key or sessionId is required")
	}
	var t *Target
	var err error
	if keys.LooksLikeSessionID(raw) || !keys.LooksLikeKey(raw) {
		t, err = s.byKey(raw, true)
		if err != nil {
			return nil, err
		}
		if t == nil {
			t, err = s.bySessionID(raw)
			if err != nil {
				return nil, err
			}
		}
		if t == nil && IsIDPrefix(raw) {
			t, err = s.byIDPrefix(raw)
			if err != nil {
				return nil, err
			}
		}
	} else {
		t, err = s.byKey(raw, true)
		if err != nil {
			return nil, err
		}
	}
	if t == nil {
		if s.Req.Restrict {
			return nil, s.NotFound(raw)
		}
		if n := hexDigits(raw); n > 0 && n < MinIDPrefix && n+strings.Count(raw, "-") == len(raw) {
			if m, _ := s.idPrefixMatches(raw); len(m) > 0 {
				return nil, apperr.NotFoundf("No session found: %s (a sessionId prefix needs at least %d hex digits)", raw, MinIDPrefix)
			}
		}
		return nil, s.NotFound(raw)
	}
	if err := s.CheckTarget(raw, "", t.Agent, t.Entry.SpawnedBy); err != nil {
		return nil, err
	}
	return t, nil
}

// Lookup finds the entry of a key without any visibility check (nil, nil
// when there is none).
func (s *State) Lookup(raw string) (*Target, error) { return s.byKey(raw, false) }

// byKey looks a key up in the store of the agent it names; with
// reachable, nothing is found (and no store read) in an agent the
// requester may not see.
func (s *State) byKey(raw string, reachable bool) (*Target, error) {
	cands := keys.Candidates(raw, s.Req.Agent, s.Default, config.NormalizeAgentID)
	if len(cands) == 0 {
		return nil, nil
	}
	agent := keys.AgentOf(cands[0], s.Default, config.NormalizeAgentID)
	if cands[0] == keys.Global || cands[0] == keys.Unknown {
		agent = s.Req.Agent
	}
	if reachable && s.CanSeeAgent(agent, policy.OpHistory) != "" {
		return nil, nil
	}
	st, err := s.Store(agent)
	if err != nil {
		return nil, err
	}
	for _, k := range cands {
		if e, ok := st.Lookup(k); ok {
			return &Target{Agent: agent, Store: st, Entry: e, Key: k, DisplayKey: s.DisplayKey(k)}, nil
		}
	}
	return nil, nil
}

// bySessionID searches the store of every agent the requester may see for
// a sessionId; sessions it may not see are not candidates.
func (s *State) bySessionID(id string) (*Target, error) {
	var found []*Target
	for _, agent := range s.AgentIDs() {
		if s.CanSeeAgent(agent, policy.OpHistory) != "" {
			continue
		}
		st, entries, err := s.Entries(agent)
		if err != nil {
			if apperr.CodeOf(err) == apperr.CodeState && s.Era(agent) == era.SQLite {
				continue // not readable yet; other agents may hold it
			}
			return nil, err
		}
		for _, e := range entries {
			if strings.EqualFold(e.SessionID, id) && s.Visible(e) {
				found = append(found, &Target{Agent: agent, Store: st, Entry: e, Key: e.Key, DisplayKey: s.DisplayKey(e.Key), ViaID: true})
			}
		}
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	ks := make([]string, len(found))
	for i, f := range found {
		ks[i] = f.Key
	}
	sort.Strings(ks)
	return nil, apperr.Errorf("Multiple sessions found for sessionId: %s (%s)", id, strings.Join(ks, ", "))
}

// IsIDPrefix reports whether v can be the start of a sessionId: hex digits
// and dashes only, at least MinIDPrefix hex digits, no longer than a UUID.
func IsIDPrefix(v string) bool {
	v = strings.TrimSpace(v)
	if len(v) > 36 {
		return false
	}
	n := hexDigits(v)
	return n >= MinIDPrefix && n+strings.Count(v, "-") == len(v)
}

func hexDigits(v string) int {
	n := 0
	for i := 0; i < len(v); i++ {
		c := v[i]
		if '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' {
			n++
		}
	}
	return n
}

// byIDPrefix searches every agent's store for the one session whose
// sessionId starts with prefix (case-insensitive). Sessions a sandboxed
// requester may not see are not candidates (their keys are never named).
func (s *State) byIDPrefix(prefix string) (*Target, error) {
	found, err := s.idPrefixMatches(prefix)
	if err != nil {
		return nil, err
	}
	switch len(found) {
	case 0:
		return nil, nil
	case 1:
		return found[0], nil
	}
	cands := make([]string, len(found))
	for i, f := range found {
		cands[i] = f.Entry.SessionID + " " + f.DisplayKey
	}
	return nil, apperr.Errorf("Multiple sessions found for sessionId prefix %s: %s", prefix, strings.Join(cands, ", ")).
		With("candidates", candidates(found))
}

// idPrefixMatches lists the visible sessions whose sessionId starts with
// prefix, ordered by key (the stores of agents the requester may not see
// are not read).
func (s *State) idPrefixMatches(prefix string) ([]*Target, error) {
	p := strings.ToLower(strings.TrimSpace(prefix))
	var found []*Target
	for _, agent := range s.AgentIDs() {
		if s.CanSeeAgent(agent, policy.OpHistory) != "" {
			continue
		}
		st, entries, err := s.Entries(agent)
		if err != nil {
			if apperr.CodeOf(err) == apperr.CodeState && s.Era(agent) == era.SQLite {
				continue
			}
			return nil, err
		}
		for _, e := range entries {
			if e.SessionID != "" && strings.HasPrefix(strings.ToLower(e.SessionID), p) && s.Visible(e) {
				found = append(found, &Target{Agent: agent, Store: st, Entry: e, Key: e.Key, DisplayKey: s.DisplayKey(e.Key), ViaID: true})
			}
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Key < found[j].Key })
	return found, nil
}

// candidates is the JSON form of an ambiguous match.
func candidates(ts []*Target) []map[string]string {
	out := make([]map[string]string, len(ts))
	for i, t := range ts {
		out[i] = map[string]string{"key": t.DisplayKey, "sessionId": t.Entry.SessionID, "agentId": t.Agent}
	}
	return out
}

// ResolveLabel finds the session with a label (format §6.3 step 3): in
// agent's store when agent is given, else in every agent's store; then the
// same visibility and agent-to-agent checks as Resolve: a label only
// sessions the requester may not see carry is answered as one no session
// carries (their stores are not read).
func (s *State) ResolveLabel(label, agent string, op policy.Op) (*Target, error) {
	l := strings.TrimSpace(label)
	switch {
	case l == "":
		return nil, apperr.Usagef("invalid label: empty")
	case len([]rune(l)) > 512: // 2026.9.6's limit; a 1.30 store has none over 64
		return nil, apperr.Usagef("invalid label: too long (max 512)")
	}
	agents := s.AgentIDs()
	if strings.TrimSpace(agent) != "" {
		req := config.NormalizeAgentID(agent)
		if err := s.CheckLabelAgent(req, op); err != nil {
			return nil, err
		}
		agents = []string{req}
	}
	var found []*Target
	for _, a := range agents {
		if s.CanSeeAgent(a, op) != "" {
			continue
		}
		st, entries, err := s.Entries(a)
		if err != nil {
			if len(agents) > 1 && s.Era(a) == era.SQLite {
				continue
			}
			return nil, err
		}
		for _, e := range entries {
			if e.Label == l && s.Visible(e) {
				found = append(found, &Target{Agent: a, Store: st, Entry: e, Key: e.Key, DisplayKey: s.DisplayKey(e.Key)})
			}
		}
	}
	switch len(found) {
	case 0:
		return nil, s.NotFoundLabel(l)
	case 1:
	default:
		ks := make([]string, len(found))
		for i, f := range found {
			ks[i] = f.Key
		}
		return nil, apperr.Errorf("Multiple sessions found with label: %s (%s)", l, strings.Join(ks, ", "))
	}
	return found[0], nil
}

// SendPolicy evaluates the send policy for a target (format §7.1).
func (s *State) SendPolicy(t *Target) string {
	m := t.Entry.Meta
	return policy.Send(SendConfigOf(s.Cfg), policy.SendInput{Key: t.Key, EntryPolicy: m.SendPolicy, EntryChannel: m.Channel, LastChannel: m.LastChannel, ChatType: m.ChatType})
}

// SendConfigOf is cfg's session.sendPolicy for policy.Send (nil: none) —
// the local config's, or a gateway host's (config.get).
func SendConfigOf(c *config.Config) *policy.SendConfig {
	if c == nil || c.Session.SendPolicy == nil {
		return nil
	}
	sp := c.Session.SendPolicy
	cfg := &policy.SendConfig{Default: sp.Default}
	for _, r := range sp.Rules {
		cfg.Rules = append(cfg.Rules, policy.SendRule{Action: r.Action, Channel: r.Match.Channel, ChatType: r.Match.ChatType, KeyPrefix: r.Match.KeyPrefix})
	}
	return cfg
}

// ChannelOf is the channel of a session as rows show it ("" when unknown).
func (s *State) ChannelOf(e *store.Entry) string {
	dc := ""
	if e.DC != nil {
		dc = e.DC.Channel
	}
	c := keys.Channel(keys.Kind(e.Key, e.ChatType), e.Key, e.Channel, e.LastChannel, dc)
	if c == "unknown" {
		return ""
	}
	return c
}
