package doctor

import (
	"github.com/openclaw/sessions/internal/searchindex"
)

// collectIndex reads what keeps search's index of the state dir from being
// kept in the user's cache dir (searchindex.Health: owner, write access,
// free space, a corrupt index that cannot be rebuilt there). It writes
// nothing. No cache dir at all ($HOME and $XDG_CACHE_HOME unset) is one
// problem too: search can keep no index.
func collectIndex(stateDir string) []searchindex.Problem {
	dir, err := searchindex.DefaultCacheDir()
	if err != nil {
		return []searchindex.Problem{{Check: "index.unwritable", Why: err.Error()}}
	}
	return searchindex.Health(dir, searchindex.StateKey(stateDir))
}

// checkIndex: an index that cannot be kept is worth knowing, never an
// error — search answers by the scan, every time, as fast as it scans.
func checkIndex(snap *Snapshot) []Finding {
	var out []Finding
	for _, p := range snap.Index {
		f := Finding{Severity: SevInfo, Check: p.Check, Path: p.Path}
		const slow = "search cannot keep its index here and scans every transcript for every question (correct, slower)"
		switch p.Check {
		case "index.owner":
			f.Message = p.Why + ": " + slow
			f.Fix = "ls -ld " + sq(p.Path) + ", then make it a directory of yours, or point XDG_CACHE_HOME at one"
		case "index.space":
			f.Message = p.Why + ": " + slow
			f.Fix = "df -h " + sq(p.Path) + " and free some space (or point XDG_CACHE_HOME at another file system)"
		case "index.corrupt":
			f.Message = "the search index is damaged (" + p.Why + ") and cannot be rebuilt where it is: " + slow
			f.Fix = "sessions index --remove, once the cache dir can be written"
		default: // index.unwritable
			f.Message = p.Why + ": " + slow
			f.Fix = "chmod u+rwx " + sq(p.Path) + " (or point XDG_CACHE_HOME at a writable directory)"
			if p.Path == "" {
				f.Fix = "set HOME or XDG_CACHE_HOME"
			}
		}
		out = append(out, f)
	}
	return out
}
