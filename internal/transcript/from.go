package transcript

import (
	"errors"
	"fmt"
	"io"
)

// ErrShrunk reports that a transcript is now shorter than the offset a
// follower had read up to: it was truncated or replaced, so the offset
// means nothing any more.
var ErrShrunk = errors.New("transcript shrank")

// ReadMessagesFrom reads the messages of the lines that start at or after
// off, in file order, with the same line rules as ReadMessages (Limit is
// ignored). off must be a line boundary: 0, or a Result.Size returned by an
// earlier read of the same file. Result.Size is where the next read should
// start: the file's size, or the start of its last line when that line is
// still being written (no "\n" yet and not parseable), so a follower reads
// a torn line once, when it is complete. Result.Header is not set.
//
// A file shorter than off is ErrShrunk; a missing file wraps fs.ErrNotExist.
func ReadMessagesFrom(path string, off int64, opts Options) (*Result, error) {
	f, size, err := open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if off < 0 {
		off = 0
	}
	if size < off {
		return nil, fmt.Errorf("read transcript %s: %w (size %d, offset %d)", path, ErrShrunk, size, off)
	}
	opts.Limit = 0
	sec := &namedSection{SectionReader: io.NewSectionReader(f, off, size-off), name: path}
	res, err := readForward(sec, size-off, opts)
	if err != nil {
		return nil, fmt.Errorf("read transcript %s: %w", path, err)
	}
	res.Size += off
	return res, nil
}

// namedSection is a window of a file that still names the file in warnings.
type namedSection struct {
	*io.SectionReader
	name string
}

func (n *namedSection) Name() string { return n.name }
