package cachefile

import "encoding/binary"

// Decoder reads a payload of uvarints, varints, strings (a uvarint length,
// then the bytes) and raw bytes. It never panics and never allocates more
// than the payload holds: anything that does not fit (a varint cut short
// or too long, a length or count past the end) makes it bad, and a bad
// decoder reads nothing more — every later read gives a zero value. Check
// Bad once at the end (or wherever a zero would mislead).
type Decoder struct {
	b   []byte
	bad bool
}

// NewDecoder reads payload.
func NewDecoder(payload []byte) *Decoder { return &Decoder{b: payload} }

// Bad reports whether anything read did not fit.
func (d *Decoder) Bad() bool { return d.bad }

// Len is the number of bytes not read yet (0 once bad).
func (d *Decoder) Len() int { return len(d.b) }

func (d *Decoder) fail() { d.bad, d.b = true, nil }

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Varint reads a signed (zig-zag) varint.
func (d *Decoder) Varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

// Count reads a uvarint count of items that take at least minSize bytes
// each (1 if less): a count the rest of the payload cannot hold is bad,
// never an allocation, so that make([]T, Count(…)) is bounded by the
// payload's size.
func (d *Decoder) Count(minSize int) int {
	n := d.Uvarint()
	if n > uint64(len(d.b)/max(minSize, 1)) {
		d.fail()
		return 0
	}
	return int(n)
}

// Str reads a string: a uvarint length, then that many bytes.
func (d *Decoder) Str() string {
	n := d.Count(1)
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

// Byte reads one byte.
func (d *Decoder) Byte() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	v := d.b[0]
	d.b = d.b[1:]
	return v
}

// Bytes reads the next n bytes, which alias the payload (nil when they
// are not there).
func (d *Decoder) Bytes(n int) []byte {
	if n < 0 || n > len(d.b) {
		d.fail()
		return nil
	}
	v := d.b[:n:n]
	d.b = d.b[n:]
	return v
}
