package sqlitefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"sync"
	"sync/atomic"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/mapfile"
)

// Errors. A caller reads through SQLite instead on any of them.
var (
	// ErrCorrupt: the file is not what its headers and pointers say.
	ErrCorrupt = errors.New("sqlitefile: malformed database file")
	// ErrUnsupported: a valid database this reader does not handle
	// (rollback journal, a text encoding other than UTF-8, …).
	ErrUnsupported = errors.New("sqlitefile: unsupported database")
	// ErrChanged: the file was truncated under the read.
	ErrChanged = errors.New("sqlitefile: database changed during the read")
)

func corruptf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

func unsupportedf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrUnsupported}, args...)...)
}

// magic starts every SQLite 3 database file.
const magic = "SQLite format 3\x00"

// maxPayload bounds a record's size (SQLite's own SQLITE_MAX_LENGTH default
// is 1e9): anything larger is treated as corrupt before memory is sized by
// it.
const maxPayload = 1 << 30

// Snapshot is one consistent view of a WAL-mode database: see the package
// comment. It is safe for concurrent use by several goroutines; Close it
// when done (the values a read returns are copies and stay valid).
type Snapshot struct {
	path     string
	main     *os.File
	db       []byte // the main file, mapped read-only
	wal      []byte // the -wal, mapped read-only (nil without frames)
	pageSize int
	usable   int    // pageSize minus the reserved bytes at each page's end
	nPages   uint32 // the database's size in pages in this snapshot
	// walPages maps a page to the offset of its newest committed frame's
	// data in wal.
	walPages map[uint32]int

	dbStamp  fsutil.Stamp
	walStamp fsutil.Stamp
	walHdr   []byte // the -wal's first 32 bytes when the snapshot was taken
	walFound bool
	closers  []func() error
	// shared: the main file's mapping when shared between snapshots
	// (mapMain); touched: the pages of it this one read, about (a page
	// read again right after itself counts once: last).
	shared  *sharedMap
	touched atomic.Int64
	last    atomic.Uint32
}

// Open takes a snapshot of the WAL-mode database at path: it maps the main
// file and, when the -wal holds a valid header, the -wal, and indexes the
// committed frames. Nothing is written or locked. A database not in WAL
// mode is ErrUnsupported (a rollback journal needs a lock to read safely).
//
// main, when not nil, is the main file already open, and is used instead
// of opening path again. A process that also has the database open through
// SQLite must pass one it keeps open until that connection is closed:
// closing any descriptor of a file drops every POSIX lock the process holds
// on it, SQLite's included (the reason two SQLite copies in one process
// break each other's locks). The -wal carries no SQLite lock: it is opened
// and closed here.
func Open(path string, main *os.File) (s *Snapshot, err error) {
	s = &Snapshot{path: path, main: main}
	defer func() {
		if err != nil {
			s.Close()
			s = nil
		}
	}()
	err = s.protect(func() error { return s.open() })
	return s, err
}

func (s *Snapshot) open() error {
	var db mapped
	var st fsutil.Stamp
	var err error
	if s.main != nil {
		db, st, err = mapMain(s.main)
	} else {
		db, st, err = mapFile(s.path)
	}
	if err != nil {
		return err
	}
	s.dbStamp = st
	if db.unmap != nil {
		s.closers = append(s.closers, db.unmap)
	}
	if db.shared != nil {
		s.shared = db.shared
		s.closers = append(s.closers, func() error { return db.shared.release(s.touched.Load()) })
	}
	s.db = db.data
	// The page size: the main file's header, else (a database never
	// checkpointed) the -wal's.
	if len(s.db) >= 100 && string(s.db[:16]) == magic {
		ps := int(binary.BigEndian.Uint16(s.db[16:]))
		if ps == 1 {
			ps = 65536
		}
		if ps < 512 || ps > 65536 || ps&(ps-1) != 0 {
			return corruptf("page size %d", ps)
		}
		s.pageSize = ps
		s.nPages = uint32(len(s.db) / ps)
		// The in-header size is valid when the change counter equals
		// version-valid-for (SQLite 3.7.0+ writes both); else the file's.
		if n := binary.BigEndian.Uint32(s.db[28:]); n != 0 && binary.BigEndian.Uint32(s.db[24:]) == binary.BigEndian.Uint32(s.db[92:]) {
			s.nPages = n
		}
	} else if len(s.db) > 0 {
		return unsupportedf("no SQLite 3 header in the main file")
	}
	if err := s.openWAL(); err != nil {
		return err
	}
	if s.pageSize == 0 {
		return unsupportedf("no SQLite 3 header in the main file or the -wal")
	}
	// The header proper is page 1 of the snapshot (the -wal's when newer).
	s.usable = s.pageSize
	p1, err := s.page(1)
	if err != nil {
		return err
	}
	h := p1[:100]
	if string(h[:16]) != magic {
		return corruptf("page 1 has no SQLite 3 header")
	}
	if h[18] != 2 || h[19] != 2 {
		return unsupportedf("not a WAL-mode database (read/write versions %d/%d)", h[18], h[19])
	}
	if enc := binary.BigEndian.Uint32(h[56:]); enc != 1 {
		return unsupportedf("text encoding %d, not UTF-8", enc)
	}
	s.usable = s.pageSize - int(h[20])
	if s.usable < 480 {
		return corruptf("usable page size %d", s.usable)
	}
	return nil
}

