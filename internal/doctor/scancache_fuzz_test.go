package doctor

import (
	"encoding/binary"
	"hash/crc32"
	"reflect"
	"testing"
	"time"

	"github.com/openclaw/sessions/internal/fsutil"
)

// FuzzScanCacheDecode: any bytes after a right checksum decode to entries
// or to why not, never a panic or an allocation past the input; what
// decodes encodes back to entries that decode the same.
func FuzzScanCacheDecode(f *testing.F) {
	entries := map[string]scanEntry{
		"/s/agents/main/sessions/a.jsonl": {stamp: fsutil.Stamp{Size: 120, MTime: time.Unix(0, 1795255200123456789), Ino: 77, CTime: 1795255200123456789},
			facts: TranscriptFact{Header: "bad", HeaderID: "a", Lines: 3, Corrupt: 1, FirstCorrupt: 2, Torn: true, TornLine: 3, MaxLine: 99}},
		"/s/agents/main/sessions/b.jsonl": {stamp: fsutil.Stamp{Size: 0, MTime: time.Unix(5, 0)}, facts: TranscriptFact{Header: "missing"}},
	}
	f.Add(encodeScanCache("/s", 256<<10, entries))
	f.Add(encodeScanCache("/s", 256<<10, nil))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, payload []byte) {
		file := append([]byte(scanCacheMagic), binary.LittleEndian.AppendUint32(nil, crc32.Checksum(payload, castagnoli))...)
		got, why := decodeScanCache(append(file, payload...), "/s", 256<<10)
		if why != "" {
			if got != nil {
				t.Fatalf("entries beside %q", why)
			}
			return
		}
		again, why := decodeScanCache(append(append([]byte(scanCacheMagic), 0, 0, 0, 0), encodeScanCache("/s", 256<<10, got)...), "/s", 256<<10)
		if why != "bad checksum" || again != nil {
			t.Fatalf("a zero checksum passed: %q", why)
		}
		re := encodeScanCache("/s", 256<<10, got)
		file = append([]byte(scanCacheMagic), binary.LittleEndian.AppendUint32(nil, crc32.Checksum(re, castagnoli))...)
		again, why = decodeScanCache(append(file, re...), "/s", 256<<10)
		if why != "" || len(again) != len(got) {
			t.Fatalf("re-encoded: %q, %d entries of %d", why, len(again), len(got))
		}
		for p, e := range got {
			a := again[p]
			if !a.stamp.Equal(e.stamp) || !reflect.DeepEqual(a.facts, e.facts) {
				t.Fatalf("%s: %+v, then %+v", p, e, a)
			}
		}
	})
}
