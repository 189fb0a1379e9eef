package searchindex

import "github.com/openclaw/sessions/internal/search"

// AppendSourceID appends SourceID(src) to dst: a search that looks up
// each of 10,000 sources in a Result (Result.Sources[string(b)], which
// makes no string) allocates nothing for it.
func AppendSourceID(dst []byte, src *search.Source) []byte {
	switch {
	case src.Archive != nil:
		dst = append(dst, "archive\x00"...)
		dst = append(dst, src.DB.Path()...)
		dst = append(dst, 0)
		return append(dst, src.Archive.Name...)
	case src.DB != nil:
		dst = append(dst, "events\x00"...)
		dst = append(dst, src.DB.Path()...)
		dst = append(dst, 0)
		return append(dst, src.SessionID...)
	}
	dst = append(dst, "file\x00"...)
	return append(dst, src.Path...)
}