// openWAL maps the -wal and indexes its frames up to the last valid commit
// frame, as SQLite's recovery does (walIndexRecover): a frame is valid when
// its salts equal the header's and its checksum continues the header's
// cumulative checksum; the first invalid frame ends the log.
func (s *Snapshot) openWAL() error {
	w, st, err := mapFile(s.path + "-wal")
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	s.walFound, s.walStamp = true, st
	if w.unmap != nil {
		s.closers = append(s.closers, w.unmap)
	}
	if len(w.data) < 32 {
		if len(w.data) > 0 {
			s.walHdr = bytes.Clone(w.data)
		}
		return nil // empty: every committed page is in the main file
	}
	s.walHdr = bytes.Clone(w.data[:32])
	hdr := w.data[:32]
	m := binary.BigEndian.Uint32(hdr[0:])
	wps := int(binary.BigEndian.Uint32(hdr[8:]))
	if m&^1 != 0x377f0682 || binary.BigEndian.Uint32(hdr[4:]) != 3007000 || wps < 512 || wps > 65536 || wps&(wps-1) != 0 {
		return nil // SQLite ignores a -wal without a valid header
	}
	if s.pageSize == 0 {
		s.pageSize = wps
	} else if wps != s.pageSize {
		return unsupportedf("the -wal's page size %d differs from the database's %d", wps, s.pageSize)
	}
	order := binary.ByteOrder(binary.LittleEndian)
	if m&1 == 1 {
		order = binary.BigEndian
	}
	s0, s1 := walChecksum(order, hdr[:24], 0, 0)
	if s0 != binary.BigEndian.Uint32(hdr[24:]) || s1 != binary.BigEndian.Uint32(hdr[28:]) {
		return nil
	}
	salt := hdr[16:24]
	frame := 24 + s.pageSize
	// From where an earlier snapshot of this log left off, when it can:
	// the same file with the same header is the same log, whose frames up
	// to a commit SQLite never writes again (a restart rewrites the
	// header's salts first), so only the frames appended since are read.
	at := walAt{end: 32, s0: s0, s1: s1}
	if v, ok := walSeen.Load(s.path); ok {
		if c := v.(*walAt); c.ino == st.Ino && c.hdr == [32]byte(hdr) && c.end <= len(w.data) && c.pageSize == s.pageSize {
			at = *c
		}
	}
	s0, s1 = at.s0, at.s1
	pending := map[uint32]int{}
	var committed map[uint32]int // at.committed and the commits read here
	for off := at.end; off+frame <= len(w.data); off += frame {
		fh := w.data[off : off+24]
		pg := binary.BigEndian.Uint32(fh[0:])
		if pg == 0 || !bytes.Equal(fh[8:16], salt) {
			break
		}
		data := w.data[off+24 : off+frame]
		s0, s1 = walChecksum(order, fh[:8], s0, s1)
		s0, s1 = walChecksum(order, data, s0, s1)
		if s0 != binary.BigEndian.Uint32(fh[16:]) || s1 != binary.BigEndian.Uint32(fh[20:]) {
			break
		}
		pending[pg] = off + 24
		if size := binary.BigEndian.Uint32(fh[4:]); size != 0 {
			if committed == nil {
				committed = maps.Clone(at.committed) // the kept one is never changed
				if committed == nil {
					committed = map[uint32]int{}
				}
			}
			for p, o := range pending {
				committed[p] = o
			}
			clear(pending)
			at.end, at.s0, at.s1, at.nPages = off+frame, s0, s1, size
		}
	}
	if committed != nil {
		at.committed, at.hdr, at.pageSize, at.ino = committed, [32]byte(hdr), s.pageSize, st.Ino
		walSeen.Store(s.path, &at)
	}
	if len(at.committed) > 0 {
		s.wal, s.walPages, s.nPages = w.data, at.committed, at.nPages
	}
	return nil
}

