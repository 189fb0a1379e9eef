package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"io"
	"io/fs"
	"testing"
	"time"
)

var testFiles = []file{
	{name: "sessions", mode: 0o755, data: []byte("binary")},
	{name: "README.md", mode: 0o644, data: []byte("# sessions\n")},
	{name: "man/man1/sessions.1", mode: 0o644, data: []byte(".TH SESSIONS 1\n")},
}

var testTime = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

// The tar.gz holds every file under top/ with its mode and the given time,
// its directories first, and the same input gives the same bytes.
func TestTarGz(t *testing.T) {
	a, err := tarGz("sessions_1.0.0_linux_amd64", testFiles, testTime)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := tarGz("sessions_1.0.0_linux_amd64", testFiles, testTime); !bytes.Equal(a, b) {
		t.Error("two runs gave different archives")
	}
	zr, err := gzip.NewReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	got := map[string]string{}
	var order []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		if !h.ModTime.Equal(testTime) || h.Uid != 0 || h.Uname != "" {
			t.Errorf("%s: time %v, uid %d, uname %q", h.Name, h.ModTime, h.Uid, h.Uname)
		}
		got[h.Name] = fs.FileMode(h.Mode).String() + " " + string(data)
		order = append(order, h.Name)
	}
	want := map[string]string{
		"sessions_1.0.0_linux_amd64/":                    "-rwxr-xr-x ",
		"sessions_1.0.0_linux_amd64/man/":                "-rwxr-xr-x ",
		"sessions_1.0.0_linux_amd64/man/man1/":           "-rwxr-xr-x ",
		"sessions_1.0.0_linux_amd64/sessions":            "-rwxr-xr-x binary",
		"sessions_1.0.0_linux_amd64/README.md":           "-rw-r--r-- # sessions\n",
		"sessions_1.0.0_linux_amd64/man/man1/sessions.1": "-rw-r--r-- .TH SESSIONS 1\n",
	}
	if len(got) != len(want) {
		t.Errorf("entries %v; want %d", order, len(want))
	}
	for n, w := range want {
		if got[n] != w {
			t.Errorf("%s = %q, want %q", n, got[n], w)
		}
	}
	if order[0] != "sessions_1.0.0_linux_amd64/" {
		t.Errorf("first entry %q, want the top directory", order[0])
	}
}

func TestZip(t *testing.T) {
	a, err := zipArchive("sessions_1.0.0_windows_amd64", testFiles, testTime)
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(a), int64(len(a)))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range zr.File {
		if !f.Modified.Equal(testTime) {
			t.Errorf("%s: time %v", f.Name, f.Modified)
		}
		if f.FileInfo().IsDir() {
			got[f.Name] = "dir"
			continue
		}
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		got[f.Name] = f.Mode().String() + " " + string(data)
	}
	for n, w := range map[string]string{
		"sessions_1.0.0_windows_amd64/":                    "dir",
		"sessions_1.0.0_windows_amd64/man/man1/":           "dir",
		"sessions_1.0.0_windows_amd64/sessions":            "-rwxr-xr-x binary",
		"sessions_1.0.0_windows_amd64/man/man1/sessions.1": "-rw-r--r-- .TH SESSIONS 1\n",
	} {
		if got[n] != w {
			t.Errorf("%s = %q, want %q (all: %v)", n, got[n], w, got)
		}
	}
}
