package usage

import (
	"bytes"
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
		if _, err := Scan(bytes.NewReader(data), func(Record) {}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkScanNaive parses every line: what the pre-filter saves.
func BenchmarkScanNaive(b *testing.B) {
	data := bigData(b)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		ScanNaive(data, func(Record) {})
	}
}
