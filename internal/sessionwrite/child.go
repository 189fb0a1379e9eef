package sessionwrite

import (
	"context"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/keys"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/store"
	"github.com/openclaw/sessions/internal/transcript"
	"github.com/tidwall/gjson"
)

// ChildSpec is a sub-agent's child session to create in agent Target's
// store of this host's state dir (a local spawn).
type ChildSpec struct {
	Target         string // the agent whose store gets the child
	RequesterAgent string
	RequesterKey   string // the requester's store key
	Key, SessionID string // the child's
	Label          string // as given (checked against the store's era)
	// ModelOverride and ProviderOverride: the model the child runs with
	// when it is not the agent's default ("": none).
	ModelOverride, ProviderOverride string
	Thinking                        string
	Now                             time.Time
}

// ChildRequester is the requester's entry as read for the child.
type ChildRequester struct {
	Key, SessionID, Channel string
}

// CreatedChild is the child created.
type CreatedChild struct {
	Key, SessionID, Label string
	Now                   time.Time
	// Requester: the requester's entry (nil: it has none yet).
	Requester *ChildRequester
	Path      string // the store written
	Era       era.Era
}

// CreateChild creates the child (OpenClaw 1.30's spawn steps 6, 9, 11) in
// one locked insert; the requester's entry is read inside the same lock
// when it shares the store (JSON era), or just before (the SQLite era),
// and its transcript checked (the announce must be able to append to it).
func CreateChild(ctx context.Context, s *state.State, spec ChildSpec, o Options) (*CreatedChild, error) {
	reqStorePath, _ := s.StorePath(spec.RequesterAgent)
	childStorePath, _ := s.StorePath(spec.Target)
	sameStore := reqStorePath == childStorePath
	c := &CreatedChild{Key: spec.Key, SessionID: spec.SessionID, Label: spec.Label, Now: spec.Now}
	var reqEntry *store.Entry
	if !sameStore {
		if t, err := s.Lookup(spec.RequesterKey); err != nil {
			return nil, err
		} else if t != nil {
			reqEntry = t.Entry
			// state's stores keep fields only; childEntry reads the
			// requester's groupId/groupChannel/space from its full JSON
			if raw, ok, err := s.EntryRaw(t.Agent, t.Entry); err != nil {
				return nil, err
			} else if ok {
				full := *t.Entry
				full.Raw = raw
				reqEntry = &full
			}
			if err := checkRequesterTranscript(s, spec.RequesterAgent, t.Store, reqEntry); err != nil {
				return nil, err
			}
		}
	}
	w, err := Open(s, spec.Target, o)
	if err != nil {
		return nil, err
	}
	defer w.Close()
	if c.Label != "" {
		if c.Label, err = w.Route().ParseLabel(c.Label); err != nil {
			return nil, err
		}
	}
	child := Child{Key: c.Key, SessionID: c.SessionID, ParentKey: spec.RequesterKey, RequesterAgent: spec.RequesterAgent, Label: c.Label,
		Build: func(st *store.Store, req *store.Entry) (*jsonx.Object, error) {
			if sameStore {
				reqEntry = req
				if reqEntry != nil && w.Route().Direct(era.JSON) {
					if err := checkRequesterTranscript(s, spec.RequesterAgent, st, reqEntry); err != nil {
						return nil, err
					}
				}
			}
			return childEntry(s, spec, c.Label, reqEntry), nil
		}}
	if sameStore {
		child.RequesterKeys = keys.Candidates(spec.RequesterKey, s.Req.Agent, s.Default, config.NormalizeAgentID)
	}
	res, err := w.CreateChild(ctx, child)
	if err != nil {
		return nil, err
	}
	c.Path, c.Era = res.Path, w.Route().Era
	if reqEntry != nil {
		c.Requester = &ChildRequester{Key: reqEntry.Key, SessionID: reqEntry.SessionID, Channel: s.ChannelOf(reqEntry)}
	}
	return c, nil
}

// checkRequesterTranscript refuses a requester whose transcript the
// announce could not be appended to (its first line is not a session
// header: OpenClaw would overwrite it, and we never repair it).
func checkRequesterTranscript(s *state.State, agent string, st *store.Store, e *store.Entry) error {
	tp, err := s.Transcript(agent, st, e)
	if err != nil || !tp.Exists {
		return nil // no transcript yet (or none we may open): the announce skips it
	}
	h, err := transcript.ReadHeader(tp.Path)
	if err != nil {
		return apperr.Statef("cannot read the requester's transcript %s: %v", tp.Path, err)
	}
	if h == nil {
		return apperr.Statef("the requester's transcript %s does not start with a session header; refusing to spawn (its announce could not be written)", tp.Path)
	}
	return nil
}

// childEntry is the child's store entry as OpenClaw 1.30 leaves it before
// the run (sessions.patch for the model, then the gateway agent call):
// sessionId, updatedAt, the model override, label, spawnedBy, the
// requester's channel (delivery fields are derived from it when the store
// is written) and group fields inherited from the requester, and the
// thinking level (unless off).
func childEntry(s *state.State, spec ChildSpec, label string, req *store.Entry) *jsonx.Object {
	e := jsonx.NewObject()
	_ = e.Set("sessionId", spec.SessionID)
	_ = e.Set("updatedAt", spec.Now.UnixMilli())
	if spec.ModelOverride != "" {
		_ = e.Set("modelOverride", spec.ModelOverride)
		_ = e.Set("providerOverride", spec.ProviderOverride)
	}
	if label != "" {
		_ = e.Set("label", label)
	}
	_ = e.Set("spawnedBy", spec.RequesterKey)
	if req != nil {
		if ch := s.ChannelOf(req); ch != "" {
			_ = e.Set("channel", ch)
		}
		for _, f := range [][2]string{{"groupId", "groupId"}, {"groupChannel", "groupChannel"}, {"space", "space"}} {
			if v := gjson.GetBytes(req.Raw, f[0]); v.Type == gjson.String && v.Str != "" {
				_ = e.Set(f[1], v.Str)
			}
		}
	}
	if spec.Thinking != "" && spec.Thinking != "off" {
		_ = e.Set("thinkingLevel", spec.Thinking)
	}
	return e
}
