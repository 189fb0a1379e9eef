package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/config"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/jsonx"
)

// MaxExecOutput caps what is read from an exec engine's stdout.
const MaxExecOutput = 16 << 20

// DefaultKillGrace is how long a timed-out or canceled command's process
// group has between SIGTERM and SIGKILL.
const DefaultKillGrace = 2 * time.Second

// Exec is the "exec:<command>" engine: it runs `sh -c Command` in its own
// process group.
//
// Protocol. stdin gets one JSON object:
//
//	{"agentId","sessionKey","sessionId","transcriptPath","message",
//	 "extraSystemPrompt","provider","model","thinking","timeoutSeconds"}
//
// and the same values are in the environment as SESSIONS_AGENT_ID,
// SESSIONS_SESSION_KEY, SESSIONS_SESSION_ID, SESSIONS_TRANSCRIPT,
// SESSIONS_MESSAGE, SESSIONS_EXTRA_SYSTEM_PROMPT, SESSIONS_PROVIDER,
// SESSIONS_MODEL, SESSIONS_THINKING and SESSIONS_TIMEOUT_SECONDS (then
// Request.Env; a value over MaxEnvValue is only on stdin, and its variable
// is named in SESSIONS_OMITTED), so a fixed command line can pass them on,
// e.g.
//
//	exec:openclaw agent --local --agent "$SESSIONS_AGENT_ID" --session-id "$SESSIONS_SESSION_ID" --message "$SESSIONS_MESSAGE"
//
// stdout: a JSON object {"reply" (or "text"), "usage"?, "model"?,
// "provider"?, "wroteTranscript"?, "error"?} — or `openclaw agent --json`'s
// {"payloads":[{"text"}…],"meta":{"agentMeta":{provider,model,usage}}} —
// else the whole trimmed stdout is the reply text. A JSON object with none
// of those keys is taken as text too.
//
// When the command does not say whether it wrote the transcript, the engine
// looks at what was appended to Request.TranscriptPath during the run: an
// assistant message carrying the reply means the command wrote the turn
// itself (as `openclaw agent --local` does), and WroteTranscript is set.
//
// A non-zero exit is an error carrying the stderr tail. On timeout or cancel
// the whole process group gets SIGTERM, then SIGKILL after KillGrace.
type Exec struct {
	Command string
	Config  *config.Config
	// KillGrace: SIGTERM → SIGKILL delay; 0 means DefaultKillGrace.
	KillGrace time.Duration
	// Now stamps the assistant message; nil means time.Now.
	Now func() time.Time

	// argv, when set, is run directly instead of `sh -c Command`, with an
	// empty stdin (the openclaw engine); label names the engine in
	// messages ("exec engine" by default); jsonOnly refuses a stdout that
	// is not a JSON reply.
	argv     []string
	label    string
	jsonOnly bool
}

func (e *Exec) name() string {
	if e.label != "" {
		return e.label
	}
	return "exec engine"
}

type execRequest struct {
	AgentID           string `json:"agentId"`
	SessionKey        string `json:"sessionKey"`
	SessionID         string `json:"sessionId"`
	TranscriptPath    string `json:"transcriptPath"`
	Message           string `json:"message"`
	ExtraSystemPrompt string `json:"extraSystemPrompt"`
	Provider          string `json:"provider"`
	Model             string `json:"model"`
	Thinking          string `json:"thinking"`
	TimeoutSeconds    int    `json:"timeoutSeconds"`
}

