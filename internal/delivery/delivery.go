// Package delivery resolves where an announce goes (format §6.3
// resolveAnnounceTarget) and delivers it: always recorded in
// <state>/sessions-cli/outbox.jsonl, and sent for real through an
// `exec:<command>` hook when one is configured (CONTRACT §5).
package delivery

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/lazyre"
	"github.com/openclaw/sessions/internal/lock"
	"github.com/openclaw/sessions/internal/proc"
)

// Target is a channel route.
type Target struct {
	Channel   string `json:"channel"`
	To        string `json:"to"`
	AccountID string `json:"accountId,omitempty"`
	ThreadID  string `json:"threadId,omitempty"`
}

// NormalizeChannel applies OpenClaw's built-in channel aliases and
// lowercases (format §3.4).
func NormalizeChannel(c string) string {
	c = strings.ToLower(strings.TrimSpace(c))
	switch c {
	case "imsg":
		return "imessage"
	case "google-chat", "gchat":
		return "googlechat"
	}
	return c
}

// knownChannels are the channels OpenClaw 2026.1.30 ships; others get a
// bare id as target.
var knownChannels = map[string]bool{
	"whatsapp": true, "telegram": true, "discord": true, "slack": true, "signal": true,
	"imessage": true, "googlechat": true, "msteams": true, "matrix": true, "bluebubbles": true,
	"zalo": true, "zalouser": true, "mattermost": true, "line": true, "nostr": true, "webchat": true,
}

var threadSuffix = lazyre.New(`:(topic|thread):(\d+)$`)

