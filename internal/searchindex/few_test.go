package searchindex

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"

	"github.com/openclaw/sessions/internal/search"
)

// TestRareWordSkipsCommonLists: once a rare word's rarest trigrams leave a
// handful of documents, the query reads no more posting lists many times
// as long (its common trigrams') — not one chunk of them is checked — and
// the documents it keeps are a superset of the intersection, which the
// text decides.
func TestRareWordSkipsCommonLists(t *testing.T) {
	var b builder
	// "are" in every document: its list a bitmap of n bits, two chunks
	const n = maxSegDocs - 1
	for i := range n {
		text := "they are here"
		if i == 7000 || i == 90000 {
			text = "they zqxare here" // the rare word, and "are"
		}
		b.add(doc{src: 1, pos: int64(i)}, docTrigrams(nil, text), len(text), appendRecord(nil, "m", text, ""))
	}
	var buf bytes.Buffer
	if err := b.write(&buf); err != nil {
		t.Fatal(err)
	}
	s, err := parseSegment(1, "seg", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	are, err := s.find(entryTri([]byte("ARE")))
	if err != nil || are < 0 {
		t.Fatalf("no trigram \"are\": %d %v", are, err)
	}
	n0, err := plan(search.Query{Pattern: "zqxare"})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := s.eval(n0)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids, []uint32{7000, 90000}) {
		t.Fatalf("candidates %v, want [7000 90000]", ids)
	}
	// the bytes of the list of "are": none of its whole chunks checked
	e, _ := s.entry(are)
	off := s.postAt + int(binary.LittleEndian.Uint64(e[3:]))
	next, _ := s.entry(are + 1)
	end := s.postAt + int(binary.LittleEndian.Uint64(next[3:]))
	if end-off < 2*chunkSize {
		t.Fatalf("the list of \"are\" is %d bytes: too short for the test", end-off)
	}
	for k := off/chunkSize + 1; k < end/chunkSize; k++ {
		if s.checked[k].Load() {
			t.Fatalf("chunk %d of the list of \"are\" was read", k)
		}
	}
}
