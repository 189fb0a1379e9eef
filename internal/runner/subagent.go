package runner

import (
	"math"
	"math/big"
	"strconv"
	"strings"
)

// SubagentAnnounceMessage is the user message of a sub-agent's announce
// step (CONTRACT §4).
const SubagentAnnounceMessage = "Sub-agent announce step."

// SubagentContext names what the sub-agent prompts show.
type SubagentContext struct {
	Task             string
	Label            string
	RequesterKey     string // the requester's key as given (--as); "" for the host operator
	RequesterChannel string
	ChildKey         string
}

// SubagentSystemPrompt is OpenClaw's buildSubagentSystemPrompt
// (dist/agents/subagent-announce.js), the child's extra system prompt.
func SubagentSystemPrompt(c SubagentContext) string {
	task := "{{TASK_DESCRIPTION}}"
	if t := collapseJSSpace(c.Task); t != "" {
		task = t
	}
	lines := []string{
		"# Subagent Context",
		"",
		"You are a **subagent** spawned by the main agent for a specific task.",
		"",
		"## Your Role",
		"- You were created to handle: " + task,
		"- Complete this task. That's your entire purpose.",
		"- You are NOT the main agent. Don't try to be.",
		"",
		"## Rules",
		"1. **Stay focused** - Do your assigned task, nothing else",
		"2. **Complete the task** - Your final message will be automatically reported to the main agent",
		"3. **Don't initiate** - No heartbeats, no proactive actions, no side quests",
		"4. **Be ephemeral** - You may be terminated after task completion. That's fine.",
		"",
		"## Output Format",
		"When complete, your final response should include:",
		"- What you accomplished or found",
		"- Any relevant details the main agent should know",
		"- Keep it concise but informative",
		"",
		"## What You DON'T Do",
		"- NO user conversations (that's main agent's job)",
		"- NO external messages (email, tweets, etc.) unless explicitly tasked",
		"- NO cron jobs or persistent state",
		"- NO pretending to be the main agent",
		"- NO using the `message` tool directly",
		"",
		"## Session Context",
	}
	if c.Label != "" {
		lines = append(lines, "- Label: "+c.Label)
	}
	if c.RequesterKey != "" {
		lines = append(lines, "- Requester session: "+c.RequesterKey+".")
	}
	if c.RequesterChannel != "" {
		lines = append(lines, "- Requester channel: "+c.RequesterChannel+".")
	}
	lines = append(lines, "- Your session: "+c.ChildKey+".", "")
	return strings.Join(lines, "\n")
}

// SubagentAnnounceContext is the extra system prompt of the announce step
// on the child (CONTRACT §4; OpenClaw 1.30 has no such step — its announce
// is a turn of the requester agent).
func SubagentAnnounceContext(c SubagentContext, status, reply string) string {
	l := []string{"Sub-agent announce step:"}
	if c.RequesterKey != "" {
		l = append(l, "Requester session: "+c.RequesterKey+".")
	}
	if c.RequesterChannel != "" {
		l = append(l, "Requester channel: "+c.RequesterChannel+".")
	}
	l = append(l,
		"Sub-agent session: "+c.ChildKey+".",
		"Task: "+c.Task,
		"Status: "+status,
	)
	if strings.TrimSpace(reply) != "" {
		l = append(l, "Sub-agent reply: "+reply)
	} else {
		l = append(l, "Sub-agent reply: (not available).")
	}
	l = append(l,
		`If you want to remain silent, reply exactly "`+AnnounceSkip+`".`,
		"Any other reply is posted to the requester channel as notes below the sub-agent's result.",
		"After this reply, the sub-agent run is over.",
	)
	return strings.Join(l, "\n")
}

// StatusLabel is the announce's status (format §6.5): from the run's
// outcome, never from model text.
func StatusLabel(outcome, errMsg string) string {
	switch outcome {
	case "ok":
		return "completed successfully"
	case "timeout":
		return "timed out"
	case "error":
		if errMsg == "" {
			errMsg = "unknown error"
		}
		return "failed: " + errMsg
	}
	return "finished with unknown status"
}

// FormatSubagentAnnounce is the normalised announce of CONTRACT §4.
func FormatSubagentAnnounce(status, reply, notes, stats string) string {
	r := strings.TrimSpace(reply)
	if r == "" {
		r = "(no output)"
	}
	l := []string{"Status: " + status, "Result: " + r}
	if notes != "" {
		l = append(l, "Notes: "+notes)
	}
	l = append(l, stats)
	return strings.Join(l, "\n")
}

// StatsInput is what the stats line is made of: the child's store entry
// after the run and the run's times.
type StatsInput struct {
	SessionKey, SessionID, Transcript string
	StartedAt, EndedAt                int64 // ms; 0 when unknown
	Input, Output, Total              *float64
	HasCost                           bool
	CostInput, CostOutput             float64 // USD per million tokens
}

