package cachefile_test

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/openclaw/sessions/internal/cachefile"
)

// FuzzDecoder: any bytes, read by any sequence of the decoder's reads
// (ops, a byte each), never panic, never read past the end, read what
// encoding/binary reads at the same offset, and never hand out more than
// what is left (a count times its item size included); once bad, a
// decoder stays bad, empty, and reads zero values.
func FuzzDecoder(f *testing.F) {
	var b []byte
	b = binary.AppendUvarint(b, 3)
	b = append(binary.AppendUvarint(b, 5), "hello"...)
	b = binary.AppendVarint(b, -77)
	b = append(b, 1, 2, 3, 4)
	f.Add([]byte{0, 3, 1, 4, 5, 6}, b)
	f.Add([]byte{2, 2, 2}, []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01})
	f.Add([]byte{3}, binary.AppendUvarint(nil, 1<<62))
	f.Add([]byte{}, []byte{})
	f.Fuzz(func(t *testing.T, ops, data []byte) {
		orig := bytes.Clone(data)
		d := cachefile.NewDecoder(data)
		off := 0 // what the decoder has read of data
		for _, op := range ops {
			wasBad := d.Bad()
			rest := orig[off:]
			switch op % 7 {
			case 0:
				v := d.Uvarint()
				if w, n := binary.Uvarint(rest); !d.Bad() && (n <= 0 || v != w || off+n != len(orig)-d.Len()) {
					t.Fatalf("Uvarint at %d: %d, want %d (%d bytes)", off, v, w, n)
				}
			case 1:
				v := d.Varint()
				if w, n := binary.Varint(rest); !d.Bad() && (n <= 0 || v != w || off+n != len(orig)-d.Len()) {
					t.Fatalf("Varint at %d: %d, want %d (%d bytes)", off, v, w, n)
				}
			case 2:
				s := d.Str()
				if !d.Bad() {
					n, k := binary.Uvarint(rest)
					if k <= 0 || n > uint64(len(rest)-k) || s != string(rest[k:k+int(n)]) {
						t.Fatalf("Str at %d: %q", off, s)
					}
				}
			case 3, 4:
				size := int(op / 7 % 64)
				n := d.Count(size)
				if n < 0 || n*max(size, 1) > d.Len() {
					t.Fatalf("Count(%d) = %d with %d bytes left", size, n, d.Len())
				}
			case 5:
				v := d.Byte()
				if !d.Bad() && v != rest[0] {
					t.Fatalf("Byte at %d: %d, want %d", off, v, rest[0])
				}
			case 6:
				n := int(op/7) - 4
				v := d.Bytes(n)
				if !d.Bad() && (len(v) != n || cap(v) != n || !bytes.Equal(v, rest[:n])) {
					t.Fatalf("Bytes(%d) at %d: %x", n, off, v)
				}
			}
			if d.Bad() {
				if d.Len() != 0 {
					t.Fatalf("bad with %d bytes left", d.Len())
				}
			} else if wasBad {
				t.Fatal("bad, then not")
			}
			now := len(orig) - d.Len()
			if now < off || now > len(orig) {
				t.Fatalf("read from %d to %d of %d", off, now, len(orig))
			}
			if !d.Bad() {
				off = now
			}
		}
		if d.Bad() && (d.Uvarint() != 0 || d.Varint() != 0 || d.Str() != "" || d.Count(1) != 0 || d.Byte() != 0 || d.Bytes(1) != nil) {
			t.Fatal("a bad decoder read on")
		}
		if !bytes.Equal(data, orig) {
			t.Fatal("the decoder wrote into its payload")
		}
	})
}
