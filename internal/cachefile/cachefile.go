// Package cachefile is the file of a cache the tool keeps for itself in
// the user's cache dir (os.UserCacheDir()/sessions/…, never in OpenClaw's
// state): usage's per-file cache and doctor's scan cache. A file is a
// magic line naming the cache, the CRC-32C (Castagnoli) of the payload as
// a little-endian uint32, then the payload, which its cache encodes as it
// likes and reads back with a Decoder.
//
// The rule: a cache is never trusted, only replaced. A missing, damaged
// (truncated, bad checksum, undecodable) or foreign (another magic,
// another version) file is ignored with a reason its cache says at debug
// level, never an error to the user, and the next Write replaces it.
//
// The CRC detects a damaged file at memory speed; it is no security
// boundary (the file lives in the user's own cache dir). The store
// cache's disk tier (internal/storecache) and the search index
// (internal/searchindex) keep their own formats and readers.
package cachefile

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/openclaw/sessions/internal/fsutil"
)

// Foreign is the reason Read and Decode give for a file that does not
// start with the cache's magic: a file of something else, which its cache
// words for people ("not a usage cache").
const Foreign = "foreign magic"

// The other reasons, which a cache passes on as they are.
const (
	Truncated   = "truncated"    // the magic, then less than a checksum
	BadChecksum = "bad checksum" // the payload is not what was written
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// checksum is the CRC-32C of payload, as a file holds it.
func checksum(payload []byte) uint32 { return crc32.Checksum(payload, castagnoli) }

// Encode is the file of payload: magic, checksum, payload.
func Encode(magic string, payload []byte) []byte {
	b := make([]byte, 0, len(magic)+4+len(payload))
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, checksum(payload))
	return append(b, payload...)
}

// Decode is the payload of a file's bytes, or why the file is not used
// (Foreign, Truncated, BadChecksum) and a nil payload. A payload that is
// used is never nil (an empty one is empty), and aliases data.
func Decode(data []byte, magic string) (payload []byte, ignored string) {
	if !bytes.HasPrefix(data, []byte(magic)) {
		return nil, Foreign
	}
	data = data[len(magic):]
	if len(data) < 4 {
		return nil, Truncated
	}
	sum, payload := binary.LittleEndian.Uint32(data), data[4:]
	if checksum(payload) != sum {
		return nil, BadChecksum
	}
	return payload, ""
}

// Read reads the cache file at path (a regular file only: a FIFO, a
// device or a directory in its place is refused without blocking, by
// fsutil.ReadFileRegular) and returns its payload. payload is nil when
// there is nothing to use: then ignored is "" for a missing file, the
// read error's text for another that cannot be read, or Decode's reason.
func Read(path, magic string) (payload []byte, ignored string) {
	data, err := fsutil.ReadFileRegular(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, ""
		}
		return nil, err.Error()
	}
	return Decode(data, magic)
}

// Write replaces the cache file at path with payload: its dir made (0700)
// if it is not there, the file (0600) written whole to a temporary file
// beside it, synced and renamed over the old one (fsutil.WriteFileAtomic),
// so that a reader sees the old cache or the new one, never a mix.
func Write(path, magic string, payload []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, Encode(magic, payload), 0o600)
}
