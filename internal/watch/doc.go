package watch

import (
	"encoding/json"
	"time"

	"github.com/openclaw/sessions/internal/sanitize"
	"github.com/openclaw/sessions/internal/sessionrow"
)

// Doc is one change as the feed hands it out (ops.WatchEvent; an NDJSON
// line of `sessions watch --json`).
type Doc struct {
	Kind    string          `json:"kind"`              // "added" | "updated" | "removed" | "message" | "run"
	Time    time.Time       `json:"time"`              // when we saw it
	Context string          `json:"context,omitempty"` // fleet only
	AgentID string          `json:"agentId"`
	Key     string          `json:"key"`
	Fields  []string        `json:"fields,omitempty"`  // updated: the JSON names of the list-row fields that changed
	Session *sessionrow.Row `json:"session,omitempty"` // added/updated: the row as `list --json` prints it now
	Message *DocMessage     `json:"message,omitempty"` // message
	Run     *DocRun         `json:"run,omitempty"`     // run
}

// DocMessage is an appended message, short.
type DocMessage struct {
	Role string `json:"role"`
	ID   string `json:"id,omitempty"`
	Text string `json:"text"` // short: first 120 runes, one line, masked when masking is on
}

// DocRun is a run's new status.
type DocRun struct {
	ID     string `json:"runId"`
	Status string `json:"status"`
	Kind   string `json:"kind,omitempty"` // send|spawn
}

// Docs are the documents of a source's changes seen at now: over a fleet
// (fleet) each with the source's context (where), its row too; messages
// shortened, after mask masked them when it is set (nil: as stored).
func Docs(evs []Event, where string, fleet bool, now time.Time, mask func([]json.RawMessage)) []Doc {
	out := make([]Doc, 0, len(evs))
	for _, ev := range evs {
		d := Doc{Kind: string(ev.Kind), Time: now, AgentID: ev.ID.Agent, Key: ev.ID.Key, Fields: ev.Fields}
		if fleet {
			d.Context = where
		}
		if ev.Row != nil {
			r := *ev.Row
			if fleet {
				r.Context = where
			}
			d.Session = &r
		}
		if ev.Kind == Message {
			d.Message = shortMessage(ev.Msg, ev.MsgID, mask)
		}
		out = append(out, d)
	}
	return out
}

// shortMessage is what an event shows of a message: its role, id and the
// first line of its text, masked as history masks it (mask, when set).
func shortMessage(raw json.RawMessage, id string, mask func([]json.RawMessage)) *DocMessage {
	msgs := []json.RawMessage{sanitize.StripEnvelope(raw)}
	if mask != nil {
		mask(msgs)
	}
	info := ReadMessage(msgs[0])
	if id == "" {
		id = info.ID
	}
	return &DocMessage{Role: info.Role, ID: id, Text: Short(info.Text, ShortLen)}
}
