// Command dist builds the release archives (`make dist`): for each target
// a cgo-free, stamped binary packed with the shell completions, the man
// pages, README.md and LICENSE into sessions_<version>_<os>_<arch>.tar.gz
// (.zip for Windows), and checksums.txt beside them (`sha256sum -c`).
//
// It needs nothing but the go command and the module cache: the archives
// are written with archive/tar, compress/gzip and archive/zip. Entries are
// sorted and carry the commit's date and no owner, so the same commit gives
// the same archives.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

const versionPkg = "github.com/openclaw/sessions/internal/cmd/version"

// file is one archive entry: its path under the archive's top directory.
type file struct {
	name string
	mode fs.FileMode
	data []byte
}

func main() {
	var (
		version = flag.String("version", "", "the version to stamp and name the archives with (required)")
		commit  = flag.String("commit", "", "the full commit hash to stamp")
		date    = flag.String("date", "", "the commit's date, RFC 3339: stamped, and the archive entries' time")
		targets = flag.String("targets", "linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64", "space-separated GOOS/GOARCH `list`")
		manDir  = flag.String("man", "docs/man", "the man pages (make man) in `DIR`")
		out     = flag.String("o", "dist", "write the archives into `DIR` (emptied first)")
	)
	flag.Parse()
	if err := run(*version, *commit, *date, strings.Fields(*targets), *manDir, *out); err != nil {
		fmt.Fprintln(os.Stderr, "dist:", err)
		os.Exit(1)
	}
}

func run(version, commit, date string, targets []string, manDir, out string) error {
	if version == "" {
		return fmt.Errorf("-version is required")
	}
	mtime := time.Now().UTC().Truncate(time.Second)
	if date != "" {
		t, err := time.Parse(time.RFC3339, date)
		if err != nil {
			return fmt.Errorf("-date: %v", err)
		}
		mtime = t.UTC()
	}
	common, err := commonFiles(manDir)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "sessions-dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)

	ldflags := "-s -w -X " + versionPkg + ".Version=" + version
	if commit != "" {
		ldflags += " -X " + versionPkg + ".Commit=" + commit
	}
	if date != "" {
		ldflags += " -X " + versionPkg + ".Date=" + date
	}
	var sums []string
	for _, t := range targets {
		goos, goarch, ok := strings.Cut(t, "/")
		if !ok {
			return fmt.Errorf("target %q: want GOOS/GOARCH", t)
		}
		exe := "sessions"
		if goos == "windows" {
			exe += ".exe"
		}
		bin := filepath.Join(tmp, goos+"_"+goarch, exe)
		start := time.Now()
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", ldflags, "-o", bin, "./cmd/sessions")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go build for %s: %v", t, err)
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		files := append([]file{{name: exe, mode: 0o755, data: data}}, common...)
		base := fmt.Sprintf("sessions_%s_%s_%s", strings.TrimPrefix(version, "v"), goos, goarch)
		var archive []byte
		name := base + ".tar.gz"
		if goos == "windows" {
			name = base + ".zip"
			archive, err = zipArchive(base, files, mtime)
		} else {
			archive, err = tarGz(base, files, mtime)
		}
		if err != nil {
			return fmt.Errorf("%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(out, name), archive, 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(archive)
		sums = append(sums, hex.EncodeToString(sum[:])+"  "+name+"\n")
		fmt.Printf("%-44s %6.1f MB  (%s)\n", name, float64(len(archive))/(1<<20), time.Since(start).Round(100*time.Millisecond))
	}
	sort.Slice(sums, func(i, j int) bool { return sums[i][66:] < sums[j][66:] })
	return os.WriteFile(filepath.Join(out, "checksums.txt"), []byte(strings.Join(sums, "")), 0o644)
}

// commonFiles are what every archive holds beside the binary: README.md,
// LICENSE, completions/ and the man pages under man/ (man/man1/…).
func commonFiles(manDir string) ([]file, error) {
	var files []file
	for _, n := range []string{"README.md", "LICENSE"} {
		data, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		files = append(files, file{name: n, mode: 0o644, data: data})
	}
	add := func(dir, under string) error {
		n := 0
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, err := filepath.Rel(dir, p)
			if err != nil {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			files = append(files, file{name: path.Join(under, filepath.ToSlash(rel)), mode: 0o644, data: data})
			n++
			return nil
		})
		if err == nil && n == 0 {
			err = fmt.Errorf("%s is empty", dir)
		}
		return err
	}
	if err := add("completions", "completions"); err != nil {
		return nil, err
	}
	if err := add(manDir, "man/man1"); err != nil {
		return nil, fmt.Errorf("man pages (make man): %v", err)
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	return files, nil
}

// tarGz packs files under top/ into a gzipped tar.
func tarGz(top string, files []file, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	zw.ModTime = mtime
	tw := tar.NewWriter(zw)
	for _, d := range dirsOf(top, files) {
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: mtime, Format: tar.FormatPAX}); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: top + "/" + f.name, Mode: int64(f.mode), Size: int64(len(f.data)), ModTime: mtime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := tw.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// zipArchive packs files under top/ into a zip (deflated).
func zipArchive(top string, files []file, mtime time.Time) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, d := range dirsOf(top, files) {
		h := &zip.FileHeader{Name: d + "/", Modified: mtime}
		h.SetMode(fs.ModeDir | 0o755)
		if _, err := zw.CreateHeader(h); err != nil {
			return nil, err
		}
	}
	for _, f := range files {
		h := &zip.FileHeader{Name: top + "/" + f.name, Method: zip.Deflate, Modified: mtime}
		h.SetMode(f.mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// dirsOf lists top and every directory the files sit in, parents first.
func dirsOf(top string, files []file) []string {
	seen := map[string]bool{top: true}
	dirs := []string{top}
	for _, f := range files {
		var parts []string
		for d := path.Dir(f.name); d != "."; d = path.Dir(d) {
			parts = append([]string{d}, parts...)
		}
		for _, d := range parts {
			if !seen[top+"/"+d] {
				seen[top+"/"+d] = true
				dirs = append(dirs, top+"/"+d)
			}
		}
	}
	sort.Strings(dirs)
	return dirs
}
