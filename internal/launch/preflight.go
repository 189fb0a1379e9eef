package launch

import (
	"errors"
	"io/fs"
	"os"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/sessionwrite"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcript"
)

// Preflight refuses what the runner could not do, before a run exists: an
// agent whose store cannot be written (PreflightAgent), or a transcript
// whose first line is not a session header (OpenClaw would overwrite it; we
// never repair it). A 2026.8+ (SQLite) transcript is checked by the writer
// in the transaction that appends.
func Preflight(s *state.State, t *state.Target) error {
	if err := PreflightAgent(s, t.Agent); err != nil {
		return err
	}
	if s.Era(t.Agent) == era.SQLite {
		return nil
	}
	tp, err := s.Transcript(t.Agent, t.Store, t.Entry)
	if err != nil {
		return err
	}
	if !tp.Exists {
		if err := checkCreatable(tp.Path); err != nil {
			return err
		}
	}
	if tp.Exists {
		h, err := transcript.ReadHeader(tp.Path)
		if err != nil {
			return apperr.Statef("cannot read transcript %s: %v", tp.Path, err)
		}
		if h == nil {
			return apperr.Statef("transcript %s does not start with a session header; refusing to append to it", tp.Path)
		}
	}
	return nil
}

// CheckTarget refuses, before a run exists, what the runner could not do
// on route: through a gateway, connecting (unreachable or a failed
// handshake: exit 10; credentials refused or pairing required: exit 3; a
// call timing out: exit 5) and finding key there (exit 4); on the SQLite
// store, writing key beside an OpenClaw process that runs it (exit 10).
func CheckTarget(s *state.State, agent, key string, route sessionwrite.Route, o sessionwrite.Options) error {
	w, err := sessionwrite.OpenRoute(s, agent, route, o)
	if err != nil {
		return err
	}
	defer w.Close()
	_, err = w.Locate(key)
	return err
}

// PreflightAgent refuses an agent sessions cannot write (sessionwrite.CheckWritable:
// on the 2026.8+ SQLite store, an OpenClaw process holding the state dir or a
// schema other than 2026.9.6's, exit 10).
func PreflightAgent(s *state.State, agent string) error { return sessionwrite.CheckWritable(s, agent) }

// checkCreatable refuses to let a run create a transcript at path when path
// is a symbolic link (dangling, since the transcript does not exist): the
// file would be created wherever the link points, possibly outside the
// state dir. We never write through a symbolic link.
func checkCreatable(path string) error {
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return apperr.Statef("cannot read transcript %s: %v", path, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return apperr.Errorf("transcript %s is a symbolic link to %s, which does not exist; refusing to create a file through it", path, target)
	}
	return nil
}
