//go:build !unix

package iostreams

// OutClosed is nil where a closed pipe is only seen at the next write.
func (s *IOStreams) OutClosed() <-chan struct{} { return nil }
