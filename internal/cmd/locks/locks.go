// Package locks implements `sessions locks`: who holds which lock on a live
// host — OpenClaw's store and transcript locks under the state dir, and the
// runner locks of our own runs.
package locks

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/openclaw/sessions/internal/cmdutil"
	"github.com/openclaw/sessions/internal/lock"
	"github.com/openclaw/sessions/internal/output"
	"github.com/openclaw/sessions/internal/policy"
	"github.com/openclaw/sessions/internal/runs"
	"github.com/openclaw/sessions/internal/state"
	"github.com/spf13/cobra"
)

// Kinds of lock.
const (
	KindStore      = "store"      // <store>.lock: OpenClaw's sessions.json lock
	KindTranscript = "transcript" // <transcript>.jsonl.lock: OpenClaw's session write lock
	KindRunner     = "runner"     // a sessions runner's flock on <runId>.lock
)

// Lock is one held lock (JSON row).
type Lock struct {
	Kind       string `json:"kind"`
	Path       string `json:"path"`
	AgentID    string `json:"agentId,omitempty"`
	SessionKey string `json:"sessionKey,omitempty"`
	RunID      string `json:"runId,omitempty"`
	PID        int    `json:"pid,omitempty"`
	Since      int64  `json:"since,omitempty"` // ms since the epoch
	AgeSeconds int64  `json:"ageSeconds"`
	Alive      bool   `json:"alive"`
	Stale      bool   `json:"stale"`
	// Type is set when the lock path is not a regular file ("fifo",
	// "symlink", "directory", …): it is reported and never opened.
	Type string `json:"type,omitempty"`
}

// Result is the JSON document of `sessions locks`.
type Result struct {
	Count int    `json:"count"`
	Locks []Lock `json:"locks"`
}

// Options are the parsed flags.
type Options struct {
	f *cmdutil.Factory
}

// NewCmd builds the command.
func NewCmd(f *cmdutil.Factory, runF func(*Options) error) *cobra.Command {
	o := &Options{f: f}
	cmd := &cobra.Command{
		Use:   "locks",
		Short: "List the locks held under the state dir: holder pid, age, alive",
		Long: `List the locks held right now under the state dir, oldest first, without
touching any of them:

  store       sessions.json.lock, OpenClaw's store lock (stale after 30 s)
  transcript  <sessionId>.jsonl.lock, OpenClaw's session write lock, held while
              an agent turn writes the transcript (stale after 30 min)
  runner      the flock a sessions runner holds on its run for its whole life

For each: the session it guards, the holder's pid (from the lock's payload, or
/proc/locks for runners), how long it has been held, whether that pid is alive
on this host, and whether OpenClaw would evict it as stale. A lock held by a
dead pid, or a stale one, is evicted by the next writer; nothing here removes
it. A lock path that is not a regular file (a FIFO, a symlink, a directory) is
listed with its type and never opened; sessions doctor explains it.

JSON (--json): {"count":N,"locks":[{"kind","path","agentId","sessionKey",
"runId","pid","since","ageSeconds","alive","stale","type"}...]} (since in ms;
type only for a lock path that is not a regular file).
Piped: kind, session key (or run id), pid, since (RFC 3339), alive, stale, path.`,
		Example: `  sessions locks
  sessions locks --jq '.locks[] | select(.alive | not) | .path'`,
		Args: cmdutil.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(o)
			}
			return run(o)
		},
	}
	return cmd
}

func run(o *Options) error {
	f := o.f
	s, err := f.State()
	if err != nil {
		return err
	}
	now := f.Now()
	res := Result{Locks: []Lock{}}
	res.Locks = append(res.Locks, openclawLocks(s, f, now)...)
	res.Locks = append(res.Locks, runnerLocks(s, now)...)
	slices.SortStableFunc(res.Locks, func(a, b Lock) int {
		return cmp.Or(cmp.Compare(a.Since, b.Since), cmp.Compare(a.Path, b.Path))
	})
	res.Count = len(res.Locks)
	if f.JSONMode() {
		return f.PrintJSON(res)
	}
	io := f.IO
	tty := io.IsStdoutTTY()
	if len(res.Locks) == 0 {
		if tty {
			fmt.Fprintln(io.ErrOut, "No locks held.")
		}
		return nil
	}
	cs := io.ColorScheme()
	yesNo := func(b bool) string {
		if tty {
			if b {
				return "yes"
			}
			return "no"
		}
		return strconv.FormatBool(b)
	}
	if !tty {
		t := output.NewTable()
		for _, l := range res.Locks {
			t.Row(l.Kind, cmp.Or(l.SessionKey, l.RunID), pidStr(l.PID), rfc3339(l.Since), yesNo(l.Alive), yesNo(l.Stale), l.Path)
		}
		return t.Render(io.Out, false, 0)
	}
	t := output.NewTable("Kind", "Session", "PID", "Held", "Alive", "Stale", "Path").Flexible(1, 6)
	t.Color(4, func(s string) string {
		if s == "no" {
			return cs.Red(s)
		}
		return cs.Green(s)
	})
	t.Color(5, func(s string) string {
		if s == "yes" {
			return cs.Yellow(s)
		}
		return s
	})
	for _, l := range res.Locks {
		who := l.SessionKey
		if who == "" && l.RunID != "" {
			who = "run " + l.RunID
		}
		t.Row(l.Kind, who, pidStr(l.PID), held(time.Duration(l.AgeSeconds)*time.Second), yesNo(l.Alive), yesNo(l.Stale), l.Path)
	}
	return t.Render(io.Out, true, io.TerminalWidth())
}

