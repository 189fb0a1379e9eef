package search

// SortFound sorts hits as Run returns them: timestamp descending, then
// source order, then position descending.
func SortFound(h []Found) { sortFound(h) }

// AddContext fills Before/After of hits as Run does with context n, reading
// each source that holds one once more (masked under o.Mask); it returns
// the warnings by source, as Run adds them.
func AddContext(srcs []Source, o *Options, hits []Found, n int) [][]string {
	warns := make([][]string, len(srcs))
	addContext(srcs, o, hits, n, warns)
	return warns
}
