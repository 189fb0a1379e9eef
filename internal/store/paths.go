package store

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/openclaw/sessions/internal/apperr"
	"github.com/openclaw/sessions/internal/dirstat"
	"github.com/openclaw/sessions/internal/fsutil"
)

// Resolver finds the transcript of an entry (CONTRACT §2, format §4.1) and
// judges containment on real paths. It caches one realpath per directory.
// The first lookups in a directory are one lstat each; after listLookups of
// them it reads the directory once and answers from the listing, so
// resolving a few hundred rows costs a few hundred lstats and resolving
// thousands costs one readdir of the sessions dir, not a stat per row.
type Resolver struct {
	// SingleLink refuses a transcript file with more than one name (set
	// for a requester's reads: Transcript).
	SingleLink bool
	stateDir   string
	stateReal  string
	dirs       map[string]*dirInfo
	expect     int // how many names the caller said it will look up (Expect)
}

// listLookups is how many lstats a directory gets before it is listed: a
// listing of a 10,000-file sessions dir costs about as much as 4,000 lstats.
var listLookups = 1024

type dirInfo struct {
	path    string
	real    string
	ok      bool                   // the directory can be read
	lookups int                    // lstats so far
	names   map[string]fs.FileMode // entry type bits (symlink, dir, regular), once listed
	// unlisted: a listing failed (the names are lstat'ed one by one)
	unlisted bool
	listNow  bool // list at the first lookup (ExpectIn)
}

// NewResolver returns a resolver for the given (absolute) state dir.
func NewResolver(stateDir string) *Resolver {
	r := &Resolver{stateDir: stateDir, dirs: map[string]*dirInfo{}}
	if real, err := filepath.EvalSymlinks(stateDir); err == nil {
		r.stateReal = real
	} else {
		r.stateReal = filepath.Clean(stateDir)
	}
	return r
}

func (r *Resolver) dir(d string) *dirInfo {
	if di, ok := r.dirs[d]; ok { // as given: no Clean per lookup
		return di
	}
	given := d
	d = filepath.Clean(d)
	if di, ok := r.dirs[d]; ok {
		r.dirs[given] = di
		return di
	}
	di := &dirInfo{path: d}
	if real, err := filepath.EvalSymlinks(d); err == nil {
		di.real = real
		// Readable like a listing would need it (a directory that can be
		// searched but not read lists nothing).
		if f, err := fsutil.OpenDir(d); err == nil {
			di.ok = f.Close() == nil
		}
	}
	r.dirs[d] = di
	r.dirs[given] = di
	return di
}

// Expect tells the resolver that about n transcripts are about to be
// resolved (a listing of n rows): from listLookups on, a directory is
// listed at its first lookup rather than after listLookups lstats. The
// answers are the same either way.
func (r *Resolver) Expect(n int) { r.expect = max(r.expect, n) }

// listed lists di at its first lookup once listing is due (after
// listLookups lstats, or at once when expect, the resolver's Expect, is
// listLookups or more, or ExpectIn said so) and reports whether its names
// are listed.
func (di *dirInfo) listed(expect int) bool {
	if di.names == nil && !di.unlisted && (di.lookups >= listLookups || expect >= listLookups || di.listNow) {
		// a directory that cannot be listed is looked up name by name
		di.names, _ = dirstat.ListTypes(di.path)
		di.unlisted = di.names == nil
	}
	return di.names != nil
}

// ExpectIn tells the resolver that about n names are about to be looked
// up in dir, a directory of about names entries (as a listing the caller
// made says; transcripts.Agent.Files for a search): dir is listed at its
// first lookup when that costs less than n lstats — a listing costs about
// an lstat per listPerLstat names (BenchmarkListTypes10k) — rather than
// after listLookups of them. The answers are the same either way.
func (r *Resolver) ExpectIn(dir string, n, names int) {
	if n > 0 && n*listPerLstat >= names {
		r.dir(dir).listNow = true
	}
}

// listPerLstat is how many names a listing reads for the cost of one
// lstat (BenchmarkListTypes10k: dirstat.ListTypes of 10,000 names took the
// time of 2,500-3,100 lstats by path), rounded down.
const listPerLstat = 3