// openclawLocks finds OpenClaw's store and transcript locks in the stores'
// directories of every agent the requester may see.
func openclawLocks(s *state.State, f *cmdutil.Factory, now time.Time) []Lock {
	var out []Lock
	seenStore := map[string]bool{}
	seenDir := map[string]bool{}
	for _, agent := range s.AgentIDs() {
		if s.CanSeeAgent(agent, policy.OpHistory) != "" {
			continue
		}
		storePath, _ := s.StorePath(agent)
		// The session each transcript file belongs to (by file name).
		names := map[string]string{}
		if _, entries, err := s.Entries(agent); err == nil {
			for _, e := range entries {
				if !s.Visible(e) {
					continue
				}
				key := s.DisplayKey(e.Key)
				if e.SessionID != "" {
					names[e.SessionID+".jsonl"] = key
				}
				if e.SessionFile != "" {
					names[filepath.Base(e.SessionFile)] = key
				}
			}
		}
		if !seenStore[storePath] {
			seenStore[storePath] = true
			if h, err := lock.InspectStore(storePath); err == nil && h != nil {
				out = append(out, row(KindStore, h, now, agent))
			}
		}
		for _, dir := range []string{filepath.Dir(storePath), s.SessionsDir(agent)} {
			if seenDir[dir] {
				continue
			}
			seenDir[dir] = true
			matches, _ := filepath.Glob(filepath.Join(dir, "*.jsonl.lock"))
			for _, m := range matches {
				h, err := lock.InspectTranscript(strings.TrimSuffix(m, ".lock"))
				if err != nil || h == nil {
					continue
				}
				l := row(KindTranscript, h, now, agent)
				l.SessionKey = names[strings.TrimSuffix(filepath.Base(m), ".lock")]
				out = append(out, l)
			}
		}
	}
	return out
}

// runnerLocks lists the runs whose runner holds its flock: only runs not yet
// ended are probed (a runner's lock file stays after it exits).
func runnerLocks(s *state.State, now time.Time) []Lock {
	rs := runs.Open(s.Dir.Path)
	recs, err := rs.List()
	if err != nil {
		return nil
	}
	var out []Lock
	for _, r := range recs {
		if runs.Terminal(r.Status) || !rs.RunnerAlive(r.RunID) {
			continue
		}
		p := rs.LockPath(r.RunID)
		l := Lock{Kind: KindRunner, Path: p, AgentID: r.Target.AgentID, RunID: r.RunID, Alive: true}
		l.SessionKey = cmp.Or(r.Target.DisplayKey, r.Target.Key)
		l.PID = lock.FlockHolder(p)
		if l.PID == 0 {
			l.PID = r.RunnerPID
		}
		since := cmp.Or(r.StartedAt, r.CreatedAt)
		if fi, err := os.Stat(p); err == nil && since == 0 {
			since = fi.ModTime().UnixMilli()
		}
		l.Since = since
		l.AgeSeconds = max(0, int64(now.Sub(time.UnixMilli(since)).Seconds()))
		out = append(out, l)
	}
	return out
}

func row(kind string, h *lock.HolderInfo, now time.Time, agent string) Lock {
	l := Lock{Kind: kind, Path: h.Path, AgentID: agent, PID: h.PID, Alive: h.Alive, Stale: h.Stale, Type: h.Kind}
	if !h.Since.IsZero() {
		l.Since = h.Since.UnixMilli()
		l.AgeSeconds = max(0, int64(now.Sub(h.Since).Seconds()))
	}
	return l
}

func pidStr(pid int) string {
	if pid <= 0 {
		return "?"
	}
	return strconv.Itoa(pid)
}

func rfc3339(ms int64) string {
	if ms <= 0 {
		return ""
	}
	return time.UnixMilli(ms).UTC().Format(time.RFC3339)
}

// held is a short duration: 12s, 4m10s, 3h2m, 2d3h.
func held(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd%02dh", int(d.Hours()/24), int(d.Hours())%24)
}
