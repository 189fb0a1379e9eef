package sqlitewrite

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/tidwall/gjson"

	"github.com/openclaw/sessions/internal/jsonx"
)

// The summary wrappers OpenClaw 2026.9.6 gives compaction and branch
// summaries in the model's context (agent-core harness/messages).
const (
	compactionPrefix = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
	compactionSuffix = "\n</summary>"
	branchPrefix     = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
	branchSuffix     = "</summary>"
)

// ctxNode is one transcript event as the context walk sees it.
type ctxNode struct {
	id, parent string // parent "" = root
	typ        string
	side       bool
	leafCtl    bool   // a "leaf" navigation control
	target     string // its targetId
	ev         gjson.Result
}

// ContextMessages is the model context of a 2026.8+ transcript as OpenClaw
// 2026.9.6 builds it for the next turn (transcript-tree
// scanSessionTranscriptNavigation, buildSessionContext,
// iterateSessionContextMessages), from the session's events in seq order:
//
//   - The active leaf is the last canonical event that is not a side append
//     (appendMode "side"), or the target of a later `leaf` navigation
//     control. Its path runs root→leaf through parentId; an event without a
//     parentId key hangs on the leaf before it, a parentId naming an unknown
//     event or a leaf control resolves as OpenClaw resolves it (to the leaf
//     then, to the control's target). Branches left by an edit or a
//     regeneration are not in it.
//   - On that path the last compaction or reset is the window's boundary:
//     a compaction first gives its summary (as a user message wrapped in
//     OpenClaw's prefix), then the events from its firstKeptEntryId up to it;
//     a reset keeps, from firstKeptEntryId, only user/assistant messages and
//     tool results whose call is in them; then every event after it.
//   - `message` events give their message object (byte-identical) unless it
//     is excludeFromContext; custom_message gives a user message of its
//     content; branch_summary a user message of its summary.
//
// Unreadable events (nil) are skipped.
func ContextMessages(events [][]byte) []json.RawMessage {
	var nodes []*ctxNode
	byID := map[string]*ctxNode{}
	leaf := ""
	prevAppend := "" // the previous node's append parent (its id)
	for _, raw := range events {
		if raw == nil || !gjson.ValidBytes(raw) {
			continue
		}
		ev := gjson.ParseBytes(raw)
		typ := ev.Get("type").String()
		if typ == "session" {
			continue
		}
		id := strings.TrimSpace(ev.Get("id").String())
		if ev.Get("id").Type != gjson.String || id == "" {
			continue
		}
		n := &ctxNode{id: id, typ: typ, ev: ev, side: ev.Get("appendMode").String() == "side"}
		p := ev.Get("parentId")
		explicit := p.Exists() && (p.Type == gjson.Null || p.Type == gjson.String && strings.TrimSpace(p.Str) != "")
		if typ == "leaf" {
			t := ev.Get("targetId")
			if !explicit || !(t.Type == gjson.Null || t.Type == gjson.String && strings.TrimSpace(t.Str) != "") {
				continue
			}
			n.leafCtl, n.target = true, strings.TrimSpace(t.Str)
			if n.target != "" && byID[n.target] == nil {
				continue // a control naming an unknown event selects nothing
			}
			n.parent = n.target
			nodes = append(nodes, n)
			byID[id] = n
			leaf, prevAppend = n.target, n.target
			continue
		}
		if !canonicalTypes[typ] {
			if explicit {
				n.parent = strings.TrimSpace(p.Str)
				nodes = append(nodes, n)
				byID[id] = n
				prevAppend = id
			}
			continue
		}
		switch {
		case !explicit && p.Exists():
			continue
		case !explicit:
			n.parent = leaf
		default:
			n.parent = strings.TrimSpace(p.Str)
			if !n.side && n.parent != "" && (byID[n.parent] == nil && leaf != "" || n.parent == prevAppend && leaf != prevAppend) {
				n.parent = leaf // a stale parent, or a side append's child: the active leaf
			}
		}
		n.parent = resolveControl(n.parent, byID)
		nodes = append(nodes, n)
		byID[id] = n
		prevAppend = id
		if !n.side {
			leaf = id
		}
	}
	if leaf == "" {
		return []json.RawMessage{}
	}
	// the path, root → leaf, without leaf controls
	var path []*ctxNode
	seen := map[string]bool{}
	for cur := leaf; cur != ""; {
		if seen[cur] {
			return []json.RawMessage{}
		}
		seen[cur] = true
		n := byID[cur]
		if n == nil {
			break
		}
		if !n.leafCtl {
			path = append(path, n)
		}
		cur = n.parent
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return contextWindow(path)
}

// resolveControl follows a parent that is a leaf control to its target.
func resolveControl(parent string, byID map[string]*ctxNode) string {
	seen := map[string]bool{}
	for parent != "" && !seen[parent] {
		n := byID[parent]
		if n == nil || !n.leafCtl {
			return parent
		}
		seen[parent] = true
		parent = n.parent
	}
	return parent
}

// contextWindow is iterateSessionContextMessages over a path.
func contextWindow(path []*ctxNode) []json.RawMessage {
	boundary := -1
	for i, n := range path {
		if n.typ == "compaction" || n.typ == "reset" {
			boundary = i
		}
	}
	firstKept := boundary
	if boundary >= 0 {
		want := path[boundary].ev.Get("firstKeptEntryId").String()
		for i, n := range path[:boundary] {
			if want != "" && n.id == want {
				firstKept = i
				break
			}
		}
	}
	var resetKept map[*ctxNode]bool
	if boundary >= 0 && path[boundary].typ == "reset" {
		resetKept = keptAcrossReset(path[firstKept:boundary])
	}
	out := []json.RawMessage{}
	if boundary >= 0 && path[boundary].typ == "compaction" {
		out = append(out, userText(compactionPrefix+path[boundary].ev.Get("summary").String()+compactionSuffix, path[boundary].ev.Get("timestamp")))
	}
	for i, n := range path {
		retained := i < boundary
		if i == boundary || retained && (i < firstKept || resetKept != nil && !resetKept[n]) {
			continue
		}
		switch n.typ {
		case "message":
			m := n.ev.Get("message")
			if !m.IsObject() || !resetKept[n] && m.Get("excludeFromContext").Type == gjson.True {
				continue
			}
			out = append(out, json.RawMessage(m.Raw))
		case "custom_message":
			if n.ev.Get("excludeFromContext").Type == gjson.True {
				continue
			}
			out = append(out, customMessage(n.ev))
		case "branch_summary":
			if s := n.ev.Get("summary").String(); s != "" {
				out = append(out, userText(branchPrefix+s+branchSuffix, n.ev.Get("timestamp")))
			}
		}
	}
	return out
}

// keptAcrossReset is selectResetKeptEntries: user and assistant messages,
// and tool results whose call one of those assistant messages made.
func keptAcrossReset(entries []*ctxNode) map[*ctxNode]bool {
	calls := map[string]bool{}
	for _, n := range entries {
		m := n.ev.Get("message")
		if n.typ != "message" || m.Get("role").String() != "assistant" {
			continue
		}
		m.Get("content").ForEach(func(_, b gjson.Result) bool {
			if t := b.Get("type").String(); (t == "toolCall" || t == "tool_use" || t == "toolUse") && b.Get("id").String() != "" {
				calls[b.Get("id").String()] = true
			}
			return true
		})
	}
	kept := map[*ctxNode]bool{}
	for _, n := range entries {
		if n.typ != "message" {
			continue
		}
		m := n.ev.Get("message")
		switch m.Get("role").String() {
		case "user", "assistant":
			kept[n] = true
		case "toolResult":
			if calls[m.Get("toolCallId").String()] {
				kept[n] = true
			}
		}
	}
	return kept
}

// userText is a user message of one text block (convertToLlm's form of a
// summary), with the event's timestamp in epoch ms when it parses.
func userText(text string, ts gjson.Result) json.RawMessage {
	block := jsonx.NewObject()
	_ = block.Set("type", "text")
	_ = block.Set("text", text)
	msg := jsonx.NewObject()
	_ = msg.Set("role", "user")
	_ = msg.Set("content", []*jsonx.Object{block})
	setTimestamp(msg, ts)
	b, _ := jsonx.Marshal(msg)
	return b
}

// customMessage is convertToLlm's user message of a custom_message event.
func customMessage(ev gjson.Result) json.RawMessage {
	msg := jsonx.NewObject()
	_ = msg.Set("role", "user")
	c := ev.Get("content")
	if c.Type == gjson.String {
		block := jsonx.NewObject()
		_ = block.Set("type", "text")
		_ = block.Set("text", c.Str)
		_ = msg.Set("content", []*jsonx.Object{block})
	} else if c.Exists() {
		msg.SetRaw("content", []byte(c.Raw))
	} else {
		_ = msg.Set("content", []any{})
	}
	setTimestamp(msg, ev.Get("timestamp"))
	b, _ := jsonx.Marshal(msg)
	return b
}

func setTimestamp(msg *jsonx.Object, ts gjson.Result) {
	switch ts.Type {
	case gjson.Number:
		msg.SetRaw("timestamp", []byte(ts.Raw))
	case gjson.String:
		if t, err := time.Parse(time.RFC3339Nano, ts.Str); err == nil {
			_ = msg.Set("timestamp", t.UnixMilli())
		}
	}
}