// mode returns the type bits of the entry name in di, and whether it exists;
// expect is the resolver's (Expect).
func (di *dirInfo) mode(name string, expect int) (fs.FileMode, bool) {
	if di.listed(expect) {
		m, ok := di.names[name]
		return m, ok
	}
	di.lookups++
	fi, err := os.Lstat(filepath.Join(di.path, name))
	if err != nil {
		return 0, false
	}
	return fi.Mode().Type(), true
}

// joinName is filepath.Join(dir, name) for a dir already Clean and a name
// that is one clean element (a valid session id and ".jsonl"), without
// cleaning the result again: a list of 10,000 sessions resolves 10,000
// transcripts, and the three Cleans each took were a tenth of its time.
func joinName(dir, name string) string { return joinNameExt(dir, name, "") }

// joinNameExt is joinName(dir, name+ext), in one string.
func joinNameExt(dir, name, ext string) string {
	// a volume alone or with ".", "." or a root ("C:", "C:.", "/", `\host\share\`): Join's rules
	if rest := dir[len(filepath.VolumeName(dir)):]; rest == "" || rest == "." || os.IsPathSeparator(rest[len(rest)-1]) {
		return filepath.Join(dir, name+ext)
	}
	return dir + string(filepath.Separator) + name + ext
}

// transcriptIn is realFile(joinName(di.path, id+".jsonl")) for a valid session id,
// without the name made as a string when di is listed (the lookup's key
// is made on the stack) and with the path made in one string: per-row
// work for a list of 10,000 rows.
func (r *Resolver) transcriptIn(di *dirInfo, id string) string {
	if !di.ok {
		return ""
	}
	var mode fs.FileMode
	var ok bool
	if di.listed(r.expect) {
		var kb [96]byte
		key := append(append(kb[:0], id...), ".jsonl"...)
		mode, ok = di.names[string(key)] // no string made for a map lookup
	} else {
		mode, ok = di.mode(id+".jsonl", r.expect)
	}
	switch {
	case !ok:
		return ""
	case mode&fs.ModeSymlink != 0:
		return r.realFile(joinNameExt(di.path, id, ".jsonl"))
	case mode.IsDir():
		return ""
	}
	return joinNameExt(di.real, id, ".jsonl")
}

// splitPath is filepath.Dir(p) and filepath.Base(p), the dir as p names it
// (Resolver.dir cleans it once, when it is first seen) where p has a
// separator neither first nor last: no Clean per sessionFile of a list.
func splitPath(p string) (dir, base string) {
	if i := strings.LastIndexByte(p, '/'); filepath.Separator == '/' && i > 0 && i < len(p)-1 {
		return p[:i], p[i+1:]
	}
	return filepath.Dir(p), filepath.Base(p)
}

// realFile returns the real path of an existing file, or "" when it does not
// exist (or is not a regular file once symlinks are followed).
func (r *Resolver) realFile(p string) string {
	dir, base := splitPath(p)
	di := r.dir(dir)
	if !di.ok {
		return ""
	}
	mode, ok := di.mode(base, r.expect)
	if !ok {
		return ""
	}
	if mode&fs.ModeSymlink == 0 {
		if mode.IsDir() {
			return ""
		}
		// base is one element: "." and ".." (and a root's "/") are
		// directories, answered above
		return joinName(di.real, base)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return ""
	}
	if st, err := os.Stat(real); err != nil || st.IsDir() {
		return ""
	}
	return real
}

func within(p, root string) bool {
	if root == "" {
		return false
	}
	if p == root {
		return true
	}
	// p has the prefix root+separator (root's own trailing one aside),
	// without building that string for every row.
	r := strings.TrimSuffix(root, string(filepath.Separator))
	return len(p) > len(r) && p[len(r)] == filepath.Separator && p[:len(r)] == r
}

// Inside reports whether a real path lies inside the state dir or inside the
// store's own directory (which counts as inside even when session.store puts
// it elsewhere).
func (r *Resolver) Inside(real, storeDir string) bool {
	if within(real, r.stateReal) {
		return true
	}
	if sd := r.dir(storeDir); sd.real != "" && within(real, sd.real) {
		return true
	}
	return false
}

// Transcript is where an entry's transcript is.
type Transcript struct {
	Path   string // absolute, real when it exists
	Exists bool
	// Fallback says why Path is not the entry's sessionFile, when it is not.
	Fallback string
}