// Turn implements Engine.
func (e *Exec) Turn(ctx context.Context, req Request) (*Result, error) {
	timeout := turnTimeout(ctx, e.Config, req.Timeout)
	tctx, cancel := withTurnTimeout(ctx, timeout)
	defer cancel()
	secs := 0
	if timeout > 0 {
		secs = int(math.Ceil(timeout.Seconds()))
	} else if dl, ok := ctx.Deadline(); ok {
		secs = max(int(math.Ceil(time.Until(dl).Seconds())), 0)
	}
	in := execRequest{req.AgentID, req.SessionKey, req.SessionID, req.TranscriptPath, req.Message,
		req.ExtraSystemPrompt, req.Provider, req.Model, req.Thinking, secs}
	stdin, _ := jsonx.Marshal(in)
	stdin = append(stdin, '\n')

	cmd := exec.Command("sh", "-c", e.Command)
	cmd.Stdin = bytes.NewReader(stdin)
	if len(e.argv) > 0 {
		cmd = exec.Command(e.argv[0], e.argv[1:]...)
		cmd.Stdin = nil
	}
	cmd.Env = append(os.Environ(), execEnv(in)...)
	cmd.Env = append(cmd.Env, req.Env...)
	stdout := &capBuffer{max: MaxExecOutput}
	stderr := &tailBuffer{max: 8 << 10}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	setProcessGroup(cmd)
	grace := e.KillGrace
	if grace <= 0 {
		grace = DefaultKillGrace
	}
	// pipes held open by a leftover grandchild must not block Wait forever
	cmd.WaitDelay = grace + time.Second

	offset := fileSize(req.TranscriptPath)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		what := "sh"
		if len(e.argv) > 0 {
			what = e.argv[0]
		}
		return nil, fail(ErrExec, fmt.Sprintf("%s: cannot start %s: %v", e.name(), what, err))
	}
	done := make(chan struct{})   // closed when Wait returned
	watched := make(chan bool, 1) // the watcher's verdict: killed or not
	go func() {
		select {
		case <-tctx.Done():
			terminateGroup(cmd, grace, done)
			watched <- true
		case <-done:
			watched <- false
		}
	}()
	werr := cmd.Wait()
	close(done)
	killed := <-watched
	if killed {
		killGroup(cmd) // whatever survived SIGTERM
		if cerr := ctxFailure(tctx, ctx); errors.Is(cerr, ErrTimeout) {
			return nil, fail(ErrTimeout, fmt.Sprintf("%s: timed out after %s; the command's process group was killed%s", e.name(), roundDur(time.Since(start)), stderrSuffix(stderr)))
		}
		return nil, fail(ErrCanceled, e.name()+": canceled; the command's process group was killed")
	}
	out := stdout.Bytes()
	if stdout.over {
		return nil, fail(ErrResponse, fmt.Sprintf("%s: stdout larger than %d MiB", e.name(), MaxExecOutput>>20))
	}
	if e.jsonOnly { // a banner line before the JSON document is skipped
		if t := bytes.TrimSpace(out); len(t) > 0 && t[0] != '{' {
			if i := bytes.Index(out, []byte("\n{")); i >= 0 {
				out = out[i+1:]
			}
		}
	}
	reply, err := parseExecOutput(out)
	if werr != nil {
		var ee *exec.ExitError
		if errors.As(werr, &ee) {
			msg := fmt.Sprintf("%s: command %s", e.name(), exitDescription(ee))
			if err == nil && reply.Error != "" {
				msg += ": " + reply.Error
			} else if s := stderr.Tail(1000); s != "" {
				msg += ": " + s
			} else if s := tailString(strings.TrimSpace(string(out)), 1000); s != "" {
				msg += ": " + s
			}
			return nil, fail(ErrExec, msg)
		}
		if !errors.Is(werr, exec.ErrWaitDelay) {
			return nil, fail(ErrExec, fmt.Sprintf("%s: %v", e.name(), werr))
		}
	}
	if err != nil {
		return nil, err
	}
	if reply.Error != "" {
		return nil, fail(ErrExec, e.name()+": command reported an error: "+reply.Error)
	}
	if e.jsonOnly && !reply.JSON {
		return nil, fail(ErrResponse, e.name()+": the command's output is not its JSON reply: "+tailString(strings.TrimSpace(string(out)), 300))
	}

	provider, model := req.Provider, req.Model
	if reply.Provider != "" {
		provider = reply.Provider
	}
	if reply.Model != "" {
		model = reply.Model
	}
	u := reply.Usage
	if !reply.HasCost {
		u.Cost = EstimateCost(e.Config, provider, model, u)
	}
	wrote := false
	if reply.WroteTranscript != nil {
		wrote = *reply.WroteTranscript
	} else {
		wrote = transcriptHasReply(req.TranscriptPath, offset, reply.Text)
	}
	now := time.Now
	if e.Now != nil {
		now = e.Now
	}
	return &Result{
		Reply:           reply.Text,
		Assistant:       AssistantMessage(reply.Text, "", "", APIExec, provider, model, u, "stop", "", now()),
		Usage:           u,
		PromptTokens:    u.PromptTokens(),
		Provider:        provider,
		Model:           model,
		API:             APIExec,
		StopReason:      "stop",
		WroteTranscript: wrote,
	}, nil
}

// MaxEnvValue is the longest value put in a SESSIONS_* variable; Linux
// refuses to exec with a single environment string over 128 KiB.
const MaxEnvValue = 64 << 10

