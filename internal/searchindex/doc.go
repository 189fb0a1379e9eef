// Package searchindex is the search index of issue 36: per state dir, a
// trigram index of the messages search reads, kept in the user's cache dir,
// from which a query gets the few messages that may match (candidates) and
// runs search's real match on those only, so that its answer is the scan's.
//
// # Why our own trigram index
//
// Two engines were measured on one generated state of both eras
// (internal/testutil/bigstate; make bench-search, docs/PERFORMANCE.md,
// "Search index"): this package, trigram postings as Google Code Search and
// zoekt keep them, and SQLite FTS5 with its trigram tokenizer (modernc, the
// driver the project already has). On 10,000 sessions (64 MiB) ours built in
// a fifth of FTS5's time and takes a quarter of its disk (0.37× the
// transcripts against 1.38×: FTS5 must keep positions for the phrase
// queries a substring needs; 0.49× since segments also keep the messages'
// text, compressed), and spent less CPU on every query with hits
// to verify (a rare one took under a millisecond on both); it folds case exactly as Go's (?i) does, over bytes, so any
// script — CJK, Cyrillic, emoji — selects by its own bytes, where FTS5's
// tokenizer, folding over characters, over-selected CJK and Cyrillic by
// 13%. FTS5 builds in less memory (its b-tree spills to disk; ours sorts the
// trigram pairs of 4 MiB of text at a time). bleve v2 was not measured: an
// index of words, it answers substrings only through n-grams, FTS5's
// trigrams at more cost. Ours is also the only one whose
// file format we own: checked (magic, version, lengths, CRC-32C; the text
// blocks each by its own CRC-32C as it is read) before use,
// written once, replaced atomically, so a damaged index is an error and
// never a wrong answer.
//
// # What is indexed
//
// A document is one message as search.Extract (or, for an agent's index,
// search.ExtractMasked under the agent's mask: OpenMasked) gives it, with
// tool results and calls: its trigrams are those of its searchable text with
// tool calls and without (an assistant's text differs with
// --include-tools), case-folded rune by rune to the smallest rune of its
// simple folding orbit (what (?i) matches). Each keeps where to read it
// again — its line's byte offset, or its event's seq — and what the filters
// need without reading it: role, timestamp, whether it has tool calls.
//
// # On disk
//
// <cacheDir>/<StateKey(stateDir)>/{raw,masked-<hash of mask key>}/ holds a
// manifest (the segments, and per source its stamp, how far it is indexed
// and the hashes of the prefix check), its journal (what the updates since
// changed) and immutable segment files (see segment.go, manifest.go and
// journal.go for the formats). Update reads the sources on every core (a
// file in pieces of about 1 MiB of complete lines, so that one huge
// transcript neither holds all its text in memory nor loses its progress
// to an interrupted update), writes new segments of about 4 MiB of text
// (each on a goroutine of its own while the next is built), fsynced only
// once a manifest or journal is to name them (a first build's are merged
// into one first, their compressed text blocks and, where all of a
// segment's documents live, its posting lists' gaps copied as they are and
// its bitmap lists shifted into place; a list is a bitmap where that is
// shorter than its gaps, bitmap.go; each is removed once the merge has
// read it), then, under an flock, nothing when nothing changed, a record
// appended to the journal after a catch-up or a merge of the catch-ups' segments (O(changed)
// bytes), or a new manifest (temp file, fsync, rename) for a new index or
// once the journal would grow past a quarter of it. A catch-up's work is
// of what changed: the index keeps the last sources' ids and where their
// records are (the next search's listing names the same ones), Backlog
// hands the update the few to read, and the records read are edited
// into the manifest held in memory in place once their journal record
// is written — no id made, record copied or sort per source;
// Candidates reads the manifest, its journal and the mapped segments without
// a lock. A merge reads the segments it merges with pread into a few KiB
// of buffers each (segfile.go), not through their mappings, so that a
// build's memory does not grow with the state; a status reads each
// segment's document table so too.
//
// # Use
//
//	ix, err := searchindex.Open(cacheDir, searchindex.StateKey(stateDir)) // or OpenMasked
//	b, err := ix.Backlog(allSources)             // how far behind, from the stamps
//	st, err := ix.UpdateStamped(ctx, allSources, b.Stamps) // every transcript of the state dir (or Update)
//	res, err := ix.Candidates(query, filter)     // res.All: cannot select, scan
//	ms, err := ix.Match(res, tools, opts.Accepts) // each candidate's Matched, no text copied: the count
//	err = ix.TextsOf(res, page)                  // the kept text of the page's (or Texts: all), then per c:
//	hit, ok := opts.Accept(c.Message(opts.IncludeTools), c.Pos) // the scan's hit, no transcript read
//	errs := searchindex.Read(srcs, want, fn)     // or: the candidates' lines, for the real match
//
// Match reads no text of a candidate the postings prove: a literal of
// three bytes folded (one CJK character, "404", a three-letter word with
// -i) is exactly the one trigram the index keeps, so a message of one text
// that holds it matches (query.go, exactly).
//
// An Index asked a second question (a long-lived process: the MCP server,
// the UI) keeps up to 64 MiB of decoded text blocks between questions
// (blockcache.go), each with its records' offsets, so that a common word
// in every block is counted without decompressing them again; a query
// never evicts a block it used itself, so a state larger than the cache
// keeps the part that fits instead of thrashing. Blocks of a segment are
// forgotten when it is unmapped. A masked index has its own, of masked
// text only.
//
// Texts answers as the lines would for a search whose MaxLine is
// search.DefaultMaxLine (the index passes longer lines over, as that scan
// does); a search that reads shorter lines (an agent's) says so in
// Filter.MaxLine, and a source holding a longer line is then in
// Result.Scan. An error from Texts (the index was updated since
// Candidates, or a damaged block) is the cue to Read the lines instead.
//
// A store that changed is not read session by session, nor every one of
// its events: the manifest keeps each store's stamp and the highest rowid
// of its events when all its sessions were last current, and one read
// (sqlitestore.DB.TranscriptChanges: the rows added since that rowid, one
// row per session's transcript generation, which OpenClaw rotates with
// every change to rows already there) tells which sessions to read again,
// as a file's stamp does for a file. A commit to one session reads that
// session and journals its record alone.
//
// An error from Update or Candidates (IsCorrupt: Reset and Update again;
// ErrBusy; a write that failed) is the caller's cue to scan instead.
//
// An Index held open (a long-lived process) outlives a removal of its
// directory: the next update makes it again and builds it anew; and every
// manifest carries the index's identity (a random uid drawn with the
// first), so an index removed and built again there by another process is
// never read through what was mapped of the old one. The write lock's file
// names its holder (pid and what: WithHolder, Holder), for the error of
// an update that gave up waiting for it (WithLockWait).
package searchindex
