package transcript

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/jsonx"
	"github.com/openclaw/sessions/internal/lock"
)

// Writing transcripts beside a live OpenClaw (format §3.6, §4.2-§4.5,
// CONTRACT §6).
//
// Truncation (format §4.5): before a run OpenClaw truncates a transcript
// that holds no assistant message, so user (or tool-result) lines appended
// to a header-only transcript would be lost. Append therefore refuses
// (ErrNoAssistant, exit 1) any batch after which the transcript would still
// hold no assistant message: a batch into a new or assistant-less transcript
// must contain an assistant message (normally it ends with the reply), and a
// user-only batch is accepted only when the file already holds an assistant
// message. A caller that needs the user turn on disk before the engine has
// replied into a fresh session must buffer it and append [user, assistant]
// in one batch, which is also what pi does (format Appendix A).

// AppendOptions tunes Append.
type AppendOptions struct {
	// SessionID is the header id when the file must be created (required
	// then; OpenClaw forces header.id = sessionId).
	SessionID string
	// Cwd is the header cwd when the file is created: the agent workspace,
	// else the state dir (OpenClaw writes the agent workspace for runs).
	Cwd string
	// LockTimeout bounds the wait for the transcript lock (default 10 s).
	LockTimeout time.Duration
	// Now replaces time.Now for entry timestamps (tests).
	Now func() time.Time
}

// AppendResult is what Append wrote.
type AppendResult struct {
	Path     string
	Created  bool     // the file was created, header first
	ParentID string   // parentId of the first appended entry ("" = null)
	IDs      []string // ids of the appended entries, in order
	Held     time.Duration
}

// LastID is the id of the last appended entry (the new leaf).
func (r *AppendResult) LastID() string {
	if len(r.IDs) == 0 {
		return ""
	}
	return r.IDs[len(r.IDs)-1]
}

// ErrNoAssistant marks a refused append that OpenClaw would truncate away.
var ErrNoAssistant = errors.New("transcript would hold no assistant message")

// ErrBadHeader marks a transcript whose first line is not a session header.
var ErrBadHeader = errors.New("first line is not a valid session header")

const maxAppendLockLost = 3

// Append appends msgs (AgentMessage JSON objects, format §4.3; build them
// with UserMessage, AssistantMessage.JSON, ToolResultMessage,
// DeliveryMirrorMessage) to the transcript at file as pi "message" entries:
//
//   - under OpenClaw's transcript write lock (lock.AcquireTranscript; exit 11
//     naming the holder on timeout);
//   - a missing (or zero-byte) file is created with the header
//     {"type":"session","version":3,"id":<SessionID>,"timestamp":<ISO>,"cwd":<Cwd>};
//   - a file whose first line is not a valid session header is refused
//     (exit 10 naming the file, ErrBadHeader) and never touched;
//   - each entry's parentId is the previous entry's id, the first one's the
//     id of the last entry in file order (null in a new file); ids are fresh
//     8-hex strings that occur nowhere in the file;
//   - one write(2) per line, O_APPEND; a torn last line (no final "\n") is
//     terminated first so that our lines stay parseable;
//   - refused with ErrNoAssistant when the transcript would hold no
//     assistant message afterwards (see the truncation note above).
func Append(ctx context.Context, file string, opts AppendOptions, msgs ...json.RawMessage) (*AppendResult, error) {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if len(msgs) == 0 {
		return nil, apperr.Usagef("nothing to append")
	}
	batchHasAssistant := false
	for i, m := range msgs {
		var probe struct {
			Role *string `json:"role"`
		}
		if !json.Valid(m) || len(bytes.TrimSpace(m)) == 0 || bytes.TrimSpace(m)[0] != '{' || json.Unmarshal(m, &probe) != nil || probe.Role == nil {
			return nil, apperr.Errorf("message %d is not a JSON object with a role", i+1)
		}
		if *probe.Role == "assistant" {
			batchHasAssistant = true
		}
	}
	for attempt := 1; ; attempt++ {
		res, lost, err := appendOnce(ctx, file, opts, msgs, batchHasAssistant)
		if err != nil || !lost {
			return res, err
		}
		if attempt >= maxAppendLockLost {
			return nil, apperr.Lockf("transcript lock for %s was removed by another process %d times while held; nothing written", file, attempt)
		}
	}
}

