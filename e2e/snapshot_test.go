package e2e_test

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// hashTree lists "path mode sha256" for every file and symlink under dir.
func hashTree(ts *testscript.TestScript, dir string) string {
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		info, err := d.Info()
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			t, _ := os.Readlink(p)
			lines = append(lines, rel+" link "+t)
		case d.IsDir():
			lines = append(lines, rel+" dir "+info.Mode().String())
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				lines = append(lines, rel+" unreadable "+info.Mode().String())
				return nil
			}
			h := sha256.Sum256(data)
			lines = append(lines, rel+" "+info.Mode().String()+" "+hex.EncodeToString(h[:]))
		}
		return nil
	})
	ts.Check(err)
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func diffSnap(a, b string) string {
	am := map[string]bool{}
	for _, l := range strings.Split(a, "\n") {
		am[l] = true
	}
	bm := map[string]bool{}
	var out []string
	for _, l := range strings.Split(b, "\n") {
		bm[l] = true
		if !am[l] {
			out = append(out, "+ "+l)
		}
	}
	for _, l := range strings.Split(a, "\n") {
		if !bm[l] {
			out = append(out, "- "+l)
		}
	}
	return strings.Join(out, "\n")
}