// FromKey derives a target from a group/channel session key
// (`[agent:<a>:]<channel>:group|channel:<id>[:topic:<n>]`), or nil.
func FromKey(key string) *Target {
	var parts []string
	for _, p := range strings.Split(key, ":") {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if len(parts) >= 3 && parts[0] == "agent" {
		parts = parts[2:]
	}
	if len(parts) < 3 || (parts[1] != "group" && parts[1] != "channel") {
		return nil
	}
	kind := parts[1]
	rest := strings.Join(parts[2:], ":")
	t := &Target{Channel: NormalizeChannel(parts[0])}
	if m := threadSuffix.FindStringSubmatchIndex(rest); m != nil {
		t.ThreadID = rest[m[4]:m[5]]
		rest = rest[:m[0]]
	}
	if rest == "" {
		return nil
	}
	switch {
	case t.Channel == "discord" || t.Channel == "slack":
		t.To = "channel:" + rest
	case knownChannels[t.Channel]:
		t.To = kind + ":" + rest
	default:
		t.To = rest
	}
	return t
}

// Route is what an entry says of its last delivery route.
type Route struct {
	DCChannel, DCTo, DCAccountID       string
	LastChannel, LastTo, LastAccountID string
}

// Resolve is resolveAnnounceTarget: the key-derived target for group and
// channel sessions, else the entry's delivery context (falling back to its
// last* fields), which needs a channel and a recipient; nil when neither.
func Resolve(key string, r Route) *Target {
	if t := FromKey(key); t != nil {
		return t
	}
	ch := first(r.DCChannel, r.LastChannel)
	to := first(r.DCTo, r.LastTo)
	if strings.TrimSpace(ch) == "" || strings.TrimSpace(to) == "" {
		return nil
	}
	return &Target{Channel: NormalizeChannel(ch), To: strings.TrimSpace(to), AccountID: strings.TrimSpace(first(r.DCAccountID, r.LastAccountID))}
}

func first(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}

// Item is one delivery.
type Item struct {
	ID         string `json:"id"`
	RunID      string `json:"runId"`
	Kind       string `json:"kind"` // announce
	SessionKey string `json:"sessionKey"`
	Target
	Message string `json:"message"`
	At      int64  `json:"at"`
	Status  string `json:"status"` // recorded | delivered | failed
	Error   string `json:"error,omitempty"`
}

// OutboxPath is the outbox of a state dir.
func OutboxPath(stateDir string) string {
	return filepath.Join(stateDir, "sessions-cli", "outbox.jsonl")
}

// Record appends an item to the outbox (one line, one write, serialised
// between our processes by an flock).
func Record(stateDir string, it Item) error {
	p := OutboxPath(stateDir)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	fl := lock.NewFlock(p + ".flock")
	if err := fl.Lock(context.Background(), 10*time.Second); err != nil {
		return err
	}
	defer fl.Unlock()
	line, err := jsonx.Marshal(it)
	if err != nil {
		return err
	}
	f, err := fsutil.OpenFileRegular(p, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// DefaultHookTimeout bounds a delivery hook.
const DefaultHookTimeout = 30 * time.Second

// HookTimeoutEnv overrides DefaultHookTimeout (a Go duration, e.g. "500ms").
// It exists for tests of hooks that hang; it is not a user setting.
const HookTimeoutEnv = "SESSIONS_DELIVER_TIMEOUT"

// hookWaitDelay bounds the wait for the hook's output after it has exited
// or been killed: a process it started in another process group may hold
// the pipe open.
const hookWaitDelay = time.Second

// hookTimeout is timeout, or when it is not positive the default (or its
// test override).
func hookTimeout(timeout time.Duration) time.Duration {
	if timeout > 0 {
		return timeout
	}
	if d, err := time.ParseDuration(os.Getenv(HookTimeoutEnv)); err == nil && d > 0 {
		return d
	}
	return DefaultHookTimeout
}

// Hook sends an item through `exec:<command>`: the command runs under
// `sh -c` with the item as JSON on stdin (and SESSIONS_DELIVERY_* variables);
// exit 0 means delivered. A hook that hangs is killed (with its process
// group) after timeout.
func Hook(ctx context.Context, spec string, it Item, timeout time.Duration) error {
	cmdline, ok := strings.CutPrefix(spec, "exec:")
	if !ok || strings.TrimSpace(cmdline) == "" {
		return fmt.Errorf("invalid delivery hook %q (want exec:<command>)", spec)
	}
	timeout = hookTimeout(timeout)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	in, _ := jsonx.Marshal(it)
	cmd := exec.Command("sh", "-c", cmdline)
	cmd.Stdin = bytes.NewReader(in)
	stderr := &tailWriter{max: 4096} // the end of its output, for the error
	cmd.Stdout = stderr
	cmd.Stderr = stderr
	proc.NewGroup(cmd)
	cmd.WaitDelay = hookWaitDelay
	cmd.Env = append(os.Environ(),
		"SESSIONS_DELIVERY_CHANNEL="+it.Channel,
		"SESSIONS_DELIVERY_TO="+it.To,
		"SESSIONS_DELIVERY_ACCOUNT_ID="+it.AccountID,
		"SESSIONS_DELIVERY_THREAD_ID="+it.ThreadID,
		"SESSIONS_DELIVERY_SESSION_KEY="+it.SessionKey,
		"SESSIONS_DELIVERY_MESSAGE="+it.Message,
	)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("delivery hook: %v", err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil && !errors.Is(err, exec.ErrWaitDelay) { // ErrWaitDelay: exit 0, output held by a child
			return fmt.Errorf("delivery hook failed (%v): %s", err, tail(stderr.String()))
		}
		return nil
	case <-ctx.Done():
		_ = proc.KillGroup(cmd)
		<-done
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("delivery hook timed out after %s", timeout)
		}
		return ctx.Err()
	}
}

// tailWriter keeps the last max bytes written to it (at most 2*max in memory).
type tailWriter struct {
	max int
	buf []byte
}

func (w *tailWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	if len(w.buf) > 2*w.max {
		w.buf = append(w.buf[:0], w.buf[len(w.buf)-w.max:]...)
	}
	return len(p), nil
}

func (w *tailWriter) String() string { return string(w.buf) }

func tail(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 500 {
		s = "…" + s[len(s)-500:]
	}
	return s
}

// MarshalItem is for tests and the outbox reader.
func MarshalItem(it Item) ([]byte, error) { return json.Marshal(it) }
