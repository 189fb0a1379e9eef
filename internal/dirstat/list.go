package dirstat

import (
	"io/fs"
	"os"
)

// ListTypes names every entry of dir (never "." or "..") with its type
// bits, as os.File.ReadDir would give them (a link is a link, never
// followed), for a caller that looks names up in a directory rather than
// walking it: store.Resolver, which resolves thousands of transcripts of
// one sessions dir. On Linux it reads the kernel's records (getdents64)
// into one buffer and makes one string of all the names, where ReadDir
// makes an os.DirEntry and a string per name; a name whose type the file
// system does not give (DT_UNKNOWN) is lstat'ed on the directory's handle,
// and left out when it vanished since the listing (as ReadDir leaves it
// out). Elsewhere it is ReadDir. The error is the directory's (missing,
// not a directory, unreadable) or an lstat's other than "not found".
func ListTypes(dir string) (map[string]fs.FileMode, error) {
	return listTypes(dir)
}

// listReadDir is ListTypes by os.File.ReadDir.
func listReadDir(d *os.File) (map[string]fs.FileMode, error) {
	ents, err := d.ReadDir(-1) // unsorted: only looked up
	if err != nil {
		return nil, err
	}
	m := make(map[string]fs.FileMode, len(ents))
	for _, e := range ents {
		m[e.Name()] = e.Type()
	}
	return m, nil
}
