package search

import (
	"cmp"
	"math"
	"slices"
)

// Relevance ranking (Options.Relevance, words mode only) is BM25, as
// search engines (Lucene, SQLite's FTS5) rank: a hit scores, for each term
// of the query,
//
//	idf(t) · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen))
//
// where tf is how often the term occurs in the message, len the message's
// length in words (foldText), avglen the mean length of the messages
// searched, and idf(t) = ln(1 + (N − df + 0.5)/(df + 0.5)) how rare the
// term is among them: N the messages searched (every message in scope —
// role, tools, time — whether it is a hit or not), df those that hold the
// term. The sum is taken in the query's order, so a score is the same
// float on every run; ties go newest first, then in the scan's order, so
// pages are stable.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// rankStats is what ranking counts over the messages searched.
type rankStats struct {
	n     int64   // messages searched
	words int64   // their length in words, summed
	df    []int64 // per term: messages holding it
}

func newRankStats(terms int) *rankStats { return &rankStats{df: make([]int64, terms)} }

func (s *rankStats) add(m *wordsMatch) {
	s.n++
	s.words += int64(m.words)
	for i, c := range m.tf {
		if c > 0 {
			s.df[i]++
		}
	}
}

func (s *rankStats) merge(v *rankStats) {
	s.n += v.n
	s.words += v.words
	for i := range s.df {
		s.df[i] += v.df[i]
	}
}

func (s *rankStats) clone() *rankStats {
	c := *s
	c.df = slices.Clone(s.df)
	return &c
}

// score is h's BM25 score under s.
func (s *rankStats) score(h *Hit) float64 {
	if s.n == 0 {
		return 0
	}
	avg := float64(s.words) / float64(s.n)
	norm := 1.0
	if avg > 0 {
		norm = 1 - bm25B + bm25B*float64(h.words)/avg
	}
	var sc float64
	for i, tf := range h.tf {
		df := float64(s.df[i])
		idf := math.Log(1 + (float64(s.n)-df+0.5)/(df+0.5))
		f := float64(tf)
		sc += idf * f * (bm25K1 + 1) / (f + bm25K1*norm)
	}
	return sc
}

// sortRanked orders hits by score, then as sortFound does.
func sortRanked(h []Found) {
	slices.SortFunc(h, func(a, b Found) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		if c := cmp.Compare(b.Timestamp, a.Timestamp); c != 0 {
			return c
		}
		if c := cmp.Compare(a.Src, b.Src); c != 0 {
			return c
		}
		return cmp.Compare(b.Pos, a.Pos)
	})
}
