package search

import (
	"errors"
	"io"
)

// EachLine calls fn with every line of a file or archive source (a
// <sessionId>.jsonl, a .reset/.deleted copy, zstd or not, or an archive a
// 2026.9 store keeps) and its offset in the decompressed stream, one at a
// time through a bounded buffer; lines longer than maxLine are passed
// over. fn's error stops the read and is returned.
func EachLine(src *Source, maxLine int, fn func(pos int64, line []byte) error) error {
	r, closeFn, err := openTranscript(src)
	if err != nil {
		return err
	}
	defer closeFn()
	var fnErr error
	err = eachLine(&stopReader{r: r, err: &fnErr}, maxLine, func(pos int64, line []byte) {
		if fnErr == nil {
			fnErr = fn(pos, line)
		}
	})
	if fnErr != nil {
		return fnErr
	}
	return err
}

// stopReader ends its reader once err is set.
type stopReader struct {
	r   io.Reader
	err *error
}

var errStopped = errors.New("stopped")

func (s *stopReader) Read(p []byte) (int, error) {
	if *s.err != nil {
		return 0, errStopped
	}
	return s.r.Read(p)
}
