package sqlitefile

import (
	"os"
	"sync"

	"github.com/openclaw/sessions/internal/fsutil"
	"github.com/openclaw/sessions/internal/mapfile"
)

// mapped is a file's content: a read-only shared mapping where the
// platform has mmap (unmap releases it), else the bytes read; nil for an
// empty file.
type mapped struct {
	data   []byte
	unmap  func() error
	shared *sharedMap // or a main file's mapping shared between snapshots (mapMain)
}

// mapFile maps (or reads) path whole and returns it with the file's stamp
// taken before.
func mapFile(path string) (mapped, fsutil.Stamp, error) {
	f, err := fsutil.OpenRegular(path)
	if err != nil {
		return mapped{}, fsutil.Stamp{}, err
	}
	defer f.Close()
	return mapOpen(f)
}

// mapOpen maps (or reads) an open regular file whole; a mapping outlives
// the descriptor.
func mapOpen(f *os.File) (mapped, fsutil.Stamp, error) {
	fi, st, err := statRegular(f)
	if err != nil {
		return mapped{}, st, err
	}
	if fi.Size() == 0 {
		return mapped{}, st, nil
	}
	if fi.Size() != int64(int(fi.Size())) {
		return mapped{}, st, unsupportedf("%s is too large to map", f.Name())
	}
	data, err := mapfile.Map(f, int(fi.Size()))
	if err != nil {
		return mapped{}, st, err
	}
	m := mapped{data: data}
	if mapfile.Mmap {
		m.unmap = func() error { return mapfile.Unmap(data) }
	}
	return m, st, nil
}

// statRegular is the stamp of an open file that must be a regular one.
func statRegular(f *os.File) (os.FileInfo, fsutil.Stamp, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fsutil.Stamp{}, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fsutil.Stamp{}, unsupportedf("%s is not a regular file", f.Name())
	}
	return fi, fsutil.StampOf(fi), nil
}

// mains keeps, for each main file given to Open, the mapping its last
// snapshot made, so that the next snapshot of the file unchanged (the same
// stamp) maps nothing and finds the pages it shares with the last ones
// (the b-trees' upper levels) already faulted in: an events read takes a
// snapshot per session, thousands in a search index build, and mapping,
// faulting in and unmapping a 2 GB store each time cost more than the rows
// (~15 µs a fault on some virtual machines). A mapping is unmapped once the
// file has changed and no snapshot uses it any more; the newest stays
// while the process lives, but its resident pages are given back
// (mapfile.Release) once the snapshots closed since the last time read
// releaseAfter pages of it, so that a process's resident memory does not
// grow with the store it reads.
var mains struct {
	sync.Mutex
	m map[*os.File]*sharedMap
}

type sharedMap struct {
	data    []byte
	st      fsutil.Stamp
	refs    int   // snapshots using it
	stale   bool  // a newer mapping of the file replaced it
	touched int64 // pages the snapshots closed since the last Release read
}

// releaseAfter: the pages read through a shared mapping (by the snapshots
// closed) after which its resident pages are given back: 32 MiB of 4 KiB
// pages.
var releaseAfter int64 = 8192

// mapMain is mapOpen for a main file, sharing the mapping of an unchanged
// file between snapshots.
func mapMain(f *os.File) (mapped, fsutil.Stamp, error) {
	fi, st, err := statRegular(f)
	if err != nil {
		return mapped{}, st, err
	}
	if !mapfile.Mmap || fi.Size() == 0 {
		return mapOpen(f)
	}
	mains.Lock()
	defer mains.Unlock()
	if sm := mains.m[f]; sm != nil {
		if sm.st.Equal(st) && int64(len(sm.data)) == fi.Size() {
			sm.refs++
			return mapped{data: sm.data, shared: sm}, st, nil
		}
		sm.stale = true
		delete(mains.m, f)
		if sm.refs == 0 {
			mapfile.Unmap(sm.data)
		}
	}
	m, st2, err := mapOpen(f)
	if err != nil || m.unmap == nil || !st2.Equal(st) {
		return m, st2, err
	}
	sm := &sharedMap{data: m.data, st: st, refs: 1}
	if mains.m == nil {
		mains.m = map[*os.File]*sharedMap{}
	}
	mains.m[f] = sm
	return mapped{data: sm.data, shared: sm}, st, nil
}

// release is the Close of a snapshot of a shared mapping that read touched
// pages of it.
func (sm *sharedMap) release(touched int64) error {
	mains.Lock()
	defer mains.Unlock()
	sm.refs--
	if sm.stale {
		if sm.refs == 0 {
			return mapfile.Unmap(sm.data)
		}
		return nil
	}
	sm.touched += touched
	if sm.touched >= releaseAfter {
		sm.touched = 0
		return mapfile.Release(sm.data)
	}
	return nil
}
