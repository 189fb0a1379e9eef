package runner

import (
	"strconv"
	"strings"
)

// Skip tokens (format §6.3).
const (
	AnnounceSkip = "ANNOUNCE_SKIP"
	ReplySkip    = "REPLY_SKIP"
	// AnnounceMessage is the user message of the announce step.
	AnnounceMessage = "Agent-to-agent announce step."
)

// Context names the sessions of an agent-to-agent exchange as the prompts
// show them.
type Context struct {
	RequesterKey     string // raw requester key ("" when the operator sends)
	RequesterChannel string
	TargetKey        string // target display key
	TargetChannel    string
}

func join(lines ...string) string {
	out := lines[:0]
	for _, l := range lines {
		if l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func opt(cond string, s string) string {
	if cond == "" {
		return ""
	}
	return s
}

func (c Context) requesterLines() []string {
	return []string{
		opt(c.RequesterKey, "Agent 1 (requester) session: "+c.RequesterKey+"."),
		opt(c.RequesterChannel, "Agent 1 (requester) channel: "+c.RequesterChannel+"."),
	}
}

// MessageContext is buildAgentToAgentMessageContext (the target's turn).
func MessageContext(c Context) string {
	l := append([]string{"Agent-to-agent message context:"}, c.requesterLines()...)
	return join(append(l, "Agent 2 (target) session: "+c.TargetKey+".")...)
}

// ReplyContext is buildAgentToAgentReplyContext (one ping-pong turn).
func ReplyContext(c Context, requesterTurn bool, turn, max int) string {
	label := "Agent 2 (target)"
	if requesterTurn {
		label = "Agent 1 (requester)"
	}
	l := []string{
		"Agent-to-agent reply step:",
		"Current agent: " + label + ".",
		"Turn " + strconv.Itoa(turn) + " of " + strconv.Itoa(max) + ".",
	}
	l = append(l, c.requesterLines()...)
	l = append(l,
		"Agent 2 (target) session: "+c.TargetKey+".",
		opt(c.TargetChannel, "Agent 2 (target) channel: "+c.TargetChannel+"."),
		`If you want to stop the ping-pong, reply exactly "`+ReplySkip+`".`,
	)
	return join(l...)
}

// AnnounceContext is buildAgentToAgentAnnounceContext.
func AnnounceContext(c Context, original, roundOne, latest string) string {
	l := append([]string{"Agent-to-agent announce step:"}, c.requesterLines()...)
	l = append(l,
		"Agent 2 (target) session: "+c.TargetKey+".",
		opt(c.TargetChannel, "Agent 2 (target) channel: "+c.TargetChannel+"."),
		"Original request: "+original,
	)
	if roundOne != "" {
		l = append(l, "Round 1 reply: "+roundOne)
	} else {
		l = append(l, "Round 1 reply: (not available).")
	}
	if latest != "" {
		l = append(l, "Latest reply: "+latest)
	} else {
		l = append(l, "Latest reply: (not available).")
	}
	l = append(l,
		`If you want to remain silent, reply exactly "`+AnnounceSkip+`".`,
		"Any other reply will be posted to the target channel.",
		"After this reply, the agent-to-agent conversation is over.",
	)
	return join(l...)
}

// IsSkip reports an exact skip token (after trimming; case-sensitive).
func IsSkip(reply, token string) bool { return strings.TrimSpace(reply) == token }
