package lock

import (
	"context"
	"time"
)

// TranscriptBusy reports who holds transcriptPath's write lock when it is a
// live process with a lock OpenClaw would not evict (pid alive on this host,
// not stale): an agent turn is running on that session right now. (nil,
// nil) when the session is idle.
func TranscriptBusy(transcriptPath string) (*HolderInfo, error) {
	h, err := InspectTranscript(transcriptPath)
	if err != nil || h == nil || !h.Alive || h.Stale {
		return nil, err
	}
	return h, nil
}

// WaitTranscriptIdle polls transcriptPath's write lock every poll until no
// live process holds it (nil) or ctx ends (ctx's error, with the last
// holder seen).
func WaitTranscriptIdle(ctx context.Context, transcriptPath string, poll time.Duration) (*HolderInfo, error) {
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	var last *HolderInfo
	for {
		h, err := TranscriptBusy(transcriptPath)
		if err != nil {
			return last, err
		}
		if h == nil {
			return nil, nil
		}
		last = h
		t := time.NewTimer(poll)
		select {
		case <-ctx.Done():
			t.Stop()
			return last, ctx.Err()
		case <-t.C:
		}
	}
}