// FormatStats is OpenClaw's buildSubagentStatsLine (format §6.5):
// "Stats: " + parts joined by " • ".
func FormatStats(in StatsInput) string {
	var parts []string
	runtime := ""
	if in.StartedAt > 0 && in.EndedAt > 0 {
		runtime = formatDurationShort(max(0, in.EndedAt-in.StartedAt))
	}
	if runtime == "" {
		runtime = "n/a"
	}
	parts = append(parts, "runtime "+runtime)
	total := in.Total
	if total == nil && in.Input != nil && in.Output != nil {
		t := *in.Input + *in.Output
		total = &t
	}
	if total != nil {
		it, ot := "n/a", "n/a"
		if in.Input != nil {
			it = formatTokenCount(*in.Input)
		}
		if in.Output != nil {
			ot = formatTokenCount(*in.Output)
		}
		parts = append(parts, "tokens "+formatTokenCount(*total)+" (in "+it+" / out "+ot+")")
	} else {
		parts = append(parts, "tokens n/a")
	}
	if in.HasCost && in.Input != nil && in.Output != nil {
		if c := formatUSD((*in.Input*in.CostInput + *in.Output*in.CostOutput) / 1_000_000); c != "" {
			parts = append(parts, "est "+c)
		}
	}
	parts = append(parts, "sessionKey "+in.SessionKey)
	if in.SessionID != "" {
		parts = append(parts, "sessionId "+in.SessionID)
	}
	if in.Transcript != "" {
		parts = append(parts, "transcript "+in.Transcript)
	}
	return "Stats: " + strings.Join(parts, " \u2022 ")
}

// formatDurationShort: <h>h<m>m, <m>m<s>s or <s>s of round(ms/1000); ""
// for a non-positive duration.
func formatDurationShort(ms int64) string {
	if ms <= 0 {
		return ""
	}
	total := int64(jsRound(float64(ms) / 1000))
	h, m, s := total/3600, (total%3600)/60, total%60
	switch {
	case h > 0:
		return strconv.FormatInt(h, 10) + "h" + strconv.FormatInt(m, 10) + "m"
	case m > 0:
		return strconv.FormatInt(m, 10) + "m" + strconv.FormatInt(s, 10) + "s"
	}
	return strconv.FormatInt(s, 10) + "s"
}

// formatTokenCount: 0 for zero or non-finite, x.ym from a million, x.yk
// from a thousand, else the rounded integer.
func formatTokenCount(v float64) string {
	switch {
	case v == 0 || math.IsNaN(v) || math.IsInf(v, 0):
		return "0"
	case v >= 1_000_000:
		return jsToFixed(v/1_000_000, 1) + "m"
	case v >= 1_000:
		return jsToFixed(v/1_000, 1) + "k"
	}
	return strconv.FormatFloat(jsRound(v), 'f', -1, 64)
}

// formatUSD: $x.xx from a cent, else $x.xxxx.
func formatUSD(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	if v >= 0.01 {
		return "$" + jsToFixed(v, 2)
	}
	return "$" + jsToFixed(v, 4)
}

// jsRound is Math.round: halves round up (towards +∞).
func jsRound(v float64) float64 { return math.Floor(v + 0.5) }

// jsToFixed is Number.prototype.toFixed for |v| < 1e21: the decimal nearest
// to the exact binary value, ties (only possible when the value is exactly
// representable) to the larger magnitude — where Go's formatting rounds
// ties to even (1.25 → "1.3" here, "1.2" with %.1f).
func jsToFixed(v float64, digits int) string {
	s := strconv.FormatFloat(v, 'f', digits, 64)
	exact := new(big.Float).SetPrec(0).SetFloat64(v) // exact value
	// the exact decimal expansion, long enough to see a tie
	e := exact.Text('f', 1100)
	dot := strings.IndexByte(e, '.')
	if dot < 0 || dot+digits+1 >= len(e) {
		return s
	}
	rest := strings.TrimRight(e[dot+digits+1:], "0")
	if rest != "5" {
		return s // not a tie: Go's correctly rounded result is JS's too
	}
	// a tie: round half away from zero
	unit := new(big.Float).SetPrec(200).SetFloat64(math.Pow(10, -float64(digits)) / 2)
	if v < 0 {
		unit.Neg(unit)
	}
	r := new(big.Float).SetPrec(200).Add(exact, unit)
	return r.Text('f', digits)
}

// collapseJSSpace is task.replace(/\s+/g, " ").trim() with JavaScript's
// whitespace set.
func collapseJSSpace(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		if isJSSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
		}
		space = false
		b.WriteRune(r)
	}
	return b.String()
}

func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}
