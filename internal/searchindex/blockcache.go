package searchindex

import (
	"container/list"
	"slices"
	"sync"
)

// blockCacheBytes bounds the decoded text blocks an Index keeps between
// queries (blockCache): a common word lies in every block, so a query that
// counts it decodes every block a candidate lies in — on the benchmark's
// 64 MiB state, 858 blocks, 55 MB of text, most of the query's CPU. Kept
// decoded, the next query of a long-lived process (the MCP server, the
// UI) reads them as they are.
const blockCacheBytes = 64 << 20

// blockCache keeps decoded text blocks, least recently used first out,
// bounded by their bytes. An Index enables it at its second query
// (Index.Candidates): a process that asks once (the CLI) keeps nothing.
// A segment is immutable, so its blocks stay valid while it is mapped:
// Index.drop forgets them when it unmaps it (a merge, a rebuild, Close).
//
// A query that touches more blocks than the cache holds would evict, in
// LRU order, the very blocks it decoded first and leave the next query
// nothing (a scan defeats LRU): a query never evicts a block a query of
// its own pass (epoch) used, so what is kept stays kept and a query of a
// state larger than the cache finds the part that fits.
type blockCache struct {
	mu    sync.Mutex
	max   int64
	bytes int64
	epoch uint64
	m     map[blockKey]*list.Element
	lru   list.List // of *blockEnt, most recently used at the front
	// hits, misses count the lookups (tests, benchmarks).
	hits, misses int
}

type blockKey struct {
	s *segment
	k int
}

type blockEnt struct {
	key blockKey
	b   keptBlock
	// used: the epoch that last used it
	used uint64
}

// keptBlock is a decoded block and where each of its records starts
// (offs[i], the i-th record's offset; offs[len-1] the end): a record is
// found without walking the ones before it, whose headers, in a cache of
// many megabytes, are each a miss of the CPU's caches.
type keptBlock struct {
	raw  []byte
	offs []uint32
}

func (b *keptBlock) size() int64 { return int64(cap(b.raw)) + 4*int64(cap(b.offs)) }

// recordOffsets is where each record of raw starts, and its end; false if
// a record does not decode.
func recordOffsets(raw []byte) ([]uint32, bool) {
	offs := make([]uint32, 0, 64)
	p := 0
	for p < len(raw) {
		offs = append(offs, uint32(p))
		n, ok := recordLen(raw[p:])
		if !ok {
			return nil, false
		}
		p += n
	}
	return slices.Clip(append(offs, uint32(p))), true
}

func newBlockCache(max int64) *blockCache {
	return &blockCache{max: max, m: map[blockKey]*list.Element{}}
}

// begin starts a pass (one Match or TextsOf): the blocks it uses are not
// evicted for blocks it decodes later.
func (c *blockCache) begin() {
	c.mu.Lock()
	c.epoch++
	c.mu.Unlock()
}

// get is block k of s decoded, if kept: read-only, shared.
func (c *blockCache) get(s *segment, k int) (keptBlock, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[blockKey{s, k}]
	if !ok {
		c.misses++
		return keptBlock{}, false
	}
	c.hits++
	ent := e.Value.(*blockEnt)
	ent.used = c.epoch
	c.lru.MoveToFront(e)
	return ent.b, true
}

// put keeps b as block k of s (not written again by anyone), evicting
// blocks no query of this pass used; it reports whether b was kept.
func (c *blockCache) put(s *segment, k int, b keptBlock) bool {
	n := b.size()
	c.mu.Lock()
	defer c.mu.Unlock()
	if n > c.max {
		return false
	}
	key := blockKey{s, k}
	if _, ok := c.m[key]; ok {
		return false // another worker's, the same bytes
	}
	for c.bytes+n > c.max {
		back := c.lru.Back()
		ent := back.Value.(*blockEnt)
		if ent.used == c.epoch {
			return false // all that is left is this pass's
		}
		c.remove(back)
	}
	c.m[key] = c.lru.PushFront(&blockEnt{key: key, b: b, used: c.epoch})
	c.bytes += n
	return true
}

// full reports whether a block of n bytes would not be kept (the cache
// full of this pass's blocks): the caller decodes into its own buffer.
func (c *blockCache) full(n int64) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.bytes+n <= c.max {
		return false
	}
	back := c.lru.Back()
	return back == nil || back.Value.(*blockEnt).used == c.epoch
}

func (c *blockCache) remove(e *list.Element) {
	ent := e.Value.(*blockEnt)
	c.lru.Remove(e)
	delete(c.m, ent.key)
	c.bytes -= ent.b.size()
}

// forget drops the blocks of s (unmapped).
func (c *blockCache) forget(s *segment) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for e := c.lru.Front(); e != nil; {
		next := e.Next()
		if e.Value.(*blockEnt).key.s == s {
			c.remove(e)
		}
		e = next
	}
}