func appendOnce(ctx context.Context, file string, opts AppendOptions, msgs []json.RawMessage, batchHasAssistant bool) (res *AppendResult, lost bool, err error) {
	h, err := lock.AcquireTranscript(ctx, file, lock.Options{Timeout: opts.LockTimeout})
	if err != nil {
		return nil, false, err
	}
	acquired := time.Now()
	defer func() {
		_ = h.Release()
		if res != nil {
			res.Held = time.Since(acquired)
		}
	}()

	st, err := os.Stat(file)
	create := false
	switch {
	case errors.Is(err, fs.ErrNotExist):
		create = true
	case err != nil:
		return nil, false, apperr.Statef("cannot read transcript %s: %w", file, err)
	case !st.Mode().IsRegular():
		return nil, false, apperr.Statef("transcript %s is not a regular file", file)
	case st.Size() == 0:
		create = true
	}
	parent, hasAssistant := "", false
	if !create {
		hdr, err := ReadHeader(file)
		if err != nil {
			return nil, false, apperr.Statef("cannot read transcript %s: %v", file, err)
		}
		if hdr == nil {
			return nil, false, apperr.Statef("refusing to append to transcript %s: its first line is not a valid session header (OpenClaw would overwrite the file)", file).Wrap(ErrBadHeader)
		}
		parent, hasAssistant, err = LastEntryID(file)
		if err != nil {
			return nil, false, apperr.Statef("cannot read transcript %s: %v", file, err)
		}
	}
	if !hasAssistant && !batchHasAssistant {
		return nil, false, apperr.Errorf("refusing to append to transcript %s: it holds no assistant message and neither does this batch, so OpenClaw would truncate it before its next run (format §4.5); append the reply in the same batch", file).Wrap(ErrNoAssistant)
	}
	if create && strings.TrimSpace(opts.SessionID) == "" {
		return nil, false, apperr.Errorf("cannot create transcript %s: no session id for its header", file)
	}

	ids, err := freshIDs(file, !create, len(msgs))
	if err != nil {
		return nil, false, apperr.Statef("cannot read transcript %s: %v", file, err)
	}
	now := opts.Now()
	ts := now.UTC().Format(isoMillis)
	lines := make([][]byte, 0, len(msgs)+1)
	if create {
		hdr := jsonx.NewObject()
		_ = hdr.Set("type", "session")
		_ = hdr.Set("version", 3)
		_ = hdr.Set("id", opts.SessionID)
		_ = hdr.Set("timestamp", ts)
		_ = hdr.Set("cwd", opts.Cwd)
		b, _ := hdr.MarshalJSON()
		lines = append(lines, b)
	}
	p := parent
	for i, m := range msgs {
		e := jsonx.NewObject()
		_ = e.Set("type", "message")
		_ = e.Set("id", ids[i])
		if p == "" {
			e.SetRaw("parentId", json.RawMessage("null"))
		} else {
			_ = e.Set("parentId", p)
		}
		_ = e.Set("timestamp", ts)
		var compact bytes.Buffer
		if err := json.Compact(&compact, m); err != nil {
			return nil, false, apperr.Errorf("message %d: %v", i+1, err)
		}
		e.SetRaw("message", compact.Bytes())
		b, _ := e.MarshalJSON()
		lines = append(lines, b)
		p = ids[i]
	}

	if err := h.Check(); err != nil {
		return nil, true, nil
	}
	flags := os.O_WRONLY | os.O_APPEND
	if create {
		if st == nil {
			flags |= os.O_CREATE | os.O_EXCL
		}
	}
	f, err := fsutil.OpenFileRegular(file, flags, 0o600)
	if err != nil {
		if create && errors.Is(err, fs.ErrExist) {
			if fi, lerr := os.Lstat(file); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
				// A dangling symbolic link: O_EXCL refused to follow it, and
				// so do we (it may lead outside the state dir).
				return nil, false, apperr.Errorf("refusing to create transcript %s: it is a symbolic link to a file that does not exist", file)
			}
			// Created meanwhile by a lock-less OpenClaw writer (delivery
			// mirror): start over and append after its lines.
			return nil, true, nil
		}
		return nil, false, apperr.Statef("cannot open transcript %s: %v", file, err)
	}
	defer f.Close()
	if !create {
		if torn, err := endsTorn(file); err != nil {
			return nil, false, apperr.Statef("cannot read transcript %s: %v", file, err)
		} else if torn {
			if _, err := f.Write([]byte("\n")); err != nil {
				return nil, false, apperr.Errorf("append to transcript %s: %v", file, err)
			}
		}
	}
	for _, ln := range lines {
		if _, err := f.Write(append(ln, '\n')); err != nil {
			return nil, false, apperr.Errorf("append to transcript %s: %v", file, err)
		}
	}
	if err := f.Sync(); err != nil {
		return nil, false, apperr.Errorf("sync transcript %s: %v", file, err)
	}
	return &AppendResult{Path: file, Created: create, ParentID: parent, IDs: ids}, false, nil
}

