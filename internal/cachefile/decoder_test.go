package cachefile_test

import (
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/openclaw/sessions/internal/cachefile"
)

// TestDecoder: what the encoders of encoding/binary wrote reads back, and
// the first thing that does not fit makes the decoder bad for good.
func TestDecoder(t *testing.T) {
	b := binary.AppendUvarint(nil, math.MaxUint64)
	b = binary.AppendVarint(b, math.MinInt64)
	b = binary.AppendVarint(b, -1)
	b = append(binary.AppendUvarint(b, 5), "héllo"[:5]...)
	b = binary.AppendUvarint(b, 2) // a count of 2 items of 3 bytes
	b = append(b, 9, 1, 2, 3, 4, 5, 6)
	d := cachefile.NewDecoder(b)
	if v := d.Uvarint(); v != math.MaxUint64 {
		t.Errorf("Uvarint %d", v)
	}
	if v := d.Varint(); v != math.MinInt64 {
		t.Errorf("Varint %d", v)
	}
	if v := d.Varint(); v != -1 {
		t.Errorf("Varint %d", v)
	}
	if s := d.Str(); s != "héllo"[:5] {
		t.Errorf("Str %q", s)
	}
	if n := d.Count(3); n != 2 {
		t.Errorf("Count %d", n)
	}
	if v := d.Byte(); v != 9 {
		t.Errorf("Byte %d", v)
	}
	if v := d.Bytes(6); !bytes.Equal(v, []byte{1, 2, 3, 4, 5, 6}) || cap(v) != 6 {
		t.Errorf("Bytes %v (cap %d)", v, cap(v))
	}
	if d.Bad() || d.Len() != 0 {
		t.Fatalf("bad %v, %d bytes left", d.Bad(), d.Len())
	}
	if d.Byte(); !d.Bad() {
		t.Fatal("a byte past the end: not bad")
	}

	for name, read := range map[string]func(*cachefile.Decoder){
		"a cut uvarint":          func(d *cachefile.Decoder) { d.Uvarint() },
		"a cut varint":           func(d *cachefile.Decoder) { d.Varint() },
		"a string past the end":  func(d *cachefile.Decoder) { d.Str() },
		"a count past the end":   func(d *cachefile.Decoder) { d.Count(1) },
		"a huge count":           func(d *cachefile.Decoder) { d.Count(0) },
		"bytes past the end":     func(d *cachefile.Decoder) { d.Bytes(4) },
		"a negative byte count":  func(d *cachefile.Decoder) { d.Bytes(-1) },
		"a varint over 64 bits":  func(d *cachefile.Decoder) { d.Uvarint(); d.Uvarint() },
		"a string of 2^63 bytes": func(d *cachefile.Decoder) { d.Uvarint(); d.Str() },
	} {
		in := []byte{0x80, 0x80, 0x80}
		switch name {
		case "a string past the end", "a count past the end":
			in = []byte{3, 'a', 'b'}
		case "a huge count":
			in = binary.AppendUvarint(nil, math.MaxUint64)
		case "a varint over 64 bits":
			in = []byte{0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}
		case "a string of 2^63 bytes":
			in = binary.AppendUvarint([]byte{0}, 1<<63)
		}
		d := cachefile.NewDecoder(in)
		read(d)
		if !d.Bad() || d.Len() != 0 {
			t.Errorf("%s: bad %v, %d bytes left", name, d.Bad(), d.Len())
		}
		// bad for good: zero values, nothing read
		if d.Uvarint() != 0 || d.Varint() != 0 || d.Str() != "" || d.Count(1) != 0 || d.Byte() != 0 || d.Bytes(0) != nil || !d.Bad() {
			t.Errorf("%s: a bad decoder read on", name)
		}
	}
}
