package ops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/state"
)

// idlePoll is how often a patch's wait for an idle session re-checks the
// transcript lock and the store.
const idlePoll = 100 * time.Millisecond

// checkIdle looks for an OpenClaw turn running on the target (a live
// holder of its transcript lock). Without q.WaitIdle it returns the
// warning that the patch may be undone (also logged); with it, it waits
// for the turn to end and for OpenClaw's end-of-turn store write (at most
// q.Settle after the lock is released), or fails with exit 5 when the turn
// is still running after q.WaitIdle.
func (o *Ops) checkIdle(ctx context.Context, q PatchRequest, s *state.State, t *state.Target, storePath string) ([]string, error) {
	tp, err := s.Transcript(t.Agent, t.Store, t.Entry)
	if err != nil || tp.Path == "" {
		return nil, nil // no transcript to lock: nothing can be running on it
	}
	h, err := state.TranscriptBusy(tp.Path)
	if err != nil || h == nil {
		return nil, nil
	}
	held := o.Now().Sub(h.Since).Round(time.Second)
	if q.WaitIdle <= 0 {
		msg := fmt.Sprintf("an OpenClaw run (pid %d) has held the transcript lock of %s for %s: when its turn ends OpenClaw rewrites the entry from its own copy and may undo this change (use --wait-idle to wait for the run to end first)",
			h.PID, t.DisplayKey, held)
		o.warn(msg)
		return []string{msg}, nil
	}
	if q.OnWaitIdle != nil {
		q.OnWaitIdle(fmt.Sprintf("waiting up to %s for the OpenClaw run on %s (pid %d, transcript lock held for %s) to end…", q.WaitIdle, t.DisplayKey, h.PID, held))
	}
	before := storeStamp(storePath)
	ctx, cancel := context.WithTimeout(ctx, q.WaitIdle)
	defer cancel()
	if last, err := state.WaitTranscriptIdle(ctx, tp.Path, idlePoll); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			pid := h.PID
			if last != nil {
				pid = last.PID
			}
			return nil, apperr.Timeoutf("still busy after %s: an OpenClaw run (pid %d) holds the transcript lock of %s; nothing was changed", q.WaitIdle, pid, t.DisplayKey).With("sessionKey", t.DisplayKey)
		}
		return nil, err
	}
	// The turn's own store write comes right after it releases the lock:
	// wait for the store to change (or q.Settle), so that it lands first.
	if q.Settle <= 0 {
		q.Settle = DefaultPatchSettle
	}
	settle := time.NewTimer(q.Settle)
	defer settle.Stop()
	for storeStamp(storePath) == before {
		select {
		case <-settle.C:
			return nil, nil
		case <-time.After(idlePoll):
		}
	}
	o.debug("store written after the run ended", "path", storePath)
	return nil, nil
}

// storeStamp identifies a version of the store file (size, mtime).
func storeStamp(path string) string {
	fi, err := os.Stat(path)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("%d/%d", fi.Size(), fi.ModTime().UnixNano())
}