// ErrOutside marks a transcript whose real path lies outside the state dir.
var ErrOutside = errors.New("transcript outside the state dir")

// ErrLinked marks a transcript file with more than one name (a hard link),
// refused where the Resolver is SingleLink: its other name may lie outside
// the state dir, where no path check can see it. It is also ErrOutside.
var ErrLinked = fmt.Errorf("transcript with more than one link: %w", ErrOutside)

// Linked reports how many names the file at real has when that is more
// than one (0 otherwise, or when it cannot be told).
func Linked(real string) uint64 {
	fi, err := os.Stat(real)
	if err != nil {
		return 0
	}
	if n, ok := fsutil.Links(fi); ok && n > 1 {
		return n
	}
	return 0
}

// Transcript resolves the transcript of e in st (CONTRACT §2): sessionFile
// if it exists (and is inside), else <store dir>/<sessionId>.jsonl, else the
// per-agent default <agentSessionsDir>/<sessionId>.jsonl. A sessionFile that
// is missing or whose real path is outside falls back to <store dir>/<its
// base name> when that exists; a transcript found only outside is ErrOutside
// (exit 1), never opened. When nothing exists, the path a new transcript
// would get is returned with Exists=false. Where r is SingleLink (a
// requester's reads), a transcript file with more than one name is refused
// as one outside (ErrLinked, exit 1), never opened.
func (r *Resolver) Transcript(st *Store, e *Entry, agentSessionsDir string) (Transcript, error) {
	t, err := r.transcript(st, e, agentSessionsDir)
	if err != nil || !r.SingleLink || !t.Exists {
		return t, err
	}
	if n := Linked(t.Path); n > 0 {
		return Transcript{}, apperr.Errorf("session %s: transcript %s has %d links (another name may lie outside the state dir); not opened", e.Key, t.Path, n).Wrap(ErrLinked)
	}
	return t, nil
}

func (r *Resolver) transcript(st *Store, e *Entry, agentSessionsDir string) (Transcript, error) {
	id := e.SessionID
	if err := ValidSessionID(id); err != nil {
		return Transcript{}, apperr.Errorf("session %s: %v", e.Key, err)
	}
	storeDir := st.Dir
	var outside, reason string
	if sf := strings.TrimSpace(e.SessionFile); sf != "" {
		if !filepath.IsAbs(sf) {
			sf = filepath.Join(storeDir, sf)
		}
		real := r.realFile(sf)
		if real != "" && r.Inside(real, storeDir) {
			return Transcript{Path: real, Exists: true}, nil
		}
		if real != "" {
			outside = real
			reason = "sessionFile " + sf + " lies outside the state dir"
		} else {
			reason = "sessionFile " + sf + " does not exist"
		}
		// Hosts migrated from another home (~/.clawdbot, another user) keep
		// absolute paths: the same file name in the store dir is the one.
		if base := filepath.Base(sf); ValidSessionID(base) == nil && base != id+".jsonl" {
			if alt := r.realFile(filepath.Join(storeDir, base)); alt != "" && r.Inside(alt, storeDir) {
				return Transcript{Path: alt, Exists: true, Fallback: reason}, nil
			}
		}
	}
	// <store dir>/<id>.jsonl, then <agentSessionsDir>/<id>.jsonl when that
	// is another directory
	sdi := r.dir(storeDir)
	for i := range 2 {
		c := sdi
		if i == 1 {
			if agentSessionsDir == "" {
				break
			}
			if c = r.dir(agentSessionsDir); c.path == sdi.path {
				break
			}
		}
		if real := r.transcriptIn(c, id); real != "" {
			if !r.Inside(real, storeDir) {
				if outside == "" {
					outside = real
				}
				continue
			}
			return Transcript{Path: real, Exists: true, Fallback: reason}, nil
		}
	}
	if outside != "" {
		return Transcript{}, apperr.Errorf("session %s: transcript %s lies outside the state dir %s; not opened", e.Key, outside, r.stateReal).Wrap(ErrOutside)
	}
	di := sdi
	dir := storeDir
	if di.real != "" {
		dir = di.real
	}
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return Transcript{Path: filepath.Join(dir, id+".jsonl"), Fallback: reason}, nil
}
