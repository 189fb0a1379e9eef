package usage

import (
	"encoding/binary"
	"errors"
	"math"

	"github.com/openclaw/sessions/internal/cachefile"
)

// The cache payload (in internal/cachefile's envelope) is a plain binary
// encoding (a reflection-based one such as gob decodes the 200,000 records
// of 1 GB of transcripts in ~100 ms; this one in a few): uvarint counts
// and lengths, strings as length + bytes, records as fixed 45-byte
// little-endian rows.
const recordSize = 8 + 8 + 8 + 5*4 + 1

var errShort = errors.New("truncated payload")

type encoder struct{ b []byte }

func (e *encoder) uv(v uint64)  { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) sv(v int64)   { e.b = binary.AppendVarint(e.b, v) }
func (e *encoder) str(s string) { e.uv(uint64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) flag(v bool)  { e.b = append(e.b, byte(btoi(v))) }
func (e *encoder) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *encoder) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *encoder) skips(s Skips) {
	e.uv(uint64(s.InvalidUTF8))
	e.uv(uint64(s.Corrupt))
	e.uv(uint64(s.Torn))
	e.uv(uint64(s.Oversize))
}

func encodePayload(f *cacheFile) []byte {
	e := &encoder{b: make([]byte, 0, 1<<16)}
	e.uv(uint64(f.Version))
	e.str(f.StateDir)
	e.uv(uint64(len(f.Entries)))
	for path, ent := range f.Entries {
		e.str(path)
		st := ent.Stamp
		e.uv(st.Dev)
		e.uv(st.Ino)
		e.sv(st.Size)
		e.sv(st.MtimeNano)
		e.str(st.Extra)
		e.uv(uint64(len(ent.Parts)))
		for _, p := range ent.Parts {
			e.str(p.SessionID)
			e.str(p.Key)
			e.flag(p.Archived)
			e.skips(p.Skips)
			e.uv(uint64(len(p.Models)))
			for _, m := range p.Models {
				e.str(m.Provider)
				e.str(m.Model)
			}
			e.uv(uint64(len(p.Records)))
			for _, r := range p.Records {
				e.u64(uint64(r.TS))
				e.u64(uint64(r.CostMicros))
				e.u64(r.ID)
				e.u32(r.Input)
				e.u32(r.Output)
				e.u32(r.CacheRead)
				e.u32(r.CacheWrite)
				e.u32(r.Model)
				e.flag(r.HasCost)
			}
		}
	}
	return e.b
}

// decoder reads a payload: cachefile's Decoder, which goes bad on
// anything past the end (errShort), and the first value that decoded but
// is out of range (a flag, a count).
type decoder struct {
	*cachefile.Decoder
	err error
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

// error is the first thing that did not fit (nil: none).
func (d *decoder) error() error {
	if d.err != nil {
		return d.err
	}
	if d.Bad() {
		return errShort
	}
	return nil
}

func (d *decoder) flag() bool {
	v := d.Byte()
	if v > 1 {
		d.fail(errors.New("bad flag"))
	}
	return v == 1
}

func (d *decoder) skips() Skips {
	return Skips{InvalidUTF8: d.int(), Corrupt: d.int(), Torn: d.int(), Oversize: d.int()}
}

func (d *decoder) int() int {
	v := d.Uvarint()
	if v > math.MaxInt32 {
		d.fail(errors.New("count out of range"))
	}
	return int(v)
}

func decodePayload(b []byte) (*cacheFile, error) {
	d := &decoder{Decoder: cachefile.NewDecoder(b)}
	f := &cacheFile{Version: d.int()}
	if d.error() == nil && f.Version != cacheVersion {
		return f, nil // foreign: the caller says so
	}
	f.StateDir = d.Str()
	n := d.Count(8)
	f.Entries = make(map[string]cacheEntry, n)
	for range n {
		if d.error() != nil {
			break
		}
		path := d.Str()
		var ent cacheEntry
		ent.Stamp = Stamp{Dev: d.Uvarint(), Ino: d.Uvarint(), Size: d.Varint(), MtimeNano: d.Varint(), Extra: d.Str()}
		np := d.Count(8)
		ent.Parts = make([]Part, 0, np)
		for range np {
			var p Part
			p.SessionID, p.Key, p.Archived, p.Skips = d.Str(), d.Str(), d.flag(), d.skips()
			nm := d.Count(2)
			if nm > 0 {
				p.Models = make([]Model, nm)
			}
			for i := range p.Models {
				p.Models[i] = Model{d.Str(), d.Str()}
			}
			nr := d.Count(recordSize)
			if d.error() != nil {
				break
			}
			if nr > 0 {
				p.Records = make([]Record, nr)
			}
			raw := d.Bytes(nr * recordSize)
			le := binary.LittleEndian
			for i := range p.Records {
				x := raw[i*recordSize:]
				r := &p.Records[i]
				r.TS, r.CostMicros, r.ID = int64(le.Uint64(x)), int64(le.Uint64(x[8:])), le.Uint64(x[16:])
				r.Input, r.Output, r.CacheRead, r.CacheWrite, r.Model = le.Uint32(x[24:]), le.Uint32(x[28:]), le.Uint32(x[32:]), le.Uint32(x[36:]), le.Uint32(x[40:])
				if x[44] > 1 {
					return nil, errors.New("bad flag")
				}
				r.HasCost = x[44] == 1
				if int(r.Model) >= len(p.Models) {
					return nil, errors.New("record names an unknown model")
				}
			}
			ent.Parts = append(ent.Parts, p)
		}
		f.Entries[path] = ent
	}
	if err := d.error(); err != nil {
		return nil, err
	}
	if d.Len() != 0 {
		return nil, errors.New("trailing bytes")
	}
	return f, nil
}