// isoMillis is Date.prototype.toISOString's layout.
const isoMillis = "2006-01-02T15:04:05.000Z"

// endsTorn reports whether the file's last byte is not "\n".
func endsTorn(file string) (bool, error) {
	f, err := fsutil.OpenRegular(file)
	if err != nil {
		return false, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() == 0 {
		return false, err
	}
	b := make([]byte, 1)
	if _, err := f.ReadAt(b, st.Size()-1); err != nil {
		return false, err
	}
	return b[0] != '\n', nil
}

// freshIDs draws n 8-hex ids (pi's generateId: the first 8 hex chars of a
// random UUID) that occur nowhere in the file as a JSON string and are
// distinct from each other. The check is conservative: any occurrence of
// the quoted id anywhere in the file rejects it.
func freshIDs(file string, exists bool, n int) ([]string, error) {
	ids := make([]string, n)
	seen := map[string]bool{}
	for i := range ids {
		for {
			id := randomID()
			if !seen[id] {
				ids[i], seen[id] = id, true
				break
			}
		}
	}
	if !exists {
		return ids, nil
	}
	for round := 0; round < 100; round++ {
		clash, err := occurring(file, ids)
		if err != nil {
			return nil, err
		}
		if len(clash) == 0 {
			return ids, nil
		}
		for i, id := range ids {
			if clash[id] {
				for {
					nid := randomID()
					if !seen[nid] {
						ids[i], seen[nid] = nid, true
						break
					}
				}
			}
		}
	}
	return nil, fmt.Errorf("could not draw unique entry ids")
}

func randomID() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// occurring returns which of ids appear quoted ("xxxxxxxx") in the file,
// reading it in blocks with an overlap so that no match is split.
func occurring(file string, ids []string) (map[string]bool, error) {
	f, err := fsutil.OpenRegular(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	needles := make([][]byte, len(ids))
	for i, id := range ids {
		needles[i] = []byte(`"` + id + `"`)
	}
	const block = 1 << 20
	const overlap = 9 // len(needle) - 1
	buf := make([]byte, block+overlap)
	keep := 0
	found := map[string]bool{}
	for {
		n, err := io.ReadFull(f, buf[keep:])
		chunk := buf[:keep+n]
		for i, nd := range needles {
			if !found[ids[i]] && bytes.Contains(chunk, nd) {
				found[ids[i]] = true
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				return found, nil
			}
			return nil, err
		}
		keep = copy(buf, chunk[len(chunk)-overlap:])
	}
}

// ---- message payloads (format §4.3) -----------------------------------

// TextBlock is a TextContent block.
func TextBlock(text string) json.RawMessage {
	o := jsonx.NewObject()
	_ = o.Set("type", "text")
	_ = o.Set("text", text)
	b, _ := o.MarshalJSON()
	return b
}

// UserMessage is a user prompt as pi writes it:
// {"role":"user","content":[{"type":"text","text":…}],"timestamp":ms}.
func UserMessage(text string, at time.Time) json.RawMessage {
	o := jsonx.NewObject()
	_ = o.Set("role", "user")
	o.SetRaw("content", mustArray(TextBlock(text)))
	_ = o.Set("timestamp", at.UnixMilli())
	b, _ := o.MarshalJSON()
	return b
}

// Cost is a Usage's cost in USD.
type Cost struct {
	Input      float64 `json:"input"`
	Output     float64 `json:"output"`
	CacheRead  float64 `json:"cacheRead"`
	CacheWrite float64 `json:"cacheWrite"`
	Total      float64 `json:"total"`
}

// Usage is pi's Usage (key order input, output, cacheRead, cacheWrite,
// totalTokens, cost).
type Usage struct {
	Input       int64 `json:"input"`
	Output      int64 `json:"output"`
	CacheRead   int64 `json:"cacheRead"`
	CacheWrite  int64 `json:"cacheWrite"`
	TotalTokens int64 `json:"totalTokens"`
	Cost        Cost  `json:"cost"`
}

// AssistantMessage is pi's assistant message.
type AssistantMessage struct {
	Content      []json.RawMessage // TextContent | ThinkingContent | ToolCall blocks
	API          string            // e.g. "openai-completions", "anthropic-messages"
	Provider     string
	Model        string
	Usage        Usage
	StopReason   string // "stop" (default) | "length" | "toolUse" | "error" | "aborted"
	ErrorMessage string
	Timestamp    time.Time
}

// JSON encodes the message in pi's key order: role, content, api,
// provider, model, usage, stopReason[, errorMessage], timestamp (ms).
func (m AssistantMessage) JSON() json.RawMessage {
	o := jsonx.NewObject()
	_ = o.Set("role", "assistant")
	content := m.Content
	if content == nil {
		content = []json.RawMessage{}
	}
	_ = o.Set("content", content)
	_ = o.Set("api", m.API)
	_ = o.Set("provider", m.Provider)
	_ = o.Set("model", m.Model)
	_ = o.Set("usage", m.Usage)
	stop := m.StopReason
	if stop == "" {
		stop = "stop"
	}
	_ = o.Set("stopReason", stop)
	if m.ErrorMessage != "" {
		_ = o.Set("errorMessage", m.ErrorMessage)
	}
	_ = o.Set("timestamp", m.Timestamp.UnixMilli())
	b, _ := o.MarshalJSON()
	return b
}

// ToolResultMessage is pi's tool result:
// {"role":"toolResult","toolCallId","toolName","content","details"?,"isError","timestamp"}.
// details is omitted when nil.
func ToolResultMessage(toolCallID, toolName string, content []json.RawMessage, details json.RawMessage, isError bool, at time.Time) json.RawMessage {
	o := jsonx.NewObject()
	_ = o.Set("role", "toolResult")
	_ = o.Set("toolCallId", toolCallID)
	_ = o.Set("toolName", toolName)
	if content == nil {
		content = []json.RawMessage{}
	}
	_ = o.Set("content", content)
	if len(details) > 0 {
		o.SetRaw("details", details)
	}
	_ = o.Set("isError", isError)
	_ = o.Set("timestamp", at.UnixMilli())
	b, _ := o.MarshalJSON()
	return b
}

// DeliveryMirrorMessage is OpenClaw's delivery mirror (format §4.3,
// dist/config/sessions/transcript.js): an assistant message with api
// "openai-responses", provider "openclaw", model "delivery-mirror", all-zero
// usage and stopReason "stop", recording a message delivered to a channel
// outside a run. text should come from MirrorText.
func DeliveryMirrorMessage(text string, at time.Time) json.RawMessage {
	return AssistantMessage{
		Content:    []json.RawMessage{TextBlock(text)},
		API:        "openai-responses",
		Provider:   "openclaw",
		Model:      "delivery-mirror",
		StopReason: "stop",
		Timestamp:  at,
	}.JSON()
}

// MirrorText is the delivery mirror's text: the trimmed text, else for
// media the comma-joined file names of the URLs, else "media". "" when
// there is neither text nor media (nothing to mirror).
func MirrorText(text string, mediaURLs []string) string {
	if t := strings.TrimSpace(text); t != "" {
		return t
	}
	if len(mediaURLs) == 0 {
		return ""
	}
	var names []string
	for _, u := range mediaURLs {
		p := u
		if pu, err := url.Parse(u); err == nil && pu.Path != "" {
			p = pu.Path
		}
		if b := path.Base(strings.TrimSpace(p)); b != "" && b != "." && b != "/" {
			names = append(names, b)
		}
	}
	if len(names) == 0 {
		return "media"
	}
	return strings.Join(names, ", ")
}

func mustArray(items ...json.RawMessage) json.RawMessage {
	b, _ := jsonx.Marshal(items)
	return b
}