// walAt is how far a -wal (its inode and header) was read: the end of its
// last commit frame, the cumulative checksum there, the database's size
// that frame gave, and the newest committed frame of each page (never
// changed once kept: a later read copies it before adding to it).
type walAt struct {
	ino       uint64
	hdr       [32]byte
	pageSize  int
	end       int
	s0, s1    uint32
	nPages    uint32
	committed map[uint32]int
}

// walSeen holds, by database path, the walAt of the last -wal of it a
// snapshot read in this process: a long-lived one reads the same few logs
// again and again (the 4 MB -wal of a busy store took 4-6 ms to check
// whole, each time); one entry per path, whatever became of the files.
var walSeen sync.Map

// walChecksum continues SQLite's WAL checksum over b (a multiple of 8
// bytes), reading 32-bit words in the byte order the magic names.
func walChecksum(order binary.ByteOrder, b []byte, s0, s1 uint32) (uint32, uint32) {
	for i := 0; i+8 <= len(b); i += 8 {
		s0 += order.Uint32(b[i:]) + s1
		s1 += order.Uint32(b[i+4:]) + s0
	}
	return s0, s1
}

// Unchanged reports whether the files still are as the snapshot found
// them: the main file's size, mtime, ctime and inode, and the -wal's
// presence and header (a checkpoint writes the main file; a WAL restart
// rewrites the header's salts before any frame; a truncation shrinks it).
// Frames appended after the snapshot's last commit do not matter to it.
func (s *Snapshot) Unchanged() bool { return s.unchanged(false) }

// unchanged is Unchanged, and with exact the -wal not grown either.
func (s *Snapshot) unchanged(exact bool) bool {
	fi, err := os.Stat(s.path)
	if err != nil || !fsutil.StampOf(fi).Equal(s.dbStamp) {
		return false
	}
	wfi, err := os.Stat(s.path + "-wal")
	if errors.Is(err, fs.ErrNotExist) {
		return !s.walFound
	}
	if err != nil || !s.walFound {
		return false
	}
	if wfi.Size() < s.walStamp.Size || exact && wfi.Size() != s.walStamp.Size {
		return false
	}
	f, err := fsutil.OpenRegular(s.path + "-wal")
	if err != nil {
		return false
	}
	defer f.Close()
	hdr := make([]byte, 32)
	n, _ := f.ReadAt(hdr, 0)
	return bytes.Equal(hdr[:n], s.walHdr)
}

// Latest reports whether the snapshot is still the database's newest
// committed state as far as the files tell: Unchanged, and the -wal no
// longer than it was (no frame written since, committed or not). A reader
// that began a SQLite read transaction after the snapshot was taken and
// finds it Latest once that transaction holds its read mark sees through
// SQLite what the snapshot holds (the mark is the last commit, which was
// the snapshot's).
func (s *Snapshot) Latest() bool { return s.unchanged(true) }

// HasWAL reports whether the snapshot uses committed frames of a -wal.
func (s *Snapshot) HasWAL() bool { return len(s.walPages) > 0 }

// Close unmaps the files. Values already read stay valid.
func (s *Snapshot) Close() error {
	var first error
	for _, c := range s.closers {
		if err := c(); err != nil && first == nil {
			first = err
		}
	}
	s.closers = nil
	s.db, s.wal, s.walPages = nil, nil, nil
	return first
}

// page returns page pgno of the snapshot (its usable bytes).
func (s *Snapshot) page(pgno uint32) ([]byte, error) {
	if pgno == 0 || pgno > s.nPages {
		return nil, corruptf("page %d out of range 1..%d", pgno, s.nPages)
	}
	if s.walPages != nil {
		if off, ok := s.walPages[pgno]; ok {
			return s.wal[off : off+s.usable], nil
		}
	}
	off := int64(pgno-1) * int64(s.pageSize)
	if off+int64(s.pageSize) > int64(len(s.db)) {
		return nil, corruptf("page %d beyond the end of the file", pgno)
	}
	if s.shared != nil && s.last.Load() != pgno {
		s.last.Store(pgno)
		s.touched.Add(1)
	}
	return s.db[off : off+int64(s.usable)], nil
}

// protect runs fn with faults on the mappings turned into ErrChanged: a
// file truncated under its mapping raises SIGBUS on access, which
// mapfile.Guard turns into an error.
func (s *Snapshot) protect(fn func() error) error {
	err := mapfile.Guard(fn)
	var fault *mapfile.Fault
	if errors.As(err, &fault) {
		return fmt.Errorf("%w: %v", ErrChanged, fault)
	}
	return err
}
