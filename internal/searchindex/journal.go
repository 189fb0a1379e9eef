package searchindex

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/openclaw/sessions/internal/fsutil"
)

// The journal file holds what the updates since the manifest was written
// changed, so that a catch-up appends a few hundred bytes instead of
// rewriting a manifest of every source:
//
//	"SXIDXJN2"  magic and format version
//	gen         u64: the generation of the manifest it follows (a journal
//	            of another generation is ignored: the manifest replaced it)
//	records     each: length u32, CRC-32C u32 of the body, body — the new
//	            counters and segments, the sources added or changed, the ids
//	            of the sources removed, every store's record
//	            (manifest.appendBody)
//
// A record is appended (and synced) under the write lock after the
// segments it names are written; a reader applies records in order up to
// the first that is short or does not check (a writer mid-append, or one
// that died: the next writer cuts it off before appending), each to the
// records as the ones before left them (one copy of the manifest's
// records, the changed ones checked). A merge of the catch-ups' segments
// is a record too (the records it moved); the segments it merged away are
// removed after it is synced (a writer that died before leaves them, no
// longer named, to the next merge's clean-up). A record that would take
// the journal past a quarter of the manifest (a merge of every segment
// moves every record) gets a new manifest of the next generation instead.
const jourMagic = "SXIDXJN3"

const jourHeader = len(jourMagic) + 8

// readJournal applies the journal's records of m's generation to m (a new
// manifest when there are any): the manifest as the last complete update
// left it, and the journal's valid length (0: none of this generation).
func readJournal(dir string, m *manifest) (*manifest, int64, error) {
	data, err := fsutil.ReadFileRegular(filepath.Join(dir, "journal"))
	if errors.Is(err, fs.ErrNotExist) {
		return m, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	if len(data) < jourHeader || string(data[:len(jourMagic)]) != jourMagic ||
		binary.LittleEndian.Uint64(data[len(jourMagic):]) != m.gen {
		return m, 0, nil
	}
	end := jourHeader
	for p := jourHeader; p+8 <= len(data); {
		n := int(binary.LittleEndian.Uint32(data[p:]))
		if n > len(data)-p-8 {
			break
		}
		body := data[p+8 : p+8+n]
		if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(data[p+4:]) {
			break
		}
		next, ok := m.apply(body)
		if !ok {
			return nil, 0, &CorruptError{File: "journal", Why: "a record does not decode"}
		}
		m = next
		p += 8 + n
		end = p
	}
	return m, int64(end), nil
}

// apply is m with one journal record applied. m is not used after: its
// records are edited in place when only records were replaced (a
// journal of many records is read in one pass of its records each, not
// a copy of every source's per record).
func (m *manifest) apply(body []byte) (*manifest, bool) {
	next := &manifest{gen: m.gen, uid: m.uid}
	d := &decoder{b: body}
	changed, removed, ok := d.body(next, true)
	if !ok || len(d.b) != 0 {
		return nil, false
	}
	next.srcs = editSrcs(m.srcs, changed, removed)
	if next.nextSrc < m.nextSrc {
		return next, next.check() == "" // every record checked again
	}
	// The records of m were checked: those changed are checked (and the
	// counters and segments, as check does).
	return next, (&manifest{nextSrc: next.nextSrc, nextSeg: next.nextSeg, segs: next.segs, srcs: changed, stores: next.stores}).check() == ""
}

// editSrcs is srcs (sorted by id) with changed and removed applied as
// withChanges applies them: in place when every record changed replaces
// one of its id and none is removed, else a new slice.
func editSrcs(srcs, changed []srcRec, removed []string) []srcRec {
	if len(removed) == 0 {
		at := make([]int, 0, 8)
		for k := range changed {
			i, ok := slices.BinarySearchFunc(srcs, changed[k].id, func(r srcRec, id string) int { return strings.Compare(r.id, id) })
			if !ok {
				return withChanges(srcs, changed, removed)
			}
			at = append(at, i)
		}
		for k, i := range at {
			srcs[i] = changed[k]
		}
		return srcs
	}
	return withChanges(srcs, changed, removed)
}

// appendJournal appends one record to the journal of generation gen,
// whose valid length is end (0: start it), cutting off whatever follows.
// It returns the journal's new length.
func appendJournal(dir string, gen uint64, end int64, body []byte) (int64, error) {
	path := filepath.Join(dir, "journal")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var b []byte
	if end == 0 {
		b = binary.LittleEndian.AppendUint64([]byte(jourMagic), gen)
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(body)))
	b = binary.LittleEndian.AppendUint32(b, crc32.Checksum(body, castagnoli))
	b = append(b, body...)
	if err := f.Truncate(end); err != nil {
		return 0, err
	}
	if _, err := f.WriteAt(b, end); err != nil {
		f.Truncate(end)
		return 0, err
	}
	if err := f.Sync(); err != nil {
		f.Truncate(end)
		return 0, err
	}
	return end + int64(len(b)), nil
}
