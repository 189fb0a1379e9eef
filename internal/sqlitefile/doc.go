// Package sqlitefile reads rows of rowid tables straight out of a SQLite 3
// database file (https://www.sqlite.org/fileformat2.html), strictly
// read-only and without SQLite: b-tree pages, records, overflow chains, and
// the write-ahead log's committed frames. A table is scanned leaf by leaf
// (ScanLeaves) or read by rowid (Rows), and a run of an index's entries is
// walked in key order (SeekIndex), SQLite's comparison left to the caller
// (Range). It exists for the hot paths where going through a SQL engine
// costs several times the reading itself (docs/PERFORMANCE.md): listing
// the 10,000-session table of an OpenClaw 2026.8+ agent database, the
// generations of its transcripts, and every event of every session a
// search index build reads. Everything else goes through
// modernc.org/sqlite (internal/sqlitestore).
//
// # What it reads, what it refuses
//
// A Snapshot is one consistent view of a database: the main file, mapped
// read-only, plus — when a -wal holds frames — every frame up to the last
// valid commit frame (salts equal to the WAL header's, cumulative checksums
// as SQLite computes them; a frame after the first invalid one is never
// used), the newest frame of each page winning; a process keeps where its
// last snapshot of a -wal stopped (the last commit frame, with the
// checksum there) and the next snapshot of the same log — the same file,
// the same header — checks only the frames after it. It never writes, never
// creates a file, never takes a lock (so it can never block OpenClaw) and
// never reads the -shm. Instead the caller checks Snapshot.Unchanged after
// its read: the main file's identity (size, mtime, ctime, inode) and the
// -wal's header and size as they were when the snapshot was taken. A writer
// that checkpointed or restarted the WAL in between changes them; frames
// appended after the snapshot's commit do not touch what it reads.
//
// Anything unexpected — a page type, a pointer or a size that does not fit,
// a cycle in a chain, a text encoding other than UTF-8, a page size SQLite
// does not allow — is ErrCorrupt (or ErrUnsupported), never a panic: the
// caller then reads through SQLite, which decides what the file is. A fault
// on the mapping (the file truncated under it) is recovered and reported as
// ErrChanged.
//
// FuzzReader holds the reader equal to modernc.org/sqlite on generated
// databases (overflow chains, deleted rows and free pages, uncheckpointed
// WAL frames, a torn last frame) and checks that no mutated file makes it
// panic or loop.
package sqlitefile