// execEnv is the request as SESSIONS_* variables. A value longer than
// MaxEnvValue is left out (it is still on stdin) and its name listed in
// SESSIONS_OMITTED.
func execEnv(in execRequest) []string {
	vars := []struct{ name, val string }{
		{"SESSIONS_AGENT_ID", in.AgentID},
		{"SESSIONS_SESSION_KEY", in.SessionKey},
		{"SESSIONS_SESSION_ID", in.SessionID},
		{"SESSIONS_TRANSCRIPT", in.TranscriptPath},
		{"SESSIONS_MESSAGE", in.Message},
		{"SESSIONS_EXTRA_SYSTEM_PROMPT", in.ExtraSystemPrompt},
		{"SESSIONS_PROVIDER", in.Provider},
		{"SESSIONS_MODEL", in.Model},
		{"SESSIONS_THINKING", in.Thinking},
		{"SESSIONS_TIMEOUT_SECONDS", strconv.Itoa(in.TimeoutSeconds)},
	}
	env := make([]string, 0, len(vars)+1)
	var omitted []string
	for _, v := range vars {
		if len(v.val) > MaxEnvValue || strings.IndexByte(v.val, 0) >= 0 {
			omitted = append(omitted, v.name)
			continue
		}
		env = append(env, v.name+"="+v.val)
	}
	env = append(env, "SESSIONS_OMITTED="+strings.Join(omitted, ","))
	return env
}

func stderrSuffix(t *tailBuffer) string {
	if s := t.Tail(500); s != "" {
		return " (stderr: " + s + ")"
	}
	return ""
}

func exitDescription(ee *exec.ExitError) string {
	if sig := exitSignal(ee); sig != "" {
		return "was killed by " + sig
	}
	return "exited with status " + strconv.Itoa(ee.ExitCode())
}

// execReply is the parsed stdout of an exec engine.
type execReply struct {
	Text            string
	Usage           Usage
	HasCost         bool
	Provider, Model string
	WroteTranscript *bool
	Error           string
	JSON            bool // read from a JSON reply (not plain text)
}

// parseExecOutput reads stdout: a JSON object of the protocol, else text.
func parseExecOutput(out []byte) (execReply, error) {
	trimmed := bytes.TrimSpace(out)
	text := execReply{Text: string(trimmed)}
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return text, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(trimmed, &m) != nil {
		return text, nil
	}
	str := func(k string) (string, bool) {
		raw, ok := m[k]
		if !ok {
			return "", false
		}
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "", false
		}
		return s, true
	}
	var r execReply
	known := false
	if s, ok := str("reply"); ok {
		r.Text, known = s, true
	} else if s, ok := str("text"); ok {
		r.Text, known = s, true
	}
	if s, ok := str("error"); ok {
		r.Error, known = strings.TrimSpace(s), true
	} else if raw, ok := m["error"]; ok && string(raw) != "null" && !bytes.Equal(raw, []byte("false")) {
		r.Error, known = compactJSON(raw), true
	}
	r.Provider, _ = str("provider")
	r.Model, _ = str("model")
	if raw, ok := m["wroteTranscript"]; ok {
		var b bool
		if json.Unmarshal(raw, &b) == nil {
			r.WroteTranscript, known = &b, true
		}
	}
	if raw, ok := m["usage"]; ok {
		r.Usage, r.HasCost = parseAnyUsage(raw)
	}
	// `openclaw agent --json`: {"payloads":[{"text"}],"meta":{"agentMeta":{…}}}
	if raw, ok := m["payloads"]; ok && !known {
		var payloads []struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(raw, &payloads) == nil {
			known = true
			var parts []string
			for _, p := range payloads {
				if strings.TrimSpace(p.Text) != "" {
					parts = append(parts, p.Text)
				}
			}
			r.Text = strings.Join(parts, "\n\n")
			var meta struct {
				AgentMeta struct {
					Provider string          `json:"provider"`
					Model    string          `json:"model"`
					Usage    json.RawMessage `json:"usage"`
				} `json:"agentMeta"`
				Error *struct {
					Message string `json:"message"`
				} `json:"error"`
			}
			if json.Unmarshal(m["meta"], &meta) == nil {
				if r.Provider == "" {
					r.Provider = meta.AgentMeta.Provider
				}
				if r.Model == "" {
					r.Model = meta.AgentMeta.Model
				}
				if len(meta.AgentMeta.Usage) > 0 {
					r.Usage, r.HasCost = parseAnyUsage(meta.AgentMeta.Usage)
				}
				if meta.Error != nil && meta.Error.Message != "" && len(parts) == 0 {
					r.Error = meta.Error.Message
				}
			}
		}
	}
	if !known {
		return text, nil
	}
	r.JSON = true
	return r, nil
}

