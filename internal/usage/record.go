package usage

import (
	"hash/fnv"
	"math"
)

// Record is one message as it is kept (in memory, in the cache): 56 bytes,
// no pointers. A 1 GB transcript holds some 170,000 of them.
type Record struct {
	TS         int64  // ms since the epoch
	CostMicros int64  // recorded cost in micro-USD, when HasCost
	ID         uint64 // FNV-1a of the entry id (0: the entry has none)
	Input      uint32
	Output     uint32
	CacheRead  uint32
	CacheWrite uint32
	Model      uint32 // index into the part's Models
	HasCost    bool
}

// Model is a provider and model pair.
type Model struct{ Provider, Model string }

// Add stores a message in the part (its strings interned in p.Models).
func (p *Part) Add(m Message) {
	if p.index == nil {
		p.index = make(map[Model]uint32, len(p.Models))
		for i, md := range p.Models {
			p.index[md] = uint32(i)
		}
	}
	k := Model{m.Provider, m.Model}
	i, ok := p.index[k] // no allocation: the key's strings are views
	if !ok {
		k = Model{string([]byte(m.Provider)), string([]byte(m.Model))}
		i = uint32(len(p.Models))
		p.Models = append(p.Models, k)
		p.index[k] = i
	}
	p.Records = append(p.Records, Record{
		TS: m.TS, CostMicros: m.CostMicros, ID: entryHash(m.EntryID),
		Input: clamp(m.Input), Output: clamp(m.Output), CacheRead: clamp(m.CacheRead), CacheWrite: clamp(m.CacheWrite),
		Model: i, HasCost: m.HasCost,
	})
}

func clamp(v int64) uint32 { return uint32(min(v, math.MaxUint32)) }

// entryHash identifies an entry id within its session (0: none).
func entryHash(id string) uint64 {
	if id == "" {
		return 0
	}
	h := fnv.New64a()
	h.Write([]byte(id))
	if v := h.Sum64(); v != 0 {
		return v
	}
	return 1
}
