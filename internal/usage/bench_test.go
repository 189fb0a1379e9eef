package usage

import (
	"bytes"
	"os"
	"testing"
)

// bigData repeats the fixture transcripts (and the hard cases) to about 16 MB.
func bigData(b *testing.B) []byte {
	unit := append(fixtureData(b), []byte("\n")...)
	unit = append(unit, hard()[:bytes.LastIndexByte(hard(), '\n')+1]...)
	return bytes.Repeat(unit, 16<<20/len(unit)+1)
}

// BenchmarkScan is the fast path: pre-filtered, buffered.
func BenchmarkScan(b *testing.B) {
	data := bigData(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Scan(bytes.NewReader(data), func(Message) {}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanNaive parses every line: what the pre-filter saves.
func BenchmarkScanNaive(b *testing.B) {
	data := bigData(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		ScanNaive(data, func(Message) {})
	}
}

// BenchmarkScanFile scans $SESSIONS_USAGE_BENCH_FILE (e.g. the 1 GB
// transcript of scripts/bench_usage.sh); skipped when unset.
func BenchmarkScanFile(b *testing.B) {
	path := os.Getenv("SESSIONS_USAGE_BENCH_FILE")
	if path == "" {
		b.Skip("SESSIONS_USAGE_BENCH_FILE not set")
	}
	fi, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(fi.Size())
	for b.Loop() {
		if _, err := FileUnit(path, fi, "s", false).Read(); err != nil {
			b.Fatal(err)
		}
	}
}