// parseAnyUsage reads pi's Usage, OpenClaw's normalised usage
// ({input,output,cacheRead,cacheWrite,total}), OpenAI's or Anthropic's.
func parseAnyUsage(raw json.RawMessage) (Usage, bool) {
	var v map[string]any
	if json.Unmarshal(raw, &v) != nil {
		return Usage{}, false
	}
	n := func(keys ...string) int {
		for _, k := range keys {
			if f, ok := v[k].(float64); ok && f >= 0 && !math.IsInf(f, 0) {
				return int(f)
			}
		}
		return 0
	}
	u := Usage{
		Input:      n("input", "input_tokens", "inputTokens"),
		Output:     n("output", "output_tokens", "completion_tokens", "outputTokens"),
		CacheRead:  n("cacheRead", "cache_read_input_tokens"),
		CacheWrite: n("cacheWrite", "cache_creation_input_tokens"),
	}
	if p := n("prompt_tokens"); p > 0 && u.Input == 0 {
		u.Input = p
	}
	u.TotalTokens = n("totalTokens", "total", "total_tokens")
	if u.TotalTokens == 0 {
		u.TotalTokens = u.Input + u.Output + u.CacheRead + u.CacheWrite
	}
	hasCost := false
	if c, ok := v["cost"].(map[string]any); ok {
		f := func(k string) float64 { x, _ := c[k].(float64); return x }
		u.Cost = CostBreakdown{Input: f("input"), Output: f("output"), CacheRead: f("cacheRead"), CacheWrite: f("cacheWrite"), Total: f("total")}
		if u.Cost.Total == 0 {
			u.Cost.Total = u.Cost.Input + u.Cost.Output + u.Cost.CacheRead + u.Cost.CacheWrite
		}
		hasCost = true
	}
	return u, hasCost
}

func fileSize(path string) int64 {
	if path == "" {
		return -1
	}
	fi, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// maxTranscriptScan bounds how much of a transcript is read to detect a
// self-written turn.
const maxTranscriptScan = 8 << 20

// transcriptHasReply reports whether an assistant message whose text is (or
// contains) reply was appended to path after offset (the whole file when it
// was created or shrank meanwhile).
func transcriptHasReply(path string, offset int64, reply string) bool {
	want := strings.TrimSpace(reply)
	if path == "" || want == "" {
		return false
	}
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false
	}
	size := fi.Size()
	if offset < 0 || size < offset {
		offset = 0
	}
	if size-offset > maxTranscriptScan {
		offset = size - maxTranscriptScan
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return false
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxTranscriptScan)
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(`"assistant"`)) {
			continue
		}
		var e struct {
			Type    string `json:"type"`
			Message *struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &e) != nil || e.Type != "message" || e.Message == nil || e.Message.Role != "assistant" {
			continue
		}
		got := strings.TrimSpace(joinText(parseContent(e.Message.Content, true), "\n"))
		if got == want || strings.Contains(got, want) {
			return true
		}
	}
	return false
}

// capBuffer keeps the first max bytes and notes an overflow.
type capBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *capBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.buf.Len(); room > 0 {
		if len(p) > room {
			b.buf.Write(p[:room])
			b.over = true
		} else {
			b.buf.Write(p)
		}
	} else if len(p) > 0 {
		b.over = true
	}
	return len(p), nil
}

func (b *capBuffer) Bytes() []byte { return b.buf.Bytes() }

// tailBuffer keeps the last max bytes.
type tailBuffer struct {
	buf []byte
	max int
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.buf = append(b.buf, p...)
	if len(b.buf) > b.max {
		b.buf = append(b.buf[:0], b.buf[len(b.buf)-b.max:]...)
	}
	return len(p), nil
}

// Tail is the trimmed last n bytes (whole lines when possible).
func (b *tailBuffer) Tail(n int) string {
	return tailString(strings.TrimSpace(string(b.buf)), n)
}

func tailString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[len(s)-n:]
	if i := strings.IndexByte(s, '\n'); i >= 0 && i < len(s)-1 {
		s = s[i+1:]
	}
	return "…" + strings.TrimSpace(s)
}
