// Package hoststat measures an agent's store files on this host without
// reading their contents: the sizes of the 2026.8+ database and its -wal,
// of sessions.json and of the transcript files, and the database's schema
// version from its header. Every file is stat'ed or opened as the rest of
// the tool does it (internal/fsutil: never following a link out of a
// directory listing, never blocking on a FIFO), and nothing is locked.
package hoststat

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/openclaw/sessions/internal/era"
	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/state"
	"github.com/openclaw/sessions/internal/transcripts"
)

// Files are one agent's store files as they are now. A size is -1 when
// the file does not exist.
type Files struct {
	Agent        string
	Era          era.Era
	DB, WAL      int64 // openclaw-agent.sqlite and its -wal (2026.8+)
	SessionsJSON int64 // sessions.json (up to 2026.7)
	Transcripts  int64 // the JSONL transcripts and their archived copies
	// Schema is the database's user_version (header offset 60); 0 with
	// no database.
	Schema int
	// Errs are the files that exist but could not be measured.
	Errs []error
}

// Agent measures the store files of agent.
func Agent(s *state.State, agent string) Files { return AgentWith(s, agent, SumTranscripts) }

// AgentWith measures the store files of agent as Agent does, the
// transcripts' sizes summed by sum (SumTranscripts, or a reader's that
// keeps the sessions dir's listing between readings).
func AgentWith(s *state.State, agent string, sum func(dir string) (int64, error)) Files {
	f := Files{Agent: agent, Era: s.Era(agent), DB: -1, WAL: -1, SessionsJSON: -1}
	if f.Era == era.SQLite {
		p := s.SQLitePath(agent)
		f.DB = f.size(p)
		f.WAL = f.size(p + "-wal")
		if f.DB >= 0 {
			f.Schema = f.schema(p)
		}
	} else if p, _ := s.StorePath(agent); p != "" {
		f.SessionsJSON = f.size(p)
	}
	n, err := sum(s.SessionsDir(agent))
	if err != nil {
		f.Errs = append(f.Errs, err)
	}
	f.Transcripts = n
	return f
}

// size is a file's size by lstat (nothing is opened), -1 when missing.
func (f *Files) size(p string) int64 {
	fi, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return -1
	}
	if err != nil {
		f.Errs = append(f.Errs, err)
		return -1
	}
	if !fi.Mode().IsRegular() {
		f.Errs = append(f.Errs, fmt.Errorf("%s is a %s, not a regular file", p, fsutil.KindOf(fi.Mode())))
		return -1
	}
	return fi.Size()
}

// schema reads the user_version of a SQLite database's header (4 bytes,
// big-endian, at offset 60) as the database file holds it. A schema
// migration still only in the -wal shows once it is checkpointed.
func (f *Files) schema(p string) int {
	h, err := fsutil.OpenRegular(p)
	if err != nil {
		f.Errs = append(f.Errs, err)
		return 0
	}
	defer h.Close()
	var b [64]byte
	if _, err := io.ReadFull(h, b[:]); err != nil {
		f.Errs = append(f.Errs, fmt.Errorf("%s: header: %w", p, err))
		return 0
	}
	if !strings.HasPrefix(string(b[:16]), "SQLite format 3\x00") {
		f.Errs = append(f.Errs, fmt.Errorf("%s is not a SQLite database", p))
		return 0
	}
	return int(binary.BigEndian.Uint32(b[60:64]))
}

// SumTranscripts sums the transcript files of dir (IsTranscript), regular
// files only (lstat'ed by the listing): -1 when dir does not exist, -1 and
// the error when it cannot be read.
func SumTranscripts(dir string) (int64, error) {
	ents, err := fsutil.ReadDir(dir)
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			return -1, err
		}
		return -1, nil
	}
	var n int64
	for _, de := range ents {
		if !de.Type().IsRegular() || !IsTranscript(de.Name()) {
			continue
		}
		fi, err := de.Info()
		if err != nil {
			continue // gone since the listing
		}
		n += fi.Size()
	}
	return n, nil
}

// IsTranscript reports whether a file name is a transcript's:
// <sessionId>.jsonl or an archived copy (.reset/.deleted).
func IsTranscript(name string) bool {
	return strings.HasSuffix(name, ".jsonl") || transcripts.ArchiveOf(name) != ""
}
