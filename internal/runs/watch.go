package runs

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/openclaw/sessions/internal/fsutil"
)

// Change is a run whose status changed (or a new run).
type Change struct {
	RunID  string
	Status string
	Kind   string
	Target string // the target session's key as shown (DisplayKey, else Key)
	Agent  string
}

// Watch reports the runs of the store whose status changes, until ctx
// ends (nil) or emit fails (its error). It reads the records as they are
// (a dead runner's run is not ended here: watching writes nothing). File
// events on the store's directory wake it; every tick compares the
// directory's stamp (one stat) in case an event was missed or the
// directory did not exist yet. Only the records whose files changed are
// read again.
func (s *Store) Watch(ctx context.Context, tick time.Duration, ready func(), emit func([]Change) error) error {
	rw := &runWatch{s: s, stamps: map[string]fsutil.Stamp{}, status: map[string]string{}}
	if fw, err := fsnotify.NewWatcher(); err == nil {
		rw.fw = fw
		defer fw.Close()
	}
	rw.scan(true)
	if ready != nil {
		ready()
	}
	t := time.NewTicker(tick)
	defer t.Stop()
	var events <-chan fsnotify.Event
	if rw.fw != nil {
		events = rw.fw.Events
	}
	for {
		var changes []Change
		select {
		case <-ctx.Done():
			return nil
		case ev := <-events:
			if strings.HasSuffix(ev.Name, ".json") && ev.Op != fsnotify.Chmod {
				changes = rw.scan(false)
			}
		case <-t.C:
			fi, err := os.Stat(s.dir)
			if err == nil && !fsutil.StampOf(fi).Equal(rw.dirStamp) || err != nil && rw.dirStamp != (fsutil.Stamp{}) {
				changes = rw.scan(false)
			}
		}
		if len(changes) > 0 {
			if err := emit(changes); err != nil {
				return err
			}
		}
	}
}

type runWatch struct {
	s        *Store
	fw       *fsnotify.Watcher
	watched  bool
	dirStamp fsutil.Stamp
	stamps   map[string]fsutil.Stamp // record file → stamp when read
	status   map[string]string       // run id → status last seen
}

// scan reads the records whose files changed since the last scan.
func (rw *runWatch) scan(first bool) []Change {
	dir := rw.s.dir
	if fi, err := os.Stat(dir); err == nil {
		rw.dirStamp = fsutil.StampOf(fi)
	} else {
		rw.dirStamp = fsutil.Stamp{}
	}
	if rw.fw != nil && !rw.watched {
		rw.watched = rw.fw.Add(dir) == nil
	}
	ents, err := fsutil.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	var out []Change
	seen := make(map[string]bool, len(ents))
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, ".json") || strings.HasPrefix(name, ".") {
			continue
		}
		seen[name] = true
		fi, err := e.Info()
		if err != nil {
			continue
		}
		st := fsutil.StampOf(fi)
		if old, ok := rw.stamps[name]; ok && old.Equal(st) {
			continue
		}
		r, err := rw.s.Load(strings.TrimSuffix(name, ".json"))
		if err != nil {
			continue // half written or not a record: read again when it changes
		}
		rw.stamps[name] = st
		if rw.status[r.RunID] == r.Status {
			continue
		}
		rw.status[r.RunID] = r.Status
		if first {
			continue
		}
		target := r.Target.DisplayKey
		if target == "" {
			target = r.Target.Key
		}
		out = append(out, Change{RunID: r.RunID, Status: r.Status, Kind: r.Kind, Target: target, Agent: r.Target.AgentID})
	}
	for name := range rw.stamps {
		if !seen[name] {
			delete(rw.stamps, name)
			delete(rw.status, strings.TrimSuffix(filepath.Base(name), ".json"))
		}
	}
	return out
}
